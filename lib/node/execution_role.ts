/**
 * `keel execution`: the execution client. Opens the engine on `<datadir>/keel.sqlite`, serves
 * eth/net/web3/txpool (and debug/trace when named) over HTTP and WebSocket, the Engine API on
 * the authrpc listener behind the JWT, and with `--dev` seals blocks as transactions arrive.
 */
import { isAbsolute, join } from "node:path";
import { getLogger, type Logger, pathExists } from "../common/mod.ts";
import {
  devChainInMemory,
  type ExecutionOptions,
  givenBy,
  keelVersion,
  type ValueSource,
} from "../config/mod.ts";
import { SqliteStore } from "../db/mod.ts";
import {
  buildDevGenesis,
  CHAIN_CONFIG_KEY,
  checkMnemonic,
  deriveDevAccounts,
  DEV_TXPOOL_OPTIONS,
  type DevAccount,
  DevClock,
  DevMiner,
  engineNamespace,
  ETHER,
  ExecutionEngine,
  ExecutionEngineApi,
  exportChain,
  type GenesisJson,
  importChain,
  parseJsonExact,
  TxJournal,
  type TxPoolOptions,
} from "../execution/mod.ts";
import {
  adminNamespace,
  DEFAULT_ETH_RPC_OPTIONS,
  DEV_NAMESPACES,
  devNamespace,
  devTransactionSigner,
  erc20SlotFinder,
  type EthBackend,
  ethNamespace,
  FilterManager,
  gasPrice,
  minedBlockDetail,
  minerNamespace,
  netNamespace,
  sequencerForwarder,
  txpoolNamespace,
  web3Namespace,
} from "../execution/rpc/mod.ts";
import { debugNamespace } from "../execution/rpc/debug/mod.ts";
import { otsNamespace } from "../execution/rpc/ots/mod.ts";
import { traceNamespace } from "../execution/rpc/trace/mod.ts";
import { ethSubscriptions } from "../execution/rpc/subscriptions/mod.ts";
import {
  DEFAULT_RPC_LIMITS,
  type ListenerPool,
  loadOrCreateJwtSecret,
  MethodRegistry,
  type Namespace,
  type RpcEndpointOptions,
  RpcServer,
} from "../rpc/mod.ts";
import type { RunningRole } from "./role.ts";
import { formatPermissionError } from "./permissions.ts";

/** The running execution client: its endpoints, and the chain it serves. */
export interface RunningExecution extends RunningRole {
  readonly chainId: bigint;
  /** The engine and its Engine API, for a rollup node in the same process (`keel node`). */
  readonly engine?: ExecutionEngine;
  readonly engineApi?: ExecutionEngineApi;
}
import { type SharedServices, startSharedServices } from "./services.ts";
import { dumpStateFile, loadStateFile, stateFileToLoad } from "./dev_state_files.ts";
import { devForkInfo, startFork } from "./dev_fork.ts";
import { forkHistory } from "./fork_history.ts";
import { attachFork } from "../execution/state/mod.ts";
import { rootWorkerConnector, sendersConnector } from "./threads.ts";

/** The genesis file a data dir keeps: written by `init` and on the first `--dev` start. */
export const GENESIS_FILE = "genesis.json";

async function readJsonFile(path: string): Promise<GenesisJson> {
  return parseJsonExact(await Deno.readTextFile(path)) as GenesisJson;
}

const ALLOC_MARK = "\u0000keel-alloc\u0000";

/**
 * Writes `genesis` as `JSON.stringify(genesis, null, 2)` plus a newline, byte for byte, but one
 * alloc entry at a time: the dev genesis is ~9 MB of JSON (2,046 predeploy proxies repeat the same
 * code), and building that string and its UTF-8 copy at once raised the node's peak RSS by ~13 MiB
 * (measured, startup VmHWM 244 -> 231 MiB without it).
 */
export async function writeGenesisFile(path: string, genesis: GenesisJson): Promise<void> {
  const outline = JSON.stringify({ ...genesis, alloc: ALLOC_MARK }, null, 2);
  const at = outline.indexOf(JSON.stringify(ALLOC_MARK));
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  try {
    const encoder = new TextEncoder();
    const write = async (text: string) => {
      const bytes = encoder.encode(text);
      for (let off = 0; off < bytes.length;) off += await file.write(bytes.subarray(off));
    };
    let chunk = outline.slice(0, at) + "{";
    let entries = 0;
    for (const [address, account] of Object.entries(genesis.alloc)) {
      const json = JSON.stringify(account, null, 2);
      if (json === undefined) continue;
      chunk += `${entries++ > 0 ? "," : ""}\n    ${JSON.stringify(address)}: ${
        json.replaceAll("\n", "\n    ")
      }`;
      if (chunk.length >= 1 << 16) {
        await write(chunk);
        chunk = "";
      }
    }
    chunk += entries > 0 ? "\n  }" : "}";
    await write(chunk + outline.slice(at + JSON.stringify(ALLOC_MARK).length) + "\n");
  } finally {
    file.close();
  }
}

