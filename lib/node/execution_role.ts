/**
 * `keel execution`: the execution client. Opens the engine on `<datadir>/keel.sqlite`, serves
 * eth/net/web3/txpool (and debug/trace when named) over HTTP and WebSocket, the Engine API on
 * the authrpc listener behind the JWT, and with `--dev` seals blocks as transactions arrive.
 */
import { isAbsolute, join } from "node:path";
import type { TypedTransaction } from "@ethereumjs/tx";
import { getLogger, type Hex, type Logger, Relay } from "../common/mod.ts";
import { devChainInMemory, type ExecutionOptions, keelVersion, type ValueSource } from "../config/mod.ts";
import { type ExecutionEngine, type ExecutionEngineApi, TxJournal } from "../execution/mod.ts";
import { DEV_NAMESPACES, devBeaconRoutes, type ForkTarget } from "../execution/rpc/mod.ts";
import { ethSubscriptions, type SubscriptionHeadsEvent } from "../execution/rpc/subscriptions/mod.ts";
import {
  DEFAULT_RPC_LIMITS,
  type ListenerPool,
  loadOrCreateJwtSecret,
  MethodRegistry,
  type RpcEndpointOptions,
  RpcServer,
  switchedNamespace,
} from "../rpc/mod.ts";
import type { RunningRole } from "./role.ts";
import { type SharedServices, startSharedServices } from "./services.ts";
import { dumpStateFile, loadStateFile, stateFileToLoad } from "./dev_state_files.ts";
import { type ChainParams, openServedChain, type ServedChain } from "./execution_chain.ts";

export {
  devAccountsOf,
  GENESIS_FILE,
  resolveGenesis,
  txpoolOptions,
  watchMemoryChain,
  writeGenesisFile,
} from "./execution_chain.ts";

/** The running execution client: its endpoints, and the chain it serves. */
export interface RunningExecution extends RunningRole {
  readonly chainId: bigint;
  /** The engine and its Engine API, for a rollup node in the same process (`keel node`). */
  readonly engine?: ExecutionEngine;
  readonly engineApi?: ExecutionEngineApi;
}

export interface ExecutionRoleDeps {
  /** Share listeners with the rollup node's RPC (same address and port → one listener). */
  listeners?: ListenerPool;
  /** Logging/metrics/pprof already started by an enclosing role. */
  sharedServices?: SharedServices;
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

/** `--dev` turns the HTTP server on unless `--http=false` was given, as anvil serves by default. */
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
  /** The chain served (a dev re-fork replaces it). */
  let current: ServedChain | undefined;
  try {
    const shared = deps.sharedServices ?? await startSharedServices(options, version);
    if (!deps.sharedServices) {
      stops.push(() => shared.stop());
      Object.assign(endpoints, shared.endpoints);
    }
    // A dev chain without --datadir lives in memory (as geth --dev and anvil): sqlite's in-memory
    // database, which also seals ~20% faster than a file (no WAL, no checkpoints; measured).
    const inMemory = devChainInMemory(options, sources);
    // eth_subscribe outlives the chain: a dev re-fork switches chains, the subscriptions go on.
    const heads = new Relay<SubscriptionHeadsEvent>();
    const pending = new Relay<[TypedTransaction, Hex]>();
    const open = (fork: ChainParams["fork"]) =>
      openServedChain({ options, sources, inMemory, version, log, fork, refork }).then((chain) => {
        chain.onClose(chain.engine.onNewHeads((event) => heads.emit(event)));
        chain.onClose(chain.engine.pool.onPending((tx, hash) => pending.emit([tx, hash])));
        return chain;
      });
    // anvil_reset / hardhat_reset with `forking` (another block or remote), or without it on a fork (the
    // dev chain again): a new chain in memory, switched to once open; the one before is stopped.
    let switching = Promise.resolve();
    const refork = !inMemory ? undefined : (target: ForkTarget | undefined) => {
      const next = switching.then(async () => {
        const before = current!;
        // anvil_reset has checked that a target without a URL comes from a fork chain.
        const chain = await open(
          target === undefined
            ? undefined
            : { url: target.url ?? before.fork!.url, blockNumber: target.blockNumber },
        );
        startMining(chain);
        current = chain;
        await before.stopMining();
        await before.close();
      });
      switching = next.catch(() => {});
      return next;
    };
    const startMining = (chain: ServedChain) => {
      if (chain.miner === undefined) return;
      if (options.devNoMining) chain.miner.setAutomine(false);
      chain.miner.start();
    };
    current = await open(
      options.devForkUrl === undefined ? undefined : {
        url: options.devForkUrl,
        blockNumber: options.devForkBlockNumber,
      },
    );
    // Pushed first, run last: the chain closes after the server, the miner and the state dump stopped.
    stops.push(() => current!.close());
    const first = current;
    const journal = txJournal(options, inMemory, first.engine, log);
    let rejournal: ReturnType<typeof setInterval> | undefined;
    // Pushed here, it runs after the server and the miner stopped: nothing arrives after the last write.
    stops.push(async () => {
      clearInterval(rejournal);
      await journal?.rotate().catch((e) =>
        log.error("Cannot write the transaction journal", { path: journal.path, error: (e as Error).message })
      );
    });
    if (first.miner !== undefined) {
      const load = await stateFileToLoad(options);
      if (load !== undefined) await loadStateFile(first.engine, first.miner, load, log);
      const dumpTo = options.dumpState ?? options.state;
      // Pushed here, it runs after the server and the miner stopped and before the engine closes.
      if (dumpTo !== undefined) {
        stops.push(() =>
          dumpStateFile(current!.engine, dumpTo, log).catch((e) =>
            log.error("Cannot write the state dump", { path: dumpTo, error: (e as Error).message })
          )
        );
      }
    }
    // Every method goes to the chain served at the time of the call.
    const registry = new MethodRegistry([
      switchedNamespace(first.registry, () => current!.registry),
      ethSubscriptions({
        onNewHeads: (cb) => heads.on(cb),
        onPending: (cb) => pending.on(([tx, hash]) => cb(tx, hash)),
      }),
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
        namespaces: !options.dev ? options.httpApi : [...options.httpApi, ...DEV_NAMESPACES],
        corsDomains: cors,
        vhosts: options.httpVhosts,
        // anvil's beacon API (genesis, a block's blobs) on the dev chain's HTTP port.
        restGet: !options.dev ? undefined : devBeaconRoutes(() => {
          const engine = current!.engine;
          return { genesisHash: engine.genesisHash, chain: engine.chain, blobs: engine.blobs };
        }, version),
      });
    }
    if (options.ws && !list.some((e) => e.ws)) {
      list.push({
        name: "ws",
        addr: options.wsAddr,
        port: options.wsPort,
        http: false,
        ws: true,
        namespaces: !options.dev ? options.wsApi : [...options.wsApi, ...DEV_NAMESPACES],
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
    if (first.miner !== undefined) {
      startMining(first);
      stops.push(async () => {
        await switching;
        await current!.stopMining();
      });
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
    // The chain served now: a dev re-fork changes it (and a later one drops the one before).
    get chainId() {
      return current?.engine.config.chainId ?? 0n;
    },
    get engine() {
      return current?.engine;
    },
    get engineApi() {
      return current?.engineApi;
    },
    stop() {
      stopped ??= stopAll();
      return stopped;
    },
  };
}
