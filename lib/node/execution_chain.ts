/**
 * The chain `keel execution` serves: the engine opened on a genesis, its Engine API, the dev miner and
 * every RPC namespace over them (eth_subscribe aside: those outlive a chain, execution_role.ts). The
 * role opens one at start; in dev mode anvil_reset / hardhat_reset with `forking` open another (a fork of
 * another block or remote, or the dev chain again when a fork is left) and the role switches to it.
 */
import { join } from "node:path";
import { type Logger, pathExists } from "../common/mod.ts";
import { type ExecutionOptions, givenBy, type ValueSource } from "../config/mod.ts";
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
  type TxPoolOptions,
} from "../execution/mod.ts";
import {
  adminNamespace,
  DEFAULT_ETH_RPC_OPTIONS,
  devNamespace,
  devTransactionSigner,
  erc20SlotFinder,
  type EthBackend,
  ethNamespace,
  FilterManager,
  type ForkTarget,
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
import { MethodRegistry, type Namespace } from "../rpc/mod.ts";
import { attachFork } from "../execution/state/mod.ts";
import { formatPermissionError } from "./permissions.ts";
import { ensureDir, readJsonFile } from "./files.ts";
import { devForkInfo, forkClient, type ForkPlan, startFork } from "./dev_fork.ts";
import { forkHistory } from "./fork_history.ts";
import { rootWorkerConnector, sendersConnector } from "./threads.ts";

/** The genesis file a data dir keeps: written by `init` and on the first `--dev` start. */
export const GENESIS_FILE = "genesis.json";

function readGenesisFile(path: string, what: string): Promise<GenesisJson> {
  return readJsonFile(path, what, parseJsonExact) as Promise<GenesisJson>;
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
  if (options.genesis) return await readGenesisFile(options.genesis, "genesis (--genesis)");
  const saved = join(options.datadir, GENESIS_FILE);
  if (!inMemory && await pathExists(saved)) return await readGenesisFile(saved, "the data dir's genesis");
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
  await ensureDir(options.datadir, "the data dir (--datadir)");
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

/** One chain served: what the role reads of it, and its two-step stop. */
export interface ServedChain {
  readonly engine: ExecutionEngine;
  readonly engineApi: ExecutionEngineApi;
  readonly miner: DevMiner | undefined;
  readonly backend: EthBackend;
  /** Every namespace of this chain but the subscriptions. */
  readonly registry: MethodRegistry;
  /** Fork mode: the plan and the remote's URL. */
  readonly fork: { plan: ForkPlan; url: string } | undefined;
  /** Stops sealing (the miner), so that a state dump sees the last block. */
  stopMining(): Promise<void>;
  /** Closes what it opened (the engine, its store, the remote's client), in reverse order. */
  close(): Promise<void>;
  /** Adds `fn` to what close() runs (first, as the last added). */
  onClose(fn: () => Promise<void> | void): void;
}

export interface ChainParams {
  options: ExecutionOptions;
  sources: Record<string, ValueSource>;
  /** The chain lives in memory (a dev chain without --datadir, and every fork). */
  inMemory: boolean;
  version: string;
  log: Logger;
  /** Fork mode: the remote and block (undefined: its head) to start from; undefined for no fork. */
  fork: { url: string; blockNumber: bigint | undefined } | undefined;
  /** anvil_reset / hardhat_reset with `forking`, or leaving a fork: switches the role to another chain. */
  refork: ((target: ForkTarget | undefined) => Promise<void>) | undefined;
}

/** Opens the chain of `params` (in fork mode, after reading the fork block from the remote). */
export async function openServedChain(params: ChainParams): Promise<ServedChain> {
  const { options, sources, inMemory, log } = params;
  const closers: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c();
  };
  try {
    // anvil --fork-url: the dev chain starts at another node's block and reads what it lacks from it.
    const forkOptions = params.fork === undefined
      ? { ...options, devForkUrl: undefined }
      : { ...options, devForkUrl: params.fork.url, devForkBlockNumber: params.fork.blockNumber };
    const plan = await startFork(forkOptions, sources, devAccountsOf(options).map((a) => a.address), log);
    if (plan !== undefined) closers.push(() => plan.source.client.close());
    const genesis = plan?.genesis ?? await resolveGenesis(options, inMemory);
    const memoryStore = inMemory ? SqliteStore.open(":memory:") : undefined;
    if (plan !== undefined) attachFork(memoryStore!, plan.source);
    if (memoryStore !== undefined) {
      closers.push(() => memoryStore.close());
      closers.push(watchMemoryChain(memoryStore, log));
    }
    // Dev mode: one clock for the engine (the pool's next-block rules) and the miner (evm_increaseTime).
    const clock = options.dev ? new DevClock() : undefined;
    // In the node Worker, the main thread starts the state-root worker and the helper threads of block
    // import (threads.ts) when the first block is imported; the engine closes them.
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
      gcMode: options.dev && !givenBy(sources, "gcmode") ? "archive" : options.gcmode,
    }, {
      logger: log,
      stateRootChannel: rootWorkerConnector(),
      sendersChannel: sendersConnector(),
      now: clock === undefined ? undefined : () => clock.now(),
    });
    closers.push(() => engine.close());
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
      clientVersion: `${params.version}/${Deno.build.os}-${Deno.build.arch}/deno${Deno.version.deno}`,
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
    closers.push(() => filters.close());
    closers.push(engine.onNewHeads((event) => {
      filters.onNewHeads({
        added: event.added.map((b) => engine.chain.getBlockRef(b.hash)!).filter((r) => r !== undefined),
        removed: event.removed.map((b) => engine.chain.getBlockRef(b.hash)!).filter((r) => r !== undefined),
      });
    }));
    const engineApi = new ExecutionEngineApi(
      { clientVersion: params.version, clientCommit: commitOf(params.version) },
      { engine },
    );
    const miner = options.dev
      ? new DevMiner({ period: options.devPeriod, sealEmpty: options.devPeriod > 0 }, { engine, clock })
      : undefined;
    // Fork mode: where the remote is (anvil_setRpcUrl moves it), and what anvil_nodeInfo reports of it.
    const fork = plan === undefined ? undefined : { plan, url: params.fork!.url };
    const forkInfo = plan === undefined ? undefined : devForkInfo(plan, fork!.url);
    const setForkUrl = plan === undefined ? undefined : (url: string) => {
      const before = plan.source.client;
      plan.source.client = forkClient(url);
      fork!.url = forkInfo!.url = url;
      before.close().catch(() => {});
    };
    // Fork mode: the blocks, transactions, states and traces before the fork block are the remote's.
    const withForkHistory = (ns: Namespace) =>
      plan === undefined ? ns : forkHistory(ns, {
        get client() {
          return plan.source.client;
        },
        blockNumber: plan.blockNumber,
        head: () => engine.head().header.number,
        maxFeeHistory: backend.options.maxFeeHistory,
      });
    const registry = new MethodRegistry([
      ...(miner === undefined ? [] : [devNamespace(engine, miner, {
        clientVersion: backend.clientVersion,
        gasPrice: () => gasPrice(backend),
        signRequest: devTransactionSigner(backend),
        minedBlock: (hash) => minedBlockDetail(backend, hash),
        erc20Slot: erc20SlotFinder(backend),
        fork: forkInfo,
        refork: params.refork,
        setForkUrl,
      })]),
      withForkHistory(ethNamespace(backend, filters)),
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
    return {
      engine,
      engineApi,
      miner,
      backend,
      registry,
      fork,
      stopMining: async () => {
        await miner?.stop();
      },
      close,
      onClose: (fn) => closers.push(fn),
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/** The commit part of `keel/v0.1.0-<commit>`, or "" when the build has none. */
function commitOf(version: string): string {
  const m = /-([0-9a-f]{7,40})$/.exec(version);
  return m ? m[1] : "";
}