/** The dev accounts of these options (derived once: thousands take a while). */
const devAccountsCache = new WeakMap<ExecutionOptions, DevAccount[]>();

/**
 * The dev mode's accounts: `--dev.accounts` of `--dev.mnemonic` (checked as BIP-39 first: a typo would
 * otherwise fund accounts nobody has the words for).
 */
export function devAccountsOf(options: ExecutionOptions): DevAccount[] {
  let accounts = devAccountsCache.get(options);
  if (accounts === undefined) {
    accounts = deriveDevAccounts(options.devAccounts, checkMnemonic(options.devMnemonic));
    devAccountsCache.set(options, accounts);
  }
  return accounts;
}

/**
 * The genesis to open the data dir with: `--genesis`, else the data dir's own copy, else (with
 * `--dev`) a new dev genesis that is saved there so a restart reopens the same chain. Undefined
 * when the database alone must hold it (after `keel execution init`).
 */
export async function resolveGenesis(
  options: ExecutionOptions,
  inMemory = false,
): Promise<GenesisJson | undefined> {
  if (options.genesis) return await readJsonFile(options.genesis);
  const saved = join(options.datadir, GENESIS_FILE);
  if (!inMemory && await pathExists(saved)) return await readJsonFile(saved);
  if (!options.dev) return undefined;
  const genesis = buildDevGenesis({
    chainId: options.networkId,
    timestamp: options.devTimestamp ?? BigInt(Math.floor(Date.now() / 1000)),
    accounts: devAccountsOf(options).map((a) => a.address),
    balance: options.devBalance * ETHER,
    gasLimit: options.devGasLimit,
    upTo: options.devHardfork,
    baseFeePerGas: options.devBaseFee,
  });
  if (inMemory) return genesis;
  await Deno.mkdir(options.datadir, { recursive: true });
  await writeGenesisFile(saved, genesis);
  return genesis;
}

/**
 * An in-memory dev chain keeps every block's state (~40 KB a block on an OP dev chain, the L1-info
 * deposit's writes included; measured over 10,000 blocks): each time it holds another `stepBytes` (1 GiB),
 * the log says so and how to keep the chain on disk instead. Looks every `everyMs`; returns the stop.
 */
export function watchMemoryChain(
  store: Pick<SqliteStore, "sizeBytes">,
  log: Logger,
  options: { stepBytes: number; everyMs: number } = { stepBytes: 1024 ** 3, everyMs: 10_000 },
): () => void {
  let next = options.stepBytes;
  const timer = setInterval(() => {
    const size = store.sizeBytes();
    if (size < next) return;
    next = (Math.floor(size / options.stepBytes) + 1) * options.stepBytes;
    log.warn("The in-memory dev chain is large; start with --datadir to keep it on disk", {
      mib: Math.round(size / 2 ** 20),
    });
  }, options.everyMs);
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}

export interface ExecutionRoleDeps {
  /** Share listeners with the rollup node's RPC (same address and port → one listener). */
  listeners?: ListenerPool;
  /** Logging/metrics/pprof already started by an enclosing role. */
  sharedServices?: SharedServices;
}

/** `--dev` turns the HTTP server on unless `--http=false` was given, as anvil serves by default. */
/** The pool's options from `--txpool.*` (dev mode: no minimum tip unless `--txpool.pricelimit` is given). */
export function txpoolOptions(
  options: ExecutionOptions,
  sources: Record<string, ValueSource>,
): Partial<TxPoolOptions> {
  return {
    minTip: options.dev && !givenBy(sources, "txpoolPriceLimit")
      ? DEV_TXPOOL_OPTIONS.minTip
      : options.txpoolPriceLimit,
    priceBump: options.txpoolPriceBump,
    accountSlots: options.txpoolAccountSlots,
    globalSlots: options.txpoolGlobalSlots,
    accountQueue: options.txpoolAccountQueue,
    globalQueue: options.txpoolGlobalQueue,
    lifetimeMs: options.txpoolLifetime,
    allowUnprotectedTxs: options.rpcAllowUnprotectedTxs,
    noLocals: options.txpoolNoLocals,
  };
}

