/**
 * `keel node`: the rollup node's services (its JSON-RPC `rollupnode` namespace, metrics,
 * profiler) and, unless `--l2` names an external engine, the embedded execution client.
 * The rollup RPC and the execution client's HTTP share one listener when they are given the
 * same address and port.
 */
import { BaseError, getLogger, hexToBytes } from "../common/mod.ts";
import { Batcher, Proposer } from "../batcher/mod.ts";
import { keelVersion, type NodeOptions } from "../config/mod.ts";
import {
  applyForkOverrides,
  type ForkOverrides,
  l1BlobFeeScheduleFor,
  maxSequencerDrift,
  parseRollupConfigJson,
  type RollupConfig,
  rollupConfigFromPreset,
} from "../protocol/mod.ts";
import {
  adminNamespace,
  nodep2pNamespace,
  optimismNamespace,
  rollupnodeNamespace,
} from "../rollup/rpc/mod.ts";
import { startP2p } from "./p2p_service.ts";
import { InstrumentedRpcClient, l1Limiter, l1Rpc } from "./l1_rpc.ts";
import { checkSupported } from "./unsupported.ts";
import { readJsonFile } from "./files.ts";
import { altDaManagerFor, checkAltDa, daClientFor } from "./altda_service.ts";
import { checkConductorOptions, ConductorClient } from "./conductor.ts";
import { ProtocolVersionsWatch } from "./protocol_versions.ts";
import { opstackNamespace } from "./opstack_api.ts";
import type { P2pHost } from "../rollup/p2p/mod.ts";
import { Sequencer } from "../rollup/sequencer/mod.ts";
import { Driver, SafeDb } from "../rollup/driver/mod.ts";
import { unsafePayloadQueue } from "../rollup/p2p/mod.ts";
import { SnapshotLog } from "./snapshot_log.ts";
import { unsafePayloadPoster } from "./unsafe_payload.ts";
import {
  driverMetrics,
  publishSequenced,
  recordP2pCounts,
  recordSyncStatus,
  sequencerMetrics,
} from "./node_metrics.ts";
import { BeaconClient, L1Client } from "../rollup/l1/mod.ts";
import { embeddedL2, embeddedPayloads, engineBatcherSource } from "./embedded_l2.ts";
import { engineRpcClient, externalL2, HttpEngineApi } from "./external_engine.ts";
import type { EngineApi } from "../protocol/engine.ts";
import type { GossipBlock } from "../protocol/gossip_block.ts";
import type { ExecutionEngine } from "../execution/engine/mod.ts";
import { loadKzg } from "../execution/evm/mod.ts";
import type { L2Chain } from "../rollup/driver/mod.ts";
import { ElSync, type ElSyncDeps } from "../rollup/p2p/mod.ts";
import {
  aliasNamespace,
  DEFAULT_RPC_LIMITS,
  ListenerPool,
  loadOrCreateJwtSecret,
  MethodRegistry,
  RpcServer,
  WsJsonRpcClient,
} from "../rpc/mod.ts";
import { getNetworkPreset } from "../../networks/mod.ts";
import { startExecutionRole } from "./execution_role.ts";
import type { RoleRequest, RunningRole } from "./role.ts";
import { startSharedServices } from "./services.ts";

const OVERRIDES: [keyof NodeOptions & `override${string}`, keyof ForkOverrides][] = [
  ["overrideCanyon", "canyon"],
  ["overrideDelta", "delta"],
  ["overrideEcotone", "ecotone"],
  ["overrideFjord", "fjord"],
  ["overrideGranite", "granite"],
  ["overrideHolocene", "holocene"],
  ["overrideIsthmus", "isthmus"],
  ["overrideInterop", "interop"],
  ["overrideJovian", "jovian"],
  ["overridePectraBlobSchedule", "pectrablobschedule"],
];

/**
 * The rollup config of `--network` or `--rollup.config`, with the `--override.*` fork times
 * that were given (op-node applies an override only when the flag is set).
 */
