/**
 * The node's Prometheus metrics on prom-client: one `Registry` per `Metrics` instance.
 *
 * Where op-node measures the same thing, the name is op-node's (namespace `op_node`, process
 * name `default`: `op_node_default_up`, `op_node_default_refs_number{layer,type}`, ...), so
 * existing op-node dashboards keep working. Names end in a unit or `_total` (DESIGN.md rule 6).
 *
 * Process metrics come from `Deno.memoryUsage()` and a timer-drift probe, not from prom-client's
 * default collectors: those read /proc, which Deno allows only under -A, and report 0 otherwise
 * (PLATFORM.md, "metrics").
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** op-node's metric namespace with its default process name. */
export const OP_NODE_NAMESPACE = "op_node_default";

/** prom-client's text exposition content type (`text/plain; version=0.0.4; charset=utf-8`). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** The method label of a JSON-RPC batch (op-node metrics.BatchMethod). */
export const RPC_BATCH_METHOD = "<batch>";

/** op-node's RPC duration buckets, in seconds. */
const RPC_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** op-node's L1 reorg depth buckets, in blocks. */
const REORG_BUCKETS = [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 20.5, 50.5, 100.5];

/** op-node's sequencer building diff buckets: building time minus block time, in seconds. */
const BUILDING_DIFF_BUCKETS = [
  -10,
  -5,
  -2.5,
  -1,
  -0.5,
  -0.25,
  -0.1,
  -0.05,
  -0.025,
  -0.01,
  -0.005,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

/** A block reference as the metrics see it. `time` is the block timestamp in seconds (0: unknown). */
export interface MetricsBlockRef {
  number: bigint | number;
  hash: Uint8Array;
  time?: bigint | number;
}

/** An L2 block reference with its L1 origin and sequence number. */
export interface MetricsL2BlockRef extends MetricsBlockRef {
  l1Origin: { number: bigint | number; hash: Uint8Array };
  sequenceNumber: bigint | number;
}

export interface MetricsOptions {
  /** How often the event-loop lag probe fires, in milliseconds; 0 disables it. */
  lagProbeIntervalMs: number;
}

/** The lag probe fires every 500 ms: fine enough to see stalls, cheap enough to leave on. */
export const DEFAULT_METRICS_OPTIONS: MetricsOptions = { lagProbeIntervalMs: 500 };

export interface MetricsDeps {
  /** Wall clock in milliseconds since the epoch (for ref latency). Default `Date.now`. */
  now?: () => number;
  /** Memory reader. Default `Deno.memoryUsage`. */
  memoryUsage?: () => Deno.MemoryUsage;
}

/** An event counter and the time of its last occurrence, as op-node's EventMetrics. */
class EventMetric {
  readonly total: Counter;
  readonly last: Gauge;
  constructor(registry: Registry, name: string, what: string) {
    this.total = new Counter({
      name: `${OP_NODE_NAMESPACE}_${name}_total`,
      help: `Count of ${what}`,
      registers: [registry],
    });
    this.last = new Gauge({
      name: `${OP_NODE_NAMESPACE}_last_${name}_unix`,
      help: `Timestamp of last ${what}`,
      registers: [registry],
    });
  }
  record(nowMs: number): void {
    this.total.inc();
    this.last.set(nowMs / 1000);
  }
}

/** First 8 bytes of a hash as a little-endian uint64, as a float: op-node's `refs_hash` value. */
export function hashToMetricValue(hash: Uint8Array): number {
  let value = 0n;
  for (let i = Math.min(8, hash.length) - 1; i >= 0; i--) value = (value << 8n) | BigInt(hash[i]);
  return Number(value);
}

export class Metrics {
  readonly registry: Registry;
  readonly options: MetricsOptions;
  readonly #now: () => number;
  readonly #memoryUsage: () => Deno.MemoryUsage;
  readonly #latencySeen = new Map<string, string>();
  #lagTimer: ReturnType<typeof setInterval> | undefined;
  #lagExpectedAt = 0;
  readonly #lagMax = { value: 0, pending: 0 };

  readonly info: Gauge<"version">;
  readonly protocolVersions: Gauge<"local" | "engine" | "recommended" | "required">;
  readonly up: Gauge;
  readonly rpcServerRequestsTotal: Counter<"method">;
  readonly rpcServerRequestDurationSeconds: Histogram<"method">;
  readonly rpcClientRequestsTotal: Counter<"method">;
  readonly rpcClientRequestDurationSeconds: Histogram<"method">;
  readonly rpcClientResponsesTotal: Counter<"method" | "error">;
  readonly derivationIdle: Gauge;
  readonly pipelineResets: EventMetric;
  readonly unsafePayloads: EventMetric;
  readonly derivationErrors: EventMetric;
  readonly sequencingErrors: EventMetric;
  readonly publishingErrors: EventMetric;
  readonly sequencerResets: EventMetric;
  readonly unsafePayloadsBufferLen: Gauge;
  readonly unsafePayloadsBufferMemSize: Gauge;
  readonly refsNumber: Gauge<"layer" | "type">;
  readonly refsTime: Gauge<"layer" | "type">;
  readonly refsHash: Gauge<"layer" | "type">;
  readonly refsSeqNr: Gauge<"type">;
  readonly refsLatency: Gauge<"layer" | "type">;
  readonly l1ReorgDepth: Histogram;
  readonly transactionsSequencedTotal: Gauge;
  readonly peerCount: Gauge;
  readonly streamCount: Gauge;
  readonly gossipEventsTotal: Counter<"type">;
  readonly sequencerBuildingDiffSeconds: Histogram;
  readonly sequencerBuildingDiffTotal: Counter;
  readonly sequencerSealingSeconds: Histogram;
  readonly sequencerSealingTotal: Counter;
  readonly channelInputBytes: Counter;

  readonly processResidentMemoryBytes: Gauge;
  readonly heapUsedBytes: Gauge;
  readonly heapTotalBytes: Gauge;
  readonly externalMemoryBytes: Gauge;
  readonly processStartTimeSeconds: Gauge;
  readonly eventLoopLagSeconds: Gauge;
  readonly eventLoopLagMaxSeconds: Gauge;

  constructor(options: Partial<MetricsOptions> = {}, deps: MetricsDeps = {}) {
    this.options = { ...DEFAULT_METRICS_OPTIONS, ...options };
    this.#now = deps.now ?? Date.now;
    this.#memoryUsage = deps.memoryUsage ?? Deno.memoryUsage;
    const registry = new Registry();
    this.registry = registry;
    const ns = OP_NODE_NAMESPACE;
    const registers = [registry];

    this.info = new Gauge({
      name: `${ns}_info`,
      help: "Pseudo-metric tracking version and config info",
      labelNames: ["version"],
      registers,
    });
    this.protocolVersions = new Gauge({
      name: `${ns}_protocol_versions`,
      help: "Pseudo-metric tracking recommended and required protocol versions",
      labelNames: ["local", "engine", "recommended", "required"],
      registers,
    });
    this.up = new Gauge({ name: `${ns}_up`, help: "1 if the op node has finished starting up", registers });
    this.rpcServerRequestsTotal = new Counter({
      name: `${ns}_rpc_server_requests_total`,
      help: "Total requests to the RPC server",
      labelNames: ["method"],
      registers,
    });
    this.rpcServerRequestDurationSeconds = new Histogram({
      name: `${ns}_rpc_server_request_duration_seconds`,
      help: "Histogram of RPC server request durations",
      labelNames: ["method"],
      buckets: RPC_BUCKETS,
      registers,
    });
    this.rpcClientRequestsTotal = new Counter({
      name: `${ns}_rpc_client_requests_total`,
      help: "Total RPC requests initiated by the node's RPC client",
      labelNames: ["method"],
      registers,
    });
    this.rpcClientRequestDurationSeconds = new Histogram({
      name: `${ns}_rpc_client_request_duration_seconds`,
      help: "Histogram of RPC client request durations",
      labelNames: ["method"],
      buckets: RPC_BUCKETS,
      registers,
    });
    this.rpcClientResponsesTotal = new Counter({
      name: `${ns}_rpc_client_responses_total`,
      help: "Total RPC request responses received by the node's RPC client",
      labelNames: ["method", "error"],
      registers,
    });
    this.derivationIdle = new Gauge({
      name: `${ns}_derivation_idle`,
      help: "1 if the derivation pipeline is idle",
      registers,
    });
    this.pipelineResets = new EventMetric(registry, "pipeline_resets", "derivation pipeline resets");
    this.unsafePayloads = new EventMetric(registry, "unsafe_payloads", "unsafe payloads");
    this.derivationErrors = new EventMetric(registry, "derivation_errors", "derivation errors");
    this.sequencingErrors = new EventMetric(registry, "sequencing_errors", "sequencing errors");
    this.publishingErrors = new EventMetric(registry, "publishing_errors", "p2p publishing errors");
    this.sequencerResets = new EventMetric(registry, "sequencer_resets", "sequencer resets");
    this.unsafePayloadsBufferLen = new Gauge({
      name: `${ns}_unsafe_payloads_buffer_len`,
      help: "Number of buffered L2 unsafe payloads",
      registers,
    });
    this.unsafePayloadsBufferMemSize = new Gauge({
      name: `${ns}_unsafe_payloads_buffer_mem_size`,
      help: "Total estimated memory size of buffered L2 unsafe payloads",
      registers,
    });
    const layerType = ["layer", "type"] as const;
    this.refsNumber = new Gauge({
      name: `${ns}_refs_number`,
      help: "Gauge representing the different L1/L2 reference block numbers",
      labelNames: layerType,
      registers,
    });
    this.refsTime = new Gauge({
      name: `${ns}_refs_time`,
      help: "Gauge representing the different L1/L2 reference block timestamps",
      labelNames: layerType,
      registers,
    });
    this.refsHash = new Gauge({
      name: `${ns}_refs_hash`,
      help: "Gauge representing the different L1/L2 reference block hashes truncated to float values",
      labelNames: layerType,
      registers,
    });
    this.refsSeqNr = new Gauge({
      name: `${ns}_refs_seqnr`,
      help: "Gauge representing the different L2 reference sequence numbers",
      labelNames: ["type"],
      registers,
    });
    this.refsLatency = new Gauge({
      name: `${ns}_refs_latency`,
      help:
        "Gauge representing the different L1/L2 reference block timestamps minus current time, in seconds",
      labelNames: layerType,
      registers,
    });
    this.l1ReorgDepth = new Histogram({
      name: `${ns}_l1_reorg_depth`,
      help: "Histogram of L1 Reorg Depths",
      buckets: REORG_BUCKETS,
      registers,
    });
    this.transactionsSequencedTotal = new Gauge({
      name: `${ns}_transactions_sequenced_total`,
      help: "Count of total transactions sequenced",
      registers,
    });
    this.peerCount = new Gauge({
      name: `${ns}_p2p_peer_count`,
      help: "Count of currently connected p2p peers",
      registers,
    });
    this.streamCount = new Gauge({
      name: `${ns}_p2p_stream_count`,
      help: "Count of currently connected p2p streams",
      registers,
    });
    this.gossipEventsTotal = new Counter({
      name: `${ns}_p2p_gossip_events_total`,
      help: "Count of gossip events by type",
      labelNames: ["type"],
      registers,
    });
    this.sequencerBuildingDiffSeconds = new Histogram({
      name: `${ns}_sequencer_building_diff_seconds`,
      help: "Histogram of Sequencer building time, minus block time",
      buckets: BUILDING_DIFF_BUCKETS,
      registers,
    });
    this.sequencerBuildingDiffTotal = new Counter({
      name: `${ns}_sequencer_building_diff_total`,
      help: "Number of sequencer block building jobs",
      registers,
    });
    this.sequencerSealingSeconds = new Histogram({
      name: `${ns}_sequencer_sealing_seconds`,
      help: "Histogram of Sequencer block sealing time",
      buckets: RPC_BUCKETS,
      registers,
    });
    this.sequencerSealingTotal = new Counter({
      name: `${ns}_sequencer_sealing_total`,
      help: "Number of sequencer block sealing jobs",
      registers,
    });
    this.channelInputBytes = new Counter({
      name: `${ns}_channel_input_bytes`,
      help: "Number of compressed bytes added to the channel",
      registers,
    });

    // Process metrics under the names Prometheus' process collector and prom-client use.
    const memory = this.#memoryUsage;
    const lagMax = this.#lagMax;
    this.processResidentMemoryBytes = new Gauge({
      name: "process_resident_memory_bytes",
      help: "Resident memory size in bytes",
      registers,
      collect() {
        this.set(memory().rss);
      },
    });
    this.heapUsedBytes = new Gauge({
      name: "nodejs_heap_size_used_bytes",
      help: "V8 heap in use, in bytes",
      registers,
      collect() {
        this.set(memory().heapUsed);
      },
    });
    this.heapTotalBytes = new Gauge({
      name: "nodejs_heap_size_total_bytes",
      help: "V8 heap reserved, in bytes",
      registers,
      collect() {
        this.set(memory().heapTotal);
      },
    });
    this.externalMemoryBytes = new Gauge({
      name: "nodejs_external_memory_bytes",
      help: "Memory held by V8 outside the heap (buffers), in bytes",
      registers,
      collect() {
        this.set(memory().external);
      },
    });
    this.processStartTimeSeconds = new Gauge({
      name: "process_start_time_seconds",
      help: "Start time of the process since unix epoch in seconds",
      registers,
    });
    this.processStartTimeSeconds.set(Math.floor(performance.timeOrigin / 1000));
    this.eventLoopLagSeconds = new Gauge({
      name: "nodejs_eventloop_lag_seconds",
      help: "Lag of the event loop at the last probe (timer drift), in seconds",
      registers,
    });
    this.eventLoopLagMaxSeconds = new Gauge({
      name: "nodejs_eventloop_lag_max_seconds",
      help: "Largest event loop lag seen since the previous scrape, in seconds",
      registers,
      collect() {
        // Reported once per scrape, then the window starts again.
        lagMax.value = lagMax.pending;
        lagMax.pending = 0;
        this.set(lagMax.value);
      },
    });
  }

  /** Starts the event-loop lag probe (idempotent). */
  start(): void {
    if (this.#lagTimer !== undefined || this.options.lagProbeIntervalMs <= 0) return;
    const interval = this.options.lagProbeIntervalMs;
    this.#lagExpectedAt = performance.now() + interval;
    const timer = setInterval(() => {
      const now = performance.now();
      this.recordEventLoopLag(Math.max(0, now - this.#lagExpectedAt) / 1000);
      this.#lagExpectedAt = now + interval;
    }, interval);
    // The probe alone must not keep the process alive.
    Deno.unrefTimer(timer);
    this.#lagTimer = timer;
  }

  /** Stops the lag probe (idempotent). */
  stop(): void {
    if (this.#lagTimer === undefined) return;
    clearInterval(this.#lagTimer);
    this.#lagTimer = undefined;
  }

  /** Records one lag observation in seconds (the probe calls this; exposed for tests and custom probes). */
  recordEventLoopLag(seconds: number): void {
    this.eventLoopLagSeconds.set(seconds);
    if (seconds > this.#lagMax.pending) this.#lagMax.pending = seconds;
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  recordInfo(version: string): void {
    this.info.labels({ version }).set(1);
  }

  /** The protocol versions: keel's, the engine's, and those the L1 ProtocolVersions contract signals. */
  recordProtocolVersions(
    versions: { local: string; engine: string; recommended: string; required: string },
  ): void {
    this.protocolVersions.reset();
    this.protocolVersions.labels(versions).set(1);
  }

  recordUp(): void {
    this.up.set(1);
  }

  /** One served RPC request and its duration in seconds. */
  recordRpcServerRequest(method: string, seconds: number): void {
    this.rpcServerRequestsTotal.labels({ method }).inc();
    this.rpcServerRequestDurationSeconds.labels({ method }).observe(seconds);
  }

  /**
   * One RPC request made by the node and its outcome: `error` is op-node's label value
   * (`<nil>`, `rpc_<code>`, `http_<status>`, `<not found>`, `<unknown>`).
   */
  recordRpcClientRequest(method: string, seconds: number, error = "<nil>"): void {
    this.rpcClientRequestsTotal.labels({ method }).inc();
    this.rpcClientRequestDurationSeconds.labels({ method }).observe(seconds);
    this.rpcClientResponsesTotal.labels({ method, error }).inc();
  }

  /**
   * One JSON-RPC batch made by the node, as op-node's instrumented client counts it: a request under
   * `<batch>` and one per call, the duration under `<batch>`, and the outcome per call, or under `<batch>`
   * with the error when the batch failed (`error` as in recordRpcClientRequest).
   */
  recordRpcClientBatch(methods: string[], seconds: number, error = "<nil>"): void {
    this.rpcClientRequestsTotal.labels({ method: RPC_BATCH_METHOD }).inc();
    for (const method of methods) this.rpcClientRequestsTotal.labels({ method }).inc();
    this.rpcClientRequestDurationSeconds.labels({ method: RPC_BATCH_METHOD }).observe(seconds);
    if (error !== "<nil>") {
      this.rpcClientResponsesTotal.labels({ method: RPC_BATCH_METHOD, error }).inc();
      return;
    }
    for (const method of methods) this.rpcClientResponsesTotal.labels({ method, error }).inc();
  }

  setDerivationIdle(idle: boolean): void {
    this.derivationIdle.set(idle ? 1 : 0);
  }

  recordPipelineReset(): void {
    this.pipelineResets.record(this.#now());
  }

  recordDerivationError(): void {
    this.derivationErrors.record(this.#now());
  }

  recordSequencingError(): void {
    this.sequencingErrors.record(this.#now());
  }

  recordPublishingError(): void {
    this.publishingErrors.record(this.#now());
  }

  recordSequencerReset(): void {
    this.sequencerResets.record(this.#now());
  }

  /**
   * A block reference under `refs_*{layer,type}` (layer: l1, l2, l1_origin; type: e.g.
   * l1_head, l2_unsafe, l2_safe, l2_finalized). The latency is measured once per new hash.
   */
  recordRef(layer: string, type: string, ref: MetricsBlockRef): void {
    const labels = { layer, type };
    this.refsNumber.labels(labels).set(Number(ref.number));
    const time = Number(ref.time ?? 0);
    if (time !== 0) {
      this.refsTime.labels(labels).set(time);
      const hashKey = Array.from(ref.hash, (b) => b.toString(16).padStart(2, "0")).join("");
      if (this.#latencySeen.get(type) !== hashKey) {
        this.#latencySeen.set(type, hashKey);
        this.refsLatency.labels(labels).set(time - this.#now() / 1000);
      }
    }
    this.refsHash.labels(labels).set(hashToMetricValue(ref.hash));
  }

  recordL1Ref(type: string, ref: MetricsBlockRef): void {
    this.recordRef("l1", type, ref);
  }

  recordL2Ref(type: string, ref: MetricsL2BlockRef): void {
    this.recordRef("l2", type, ref);
    this.recordRef("l1_origin", type, { number: ref.l1Origin.number, hash: ref.l1Origin.hash, time: 0 });
    this.refsSeqNr.labels({ type }).set(Number(ref.sequenceNumber));
  }

  /** An unsafe payload received from gossip. */
  recordReceivedUnsafePayload(ref: MetricsBlockRef): void {
    this.unsafePayloads.record(this.#now());
    this.recordRef("l2", "received_payload", ref);
  }

  recordUnsafePayloadsBuffer(length: number, memSizeBytes: number, next: MetricsBlockRef): void {
    this.recordRef("l2", "l2_buffer_unsafe", { number: next.number, hash: next.hash, time: 0 });
    this.unsafePayloadsBufferLen.set(length);
    this.unsafePayloadsBufferMemSize.set(memSizeBytes);
  }

  recordL1ReorgDepth(depth: bigint | number): void {
    this.l1ReorgDepth.observe(Number(depth));
  }

  countSequencedTxs(count: number): void {
    this.transactionsSequencedTotal.inc(count);
  }

  setPeerCount(count: number): void {
    this.peerCount.set(count);
  }

  setStreamCount(count: number): void {
    this.streamCount.set(count);
  }

  recordGossipEvent(type: string): void {
    this.gossipEventsTotal.labels({ type }).inc();
  }

  /** Building time minus the block time, in seconds (negative when early). */
  recordSequencerBuildingDiff(seconds: number): void {
    this.sequencerBuildingDiffTotal.inc();
    this.sequencerBuildingDiffSeconds.observe(seconds);
  }

  recordSequencerSealing(seconds: number): void {
    this.sequencerSealingTotal.inc();
    this.sequencerSealingSeconds.observe(seconds);
  }

  recordChannelInputBytes(bytes: number): void {
    this.channelInputBytes.inc(bytes);
  }
}