/** geth legacypool: the journal is rewritten at most once a second. */
const MIN_REJOURNAL_MS = 1000;

/**
 * The local transaction journal of `--txpool.journal` (relative to the data directory), unless the chain
 * lives in memory, the path is empty or `--txpool.nolocals` is given (geth keeps no locals then).
 */
function txJournal(
  options: ExecutionOptions,
  inMemory: boolean,
  engine: ExecutionEngine,
  log: Logger,
): TxJournal | undefined {
  if (inMemory || options.datadir === undefined || options.txpoolJournal === "" || options.txpoolNoLocals) {
    return undefined;
  }
  const path = isAbsolute(options.txpoolJournal)
    ? options.txpoolJournal
    : join(options.datadir, options.txpoolJournal);
  return new TxJournal(path, engine.pool, log);
}

function httpEnabled(options: ExecutionOptions, sources: Record<string, ValueSource>): boolean {
  return options.http || (options.dev && sources.http !== "flag" && sources.http !== "env");
}

export async function startExecutionRole(
  options: ExecutionOptions,
  sources: Record<string, ValueSource>,
  deps: ExecutionRoleDeps = {},
): Promise<RunningExecution> {
  const version = keelVersion();
  const log = getLogger(["execution"]);
  const stops: (() => Promise<void> | void)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  const endpoints: Record<string, string> = {};
  let chainId = 0n;
  let running: { engine: ExecutionEngine; engineApi: ExecutionEngineApi } | undefined;
  try {
    const shared = deps.sharedServices ?? await startSharedServices(options, version);
    if (!deps.sharedServices) {
      stops.push(() => shared.stop());
      Object.assign(endpoints, shared.endpoints);
    }
    // A dev chain without --datadir lives in memory (as geth --dev and anvil): sqlite's in-memory
    // database, which also seals ~20% faster than a file (no WAL, no checkpoints; measured).
    const inMemory = devChainInMemory(options, sources);
    // anvil --fork-url: the dev chain starts at another node's block and reads what it lacks from it.
    const fork = await startFork(options, sources, devAccountsOf(options).map((a) => a.address), log);
    const genesis = fork?.genesis ?? await resolveGenesis(options, inMemory);
    const memoryStore = inMemory ? SqliteStore.open(":memory:") : undefined;
    if (fork !== undefined) {
      stops.push(() => fork.source.client.close());
      attachFork(memoryStore!, fork.source);
    }
    if (memoryStore !== undefined) {
      stops.push(() => memoryStore.close());
      stops.push(watchMemoryChain(memoryStore, log));
    }
    // In the node Worker, the main thread starts the state-root worker (threads.ts).
    // In the node Worker, the main thread starts the helper threads of block import (threads.ts) when
    // the first block is imported; the engine closes them.
    // Dev mode: one clock for the engine (the pool's next-block rules) and the miner (evm_increaseTime).
    const clock = options.dev ? new DevClock() : undefined;
    const engine = await ExecutionEngine.open({
      dataDir: options.datadir,
      store: memoryStore,
      genesis,
      txpool: txpoolOptions(options, sources),
      preimages: options.dev,
      // anvil --code-size-limit / --disable-code-size-limit (usize::MAX there).
      codeSizeLimit: !options.dev
        ? undefined
        : options.devDisableCodeSizeLimit
        ? Number.MAX_SAFE_INTEGER
        : options.devCodeSizeLimit,
      // A dev chain keeps every state (as anvil: evm_revert, anvil_rollback go back to any block) unless
      // --gcmode full is given: then the last 128 blocks', the snapshots' and the genesis's.
      gcMode: options.dev && sources.gcmode !== "flag" && sources.gcmode !== "env"
        ? "archive"
        : options.gcmode,
    }, {
      logger: log,
      stateRootChannel: rootWorkerConnector(),
      sendersChannel: sendersConnector(),
      now: clock === undefined ? undefined : () => clock.now(),
    });
    stops.push(() => engine.close());
    chainId = engine.config.chainId;
    const journal = txJournal(options, inMemory, engine, log);
    let rejournal: ReturnType<typeof setInterval> | undefined;
    // Pushed here, it runs after the server and the miner stopped: nothing arrives after the last write.
    stops.push(async () => {
      clearInterval(rejournal);
      await journal?.rotate().catch((e) =>
        log.error("Cannot write the transaction journal", { path: journal.path, error: (e as Error).message })
      );
    });

    const backend: EthBackend = {
      config: engine.config,
      chain: engine.chain,
      pool: engine.pool,
      stateAt: (header) => engine.stateAt(header),
      stateRootOf: (header) => engine.irregular.rootOf(header),
      onNewHeads: (listener) => engine.onNewHeads(listener),
      pendingBaseFee: options.dev ? () => engine.pendingRules().nextBaseFee : undefined,
      sequencer: options.rollupSequencerHttp === undefined
        ? undefined
        : sequencerForwarder(options.rollupSequencerHttp),
      txConditionals: options.rollupSequencerTxConditionalEnabled ? engine.conditionals : undefined,
      devAccounts: options.dev ? devAccountsOf(options) : undefined,
      impersonation: options.dev ? engine.impersonation : undefined,
      clientVersion: `${version}/${Deno.build.os}-${Deno.build.arch}/deno${Deno.version.deno}`,
      options: {
        ...DEFAULT_ETH_RPC_OPTIONS,
        gasCap: options.rpcGasCap,
        evmTimeoutMs: options.rpcEvmTimeoutMs,
        txFeeCap: BigInt(Math.round(options.rpcTxFeeCap * 1e9)) * 10n ** 9n,
        minSuggestedPriorityFee: options.gpoMinSuggestedPriorityFee,
        maxPrice: options.gpoMaxPrice,
      },
    };
    const filters = new FilterManager({}, { backend });
    stops.push(() => filters.close());
    const unsubscribeHeads = engine.onNewHeads((event) => {
      filters.onNewHeads({
        added: event.added.map((b) => engine.chain.getBlockRef(b.hash)!).filter((r) => r !== undefined),
        removed: event.removed.map((b) => engine.chain.getBlockRef(b.hash)!).filter((r) => r !== undefined),
      });
    });
    stops.push(unsubscribeHeads);

    const engineApi = new ExecutionEngineApi({ clientVersion: version, clientCommit: commitOf(version) }, {
      engine,
    });
    running = { engine, engineApi };
    const miner = options.dev
      ? new DevMiner({ period: options.devPeriod, sealEmpty: options.devPeriod > 0 }, { engine, clock })
      : undefined;
    if (miner !== undefined) {
      const load = await stateFileToLoad(options);
      if (load !== undefined) await loadStateFile(engine, miner, load, log);
      const dumpTo = options.dumpState ?? options.state;
      // Pushed here, it runs after the server and the miner stopped and before the engine closes.
      if (dumpTo !== undefined) {
        stops.push(() =>
          dumpStateFile(engine, dumpTo, log).catch((e) =>
            log.error("Cannot write the state dump", { path: dumpTo, error: (e as Error).message })
          )
        );
      }
    }
    // Fork mode: the blocks, transactions, states and traces before the fork block are the remote's.
    const withForkHistory = (ns: Namespace) =>
      fork === undefined ? ns : forkHistory(ns, {
        client: fork.source.client,
        blockNumber: fork.blockNumber,
        head: () => engine.head().header.number,
      });
    const registry = new MethodRegistry([
      ...(miner === undefined ? [] : [devNamespace(engine, miner, {
        clientVersion: backend.clientVersion,
        gasPrice: () => gasPrice(backend),
        signRequest: devTransactionSigner(backend),
        minedBlock: (hash) => minedBlockDetail(backend, hash),
        erc20Slot: erc20SlotFinder(backend),
        fork: fork === undefined ? undefined : devForkInfo(fork, options.devForkUrl!),
      })]),
      withForkHistory(ethNamespace(backend, filters)),
      ethSubscriptions({
        onNewHeads: (cb) => engine.onNewHeads(cb),
        onPending: (cb) => engine.pool.onPending(cb),
      }),
      netNamespace(backend),
      web3Namespace(backend),
      txpoolNamespace(backend),
      minerNamespace(engine),
      adminNamespace({
        clientVersion: backend.clientVersion,
        chainId: engine.config.chainId,
        genesisHash: engine.genesisHash,
        chainConfigJson: () => {
          const raw = engine.store.get(CHAIN_CONFIG_KEY);
          return raw === undefined ? undefined : JSON.parse(new TextDecoder().decode(raw));
        },
        headHash: () => engine.head().hash,
        datadir: inMemory ? undefined : options.datadir,
        exportChain: (path, first, last) => exportChain(engine, path, first, last),
        importChain: (path) => importChain(engine, path),
        describeFileError: (e) =>
          formatPermissionError(e, inMemory ? [] : [options.datadir]) ?? (e as Error).message,
      }),
      withForkHistory(debugNamespace({
        ...backend,
        setHead: (n) => engine.setHead(n),
        slotPreimages: engine.preimages,
        badBlocks: engine.badBlocks,
      })),
      withForkHistory(traceNamespace(backend)),
      otsNamespace(backend),
      engineNamespace(engineApi),
    ]);

    const jwt = await loadOrCreateJwtSecret(options.authrpcJwtSecret, {
      dataDir: inMemory ? undefined : options.datadir,
    });
    if (jwt.created && jwt.path !== undefined) {
      log.info("Wrote a new Engine API JWT secret", { path: jwt.path });
    }
    const limits = {
      ...DEFAULT_RPC_LIMITS,
      batchItemLimit: options.rpcBatchRequestLimit,
      batchResponseMaxSize: options.rpcBatchResponseMaxSize,
    };
    const list: RpcEndpointOptions[] = [];
    const cors = options.httpCorsDomain;
    if (httpEnabled(options, sources)) {
      const sharePort = options.ws && options.wsAddr === options.httpAddr &&
        options.wsPort === options.httpPort;
      list.push({
        name: "http",
        addr: options.httpAddr,
        port: options.httpPort,
        http: true,
        ws: sharePort,
        namespaces: miner === undefined ? options.httpApi : [...options.httpApi, ...DEV_NAMESPACES],
        corsDomains: cors,
        vhosts: options.httpVhosts,
      });
    }
    if (options.ws && !list.some((e) => e.ws)) {
      list.push({
        name: "ws",
        addr: options.wsAddr,
        port: options.wsPort,
        http: false,
        ws: true,
        namespaces: miner === undefined ? options.wsApi : [...options.wsApi, ...DEV_NAMESPACES],
        corsDomains: [],
        vhosts: ["*"],
      });
    }
    list.push({
      name: "authrpc",
      addr: options.authrpcAddr,
      port: options.authrpcPort,
      http: true,
      ws: true,
      // op-geth serves eth next to engine on the authenticated port (op-node reads blocks there).
      namespaces: ["engine", "eth"],
      jwtSecret: jwt.secret,
      corsDomains: [],
      vhosts: ["*"],
    });
    if (miner !== undefined) {
      if (options.devNoMining) miner.setAutomine(false);
      miner.start();
      stops.push(() => miner.stop());
      log.info("Dev mode: sealing blocks", {
        period: options.devNoMining
          ? "none (evm_mine)"
          : options.devPeriod === 0
          ? "on demand"
          : options.devPeriod,
        chain: inMemory ? "in memory (give --datadir to keep it)" : options.datadir,
      });
    }
    if (journal !== undefined) {
      // After the miner started (in dev mode the transactions put back are sealed as any others) and
      // before the RPC answers (as geth: the pool holds them when the node is first reachable).
      await journal.load();
      const every = Math.max(MIN_REJOURNAL_MS, options.txpoolRejournal);
      if (every !== options.txpoolRejournal) {
        log.warn("Sanitizing invalid txpool journal time", {
          provided: options.txpoolRejournal,
          updated: every,
        });
      }
      rejournal = setInterval(() => {
        journal.rotate().catch((e) =>
          log.error("Cannot write the transaction journal", {
            path: journal.path,
            error: (e as Error).message,
          })
        );
      }, every);
    }
    const server = new RpcServer({ endpoints: list, limits, version }, {
      registry,
      pool: deps.listeners,
      logger: log,
    });
    await server.start();
    stops.push(() => server.stop());
    for (const e of list) endpoints[e.name] = server.url(e.name, e.http ? "http" : "ws");
    log.info("Execution RPC started", endpoints);
  } catch (err) {
    await stopAll();
    throw err;
  }
  let stopped: Promise<void> | undefined;
  return {
    endpoints,
    chainId,
    engine: running?.engine,
    engineApi: running?.engineApi,
    stop() {
      stopped ??= stopAll();
      return stopped;
    },
  };
}

/** The commit part of `keel/v0.1.0-<commit>`, or "" when the build has none. */
function commitOf(version: string): string {
  const m = /-([0-9a-f]{7,40})$/.exec(version);
  return m ? m[1] : "";
}