export async function loadRollupConfig(
  options: NodeOptions,
  sources: Record<string, string>,
): Promise<RollupConfig> {
  let cfg: RollupConfig;
  if (options.network) {
    cfg = rollupConfigFromPreset(getNetworkPreset(options.network));
  } else {
    const path = options.rollupConfig!;
    cfg = parseRollupConfigJson(await readJsonFile(path, "rollup config (--rollup.config)"));
  }
  const overrides: ForkOverrides = {};
  for (const [field, fork] of OVERRIDES) {
    if (sources[field] !== undefined && sources[field] !== "default") {
      overrides[fork] = options[field] as bigint;
    }
  }
  return Object.keys(overrides).length > 0 ? applyForkOverrides(cfg, overrides) : cfg;
}

/** Seconds between L1 blocks the sequencer's confirmation depth is measured in (Ethereum's slot). */
export const L1_BLOCK_TIME_SECONDS = 12n;

/**
 * The warning for a `--sequencer.l1-confs` whose blocks span more than the chain's max sequencer drift
 * at `nowSeconds` (the config's before Fjord, 1800 s from Fjord): the sequencer keeps its L1 origin that
 * many blocks behind the L1 head, so its blocks run past the drift before the next origin is confirmed
 * and it cannot build (spec 8). Undefined when the depth fits.
 */
export function sequencerConfsWarning(
  cfg: RollupConfig,
  confs: bigint,
  nowSeconds: bigint,
  l1BlockTime: bigint = L1_BLOCK_TIME_SECONDS,
): { message: string; context: Record<string, number | string> } | undefined {
  const drift = maxSequencerDrift(cfg, nowSeconds);
  const span = confs * l1BlockTime;
  if (span <= drift) return undefined;
  return {
    message:
      "--sequencer.l1-confs {confs} L1 blocks ({seconds} s) exceed the max sequencer drift of {drift} s: block production will stall",
    context: {
      confs: confs.toString(),
      seconds: span.toString(),
      drift: Number(drift),
      l1BlockTime: Number(l1BlockTime),
    },
  };
}

/** The text of `--rollup.l1-chain-config`, if given. */
async function readL1ChainConfig(options: NodeOptions): Promise<string | undefined> {
  const path = options.rollupL1ChainConfig;
  if (path === undefined) return undefined;
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    throw new BaseError(
      "INVALID_CHAIN_CONFIG",
      `Cannot read --rollup.l1-chain-config ${path}: ${(e as Error).message}`,
    );
  }
}

export async function startNodeRole(request: Extract<RoleRequest, { role: "node" }>): Promise<RunningRole> {
  const { options, execution, sources } = request;
  const version = keelVersion();
  const log = getLogger(["node"]);
  for (const warning of checkSupported(options)) log.warn(warning);
  checkConductorOptions(options);
  const rollupConfig = await loadRollupConfig(options, sources);
  checkAltDa(options, rollupConfig);
  if (options.sequencerEnabled) {
    const w = sequencerConfsWarning(
      rollupConfig,
      options.sequencerL1Confs,
      BigInt(Math.floor(Date.now() / 1000)),
    );
    if (w !== undefined) log.warn(w.message, w.context);
  }
  const l1BlobFees = l1BlobFeeScheduleFor(rollupConfig.l1ChainId, await readL1ChainConfig(options));
  const shared = await startSharedServices(options, version);
  const listeners = new ListenerPool({});
  const stops: (() => Promise<void>)[] = [() => shared.stop()];
  // Resolved when the node decides to stop itself (--rollup.halt); the Worker then stops it.
  let halt: (reason: string) => void = () => {};
  const halted = new Promise<string>((resolve) => halt = resolve);
  const endpoints: Record<string, string> = { ...shared.endpoints };
  try {
    let driver: Driver | undefined;
    /** admin_postUnsafePayload, once derivation runs (an unsafe block inserted as a gossiped one is). */
    let postUnsafePayload: ((envelope: unknown) => Promise<void>) | undefined;
    let safeDb: SafeDb | undefined;
    let sequencer: Sequencer | undefined;
    let p2p: P2pHost | undefined;
    let elSync: ElSync | undefined;
    // EL sync (below): derivation and sequencing wait from the start, as op-node's, until it is over or skipped.
    const elSyncing = () =>
      elSync?.syncing ?? (options.syncMode === "execution-layer" && !options.p2pDisable);
    let engineApi: EngineApi | undefined;
    let l2: L2Chain | undefined;
    let embedded: ExecutionEngine | undefined;
    if (options.l2 === undefined) {
      const engine = await startExecutionRole(
        { ...execution, metricsEnabled: false, pprofEnabled: false },
        sources,
        { listeners, sharedServices: shared },
      );
      stops.push(() => engine.stop());
      if (engine.chainId !== rollupConfig.l2ChainId) {
        throw new BaseError(
          "NODE_CHAIN_MISMATCH",
          `Cannot start the node: the embedded engine's genesis is chain ${engine.chainId}, the rollup config is chain ${rollupConfig.l2ChainId}`,
          { meta: { engine: engine.chainId, rollup: rollupConfig.l2ChainId } },
        );
      }
      Object.assign(endpoints, engine.endpoints);
      if (engine.engine !== undefined && engine.engineApi !== undefined) {
        embedded = engine.engine;
        engineApi = engine.engineApi;
        l2 = embeddedL2(engine.engine);
      }
    } else {
      // An external engine: the Engine API and the driver's reads over its authrpc, with the JWT.
      // op-node: the secret file is created with a new key when missing or empty.
      const { secret } = await loadOrCreateJwtSecret(options.l2JwtSecret, { dataDir: execution.datadir });
      // op-node's op_node_default_rpc_client_* count its engine calls too.
      const rpc = new InstrumentedRpcClient(
        engineRpcClient(options.l2, secret, Number(options.l2EngineRpcTimeoutMs)),
        shared.metrics,
      );
      stops.push(() => rpc.close());
      engineApi = new HttpEngineApi(rpc);
      l2 = externalL2(rpc);
      endpoints.l2 = options.l2;
    }
    if (engineApi !== undefined && l2 !== undefined) {
      const chain = l2;
      // The node's one L1 connection (a WebSocket for ws:// --l1) under its one limiter: every L1 reader
      // of the node (derivation, the sequencer, the p2p signer, protocol versions, a devnet's batcher
      // and proposer) goes through it, so --l1.max-concurrency and --l1.rpc-rate-limit are global as
      // in op-node. Its own reads are counted in op-node's op_node_default_rpc_client_* metrics.
      const l1Rpcs = l1Rpc(options, undefined, l1Limiter(options));
      stops.push(() => l1Rpcs.close());
      const l1Counted = new InstrumentedRpcClient(l1Rpcs, shared.metrics);
      // Derive from L1 into the engine.
      const l1 = new L1Client(l1Counted, {
        trustRpc: options.l1TrustRpc,
        rpcKind: options.l1RpcKind,
        maxBatchSize: options.l1RpcMaxBatchSize,
        // --l1.cache-size 0: 3/2 of the sequencing window (op-node).
        cacheSize: options.l1CacheSize > 0
          ? options.l1CacheSize
          : Number((rollupConfig.seqWindowSize * 3n) / 2n),
      });
      const blobs = options.l1Beacon === undefined ? undefined : new BeaconClient(options.l1Beacon, {
        fallbacks: options.l1BeaconFallbacks,
        header: options.l1BeaconHeader,
        fetchAllSidecars: options.l1BeaconFetchAllSidecars,
      });
      if (blobs !== undefined) await checkBeacon(blobs, options.l1BeaconIgnore, log);
      if (options.safedbPath !== undefined) {
        const db = safeDb = SafeDb.open(options.safedbPath);
        // Pushed before the driver's stop: closed after the driver stopped writing to it.
        stops.push(() => Promise.resolve(db.close()));
      }
      let snapshot: SnapshotLog | undefined;
      if (options.snapshotLogFile !== undefined) {
        const log = snapshot = SnapshotLog.open(options.snapshotLogFile);
        stops.push(() => Promise.resolve(log.close()));
      }
      driver = new Driver(rollupConfig, {
        l1,
        blobs,
        engine: engineApi,
        l2: chain,
        l1BlobFeeSchedule: l1BlobFees,
        altda: altDaManagerFor(options, rollupConfig, l1),
        safeDb,
        snapshot: (event, heads) => {
          // op-node's op_node_default_pipeline_resets_* (its snapshot log names the same moments).
          if (event === "Pipeline reset") shared.metrics.recordPipelineReset();
          snapshot?.write(event, heads);
        },
        // op-node's derivation_idle, derivation_errors_*, channel_input_bytes (and sequencer_resets_*).
        ...driverMetrics(shared.metrics, { sequencing: options.sequencerEnabled }),
        paused: elSyncing,
      }, {
        pollIntervalMs: options.l1HttpPollIntervalMs,
        l1Confs: Number(options.verifierL1Confs),
        epochPollIntervalMs: options.l1EpochPollIntervalMs,
        fetchWithdrawalRootFromState: options.fetchWithdrawalRootFromState,
      });
      driver.start();
      if (l1Rpcs instanceof WsJsonRpcClient) {
        // op-node follows a WebSocket L1 by its newHeads subscription; the poll stays as a fallback.
        const woken = driver;
        await l1Rpcs.subscribe("eth", ["newHeads"], () => woken.wake()).then(
          (sub) => stops.push(() => sub.unsubscribe()),
          (e) =>
            log.warn("Cannot subscribe to new L1 heads; polling every {interval} ms", {
              interval: options.l1HttpPollIntervalMs,
              error: (e as Error).message,
            }),
        );
      }
      if (options.metricsEnabled) {
        // op-node's refs metrics, from the sync status (a scrape every 15 s reads them fresh enough).
        const running = driver;
        const refs = setInterval(() => {
          running.syncStatus().then((st) => recordSyncStatus(shared.metrics, st), () => {});
          // op-node's p2p_peer_count and p2p_stream_count (it counts libp2p's notifications).
          if (p2p !== undefined) recordP2pCounts(shared.metrics, p2p);
        }, REFS_METRICS_MS);
        stops.push(() => Promise.resolve(clearInterval(refs)));
      }
      if (options.rollupLoadProtocolVersions || (options.rollupHalt ?? "none") !== "none") {
        const watch = new ProtocolVersionsWatch({
          address: rollupConfig.protocolVersionsAddress,
          halt: options.rollupHalt,
          reloadMs: options.l1RuntimeConfigReloadIntervalMs,
        }, { l1: l1Counted, engine: engineApi, metrics: shared.metrics, halt });
        watch.start();
        stops.push(() => Promise.resolve(watch.stop()));
      }
      const running = driver;
      stops.push(() => running.stop());
      const heads = () => ({ safe: running.safeHead, finalized: running.finalizedHead });
      const api = engineApi;
      // Blocks above the unsafe head's successor wait here for their parent (gossip, req-resp, admin).
      const metrics = shared.metrics;
      const refOf = (b: GossipBlock) => ({
        number: b.payload.blockNumber,
        hash: b.payload.blockHash,
        time: b.payload.timestamp,
      });
      const unsafe = unsafePayloadQueue(rollupConfig, api, chain, heads, {
        // op-node's op_node_default_unsafe_payloads_* and its buffer gauges.
        onPush: (b) => metrics.recordReceivedUnsafePayload(refOf(b)),
        onChange: (q) => {
          const next = q.peek();
          metrics.recordUnsafePayloadsBuffer(q.size, q.bytes, next === undefined ? ZERO_REF : refOf(next));
        },
      });
      // Derivation moves the unsafe head too: what waits may now extend it (op-node checks each step).
      const drainTimer = setInterval(() => {
        if (unsafe.size > 0) void unsafe.drain().catch(() => {});
      }, UNSAFE_QUEUE_DRAIN_MS);
      stops.push(() => Promise.resolve(clearInterval(drainTimer)));
      postUnsafePayload = unsafePayloadPoster(rollupConfig, chain, unsafe, () => elSync);
      // --syncmode=execution-layer (el_sync.ts): over p2p only, the unsafe blocks being what it follows.
      const driverNow = driver;
      const elSyncFor = options.syncMode !== "execution-layer" || options.p2pDisable
        ? undefined
        : (backfill: ElSyncDeps["backfill"]) =>
          new ElSync(rollupConfig, {
            engine: engineApi,
            l2: chain,
            finalizedNumber: () => chain.finalizedNumber?.() ?? Promise.resolve(undefined),
            safe: () => driverNow.safeHead,
            // keel's own engine does not sync itself: its blocks come from peers.
            backfill: embedded === undefined ? undefined : backfill,
            onFinished: (ref) => driverNow.elSynced(ref),
            postFinalization: options.l2EngineKind === "reth",
          });
      if (options.syncMode === "execution-layer" && options.p2pDisable) {
        log.warn("--syncmode=execution-layer needs p2p (it follows the gossiped blocks): deriving from L1");
      }
      if (!options.p2pDisable) {
        const service = await startP2p(
          rollupConfig,
          options,
          engineApi,
          chain,
          heads,
          unsafe,
          embedded === undefined ? undefined : embeddedPayloads(embedded),
          shared.metrics,
          l1Counted,
          elSyncFor,
        );
        p2p = service.host;
        elSync = service.elSync;
        // A restarted node whose engine has a finalized block goes straight to consensus-layer sync.
        await elSync?.init();
        stops.push(() => service.stop());
      }
      if (options.sequencerEnabled) {
        const host = p2p;
        sequencer = new Sequencer(rollupConfig, {
          l1,
          engine: engineApi,
          l2: chain,
          heads,
          onReset: () => driver?.requestReset(),
          // op-node builds nothing while the engine EL-syncs (StartPayload's temporary error).
          syncing: elSyncing,
          l1BlobFeeSchedule: l1BlobFees,
          conductor: options.conductorEnabled
            ? new ConductorClient(options.conductorRpc, options.conductorRpcTimeoutMs)
            : undefined,
          onBlock: host === undefined ? undefined : publishSequenced(
            shared.metrics,
            (payload, root) => host.publish(payload, root),
            // The block is the head already; peers get it over L1 (or a later block's gap fill).
            (payload, e) =>
              log.warn("Cannot publish block {number}: {error}", {
                number: Number(payload.blockNumber),
                error: (e as Error).message,
              }),
          ),
          // op-node's sequencer_sealing_*, sequencer_building_diff_*, transactions_sequenced_total,
          // sequencing_errors_*, sequencer_resets_*.
          ...sequencerMetrics(shared.metrics, rollupConfig.blockTime),
        }, {
          l1Confs: Number(options.sequencerL1Confs),
          maxSafeLag: Number(options.sequencerMaxSafeLag),
          // Under a conductor the sequencer starts stopped: the conductor starts it (op-node).
          stopped: options.sequencerStopped || options.conductorEnabled,
          adminStatePath: options.rpcAdminState,
          recover: options.sequencerRecover,
        });
        await sequencer.open();
        const seq = sequencer;
        stops.push(() => seq.close());
      }
      if (request.batcherKey !== undefined && embedded !== undefined) {
        // keel devnet: the batch submitter beside the sequencer, reading its engine.
        const batcher = new Batcher(rollupConfig, {
          // None before the driver's first reset found it (its placeholder has a zero hash).
          source: engineBatcherSource(embedded, () => {
            const safe = running.safeHead;
            return safe.hash.every((b) => b === 0) ? undefined : safe.number;
          }),
          l1: l1Rpcs,
          key: hexToBytes(request.batcherKey),
          da: rollupConfig.altDA === undefined ? undefined : daClientFor(options),
          kzg: request.batcherDa === "blobs" ? await loadKzg() : undefined,
        }, { pollIntervalMs: Number(rollupConfig.blockTime) * 1000, dataAvailability: request.batcherDa });
        batcher.start();
        stops.push(() => batcher.stop());
      }
      if (request.proposer !== undefined) {
        // keel devnet: output proposals to the L2OutputOracle, for withdrawals.
        const proposer = new Proposer({
          l1: l1Rpcs,
          l1ChainId: rollupConfig.l1ChainId,
          key: hexToBytes(request.proposer.key),
          oracle: hexToBytes(request.proposer.oracle),
          safeNumber: () => running.safeHead.number,
          outputRoot: async (n) => (await running.outputAtBlock(n))[1],
        }, { pollIntervalMs: Number(rollupConfig.blockTime) * 1000 });
        proposer.start();
        stops.push(() => proposer.stop());
      }
    }
    const host = p2p;
    const namespaces = [
      rollupnodeNamespace({ version, rollupConfig, driver }),
      // op-node's own names, for op-batcher, op-proposer and op-challenger pointed at this node.
      optimismNamespace({ version, rollupConfig, driver, safeDb }),
      nodep2pNamespace(() => host),
      // op-node's own name of the p2p namespace, for its tooling.
      aliasNamespace(nodep2pNamespace(() => host), "nodep2p", "opp2p"),
    ];
    if (options.rpcEnableAdmin) namespaces.push(adminNamespace({ sequencer, driver, postUnsafePayload }));
    const served = ["rollupnode", "optimism", "nodep2p", "opp2p"];
    if (options.rpcEnableAdmin) served.push("admin");
    if (options.experimentalSequencerApi && driver !== undefined && engineApi !== undefined) {
      // --experimental.sequencer-api: op-node's opstack namespace for an external test sequencer.
      const d = driver;
      namespaces.push(opstackNamespace({
        cfg: rollupConfig,
        engine: engineApi,
        heads: () => ({ safe: d.safeHead, finalized: d.finalizedHead }),
        publish: host === undefined
          ? undefined
          : (payload, root, sig) => host.publishSigned(payload, root, sig),
      }));
      served.push("opstack");
    }
    const registry = new MethodRegistry(namespaces);
    const rpc = new RpcServer({
      endpoints: [{
        name: "rpc",
        addr: options.rpcAddr,
        port: options.rpcPort,
        http: true,
        ws: true,
        namespaces: served,
        corsDomains: [],
        vhosts: ["*"],
      }],
      limits: DEFAULT_RPC_LIMITS,
      version,
    }, {
      registry,
      pool: listeners,
      // op-node's op_node_default_rpc_server_requests_total / _request_duration_seconds.
      onCall: (method, seconds) => shared.metrics.recordRpcServerRequest(method, seconds),
    });
    await rpc.start();
    stops.push(() => rpc.stop());
    endpoints.rpc = rpc.url("rpc");
    log.info("Rollup node RPC started", { url: endpoints.rpc, chainId: rollupConfig.l2ChainId });
  } catch (err) {
    for (const stop of stops.reverse()) await stop();
    throw err;
  }
  let stopped: Promise<void> | undefined;
  return {
    endpoints,
    halted,
    stop() {
      stopped ??= (async () => {
        for (const stop of stops.reverse()) await stop();
      })();
      return stopped;
    },
  };
}

/**
 * op-node's beacon health check at start: the beacon node must answer its version, unless
 * --l1.beacon.ignore (then a warning, and blob reads fail later if it stays down).
 */
async function checkBeacon(
  beacon: BeaconClient,
  ignore: boolean,
  log: {
    info(m: string, p?: Record<string, unknown>): void;
    warn(m: string, p?: Record<string, unknown>): void;
  },
): Promise<void> {
  try {
    log.info("Beacon node", { version: await beacon.version() });
  } catch (e) {
    if (!ignore) {
      throw new BaseError(
        "BEACON_UNAVAILABLE",
        `${(e as Error).message}; the node needs it for blobs (--l1.beacon.ignore starts anyway)`,
        { cause: e },
      );
    }
    log.warn("The beacon node does not answer; starting anyway (--l1.beacon.ignore)", {
      error: (e as Error).message,
    });
  }
}

/** How often the refs metrics are read from the sync status. */
const REFS_METRICS_MS = 2000;

/** The buffer metric's block when nothing waits. */
const ZERO_REF = { number: 0n, hash: new Uint8Array(32), time: 0n };

/** How often the unsafe payload queue is checked against a head derivation moved. */
const UNSAFE_QUEUE_DRAIN_MS = 1000;
