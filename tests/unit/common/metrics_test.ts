import { hashToMetricValue, Metrics, METRICS_CONTENT_TYPE } from "../../../lib/common/metrics.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../assert.ts";
import { recordSyncStatus } from "../../../lib/node/node_metrics.ts";

const HASH = new Uint8Array(32).fill(0);
HASH.set([0x01, 0x02, 0x03, 0, 0, 0, 0, 0x00]);

function fixedMemory(): Deno.MemoryUsage {
  return { rss: 123_456_789, heapTotal: 40_000_000, heapUsed: 30_000_000, external: 1_000_000 };
}

/** The value of one sample line `name{labels} value` in the exposition text. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith(series + " ")) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

Deno.test("op-node names: up, info, refs with layer and type, latency measured once per hash", async () => {
  let now = 1_700_000_010_000;
  const m = new Metrics({}, { now: () => now, memoryUsage: fixedMemory });
  m.recordUp();
  m.recordInfo("v0.1.0-abc");
  m.recordL1Ref("l1_head", { number: 100n, hash: HASH, time: 1_700_000_000n });
  now += 5_000;
  m.recordL1Ref("l1_head", { number: 100n, hash: HASH, time: 1_700_000_000n }); // same hash: latency kept
  m.recordL2Ref("l2_unsafe", {
    number: 7n,
    hash: HASH,
    time: 1_700_000_014n,
    l1Origin: { number: 99n, hash: HASH },
    sequenceNumber: 3n,
  });
  const text = await m.render();
  assertEquals(sample(text, "op_node_default_up"), 1);
  assertEquals(sample(text, 'op_node_default_info{version="v0.1.0-abc"}'), 1);
  assertEquals(sample(text, 'op_node_default_refs_number{layer="l1",type="l1_head"}'), 100);
  assertEquals(sample(text, 'op_node_default_refs_time{layer="l1",type="l1_head"}'), 1_700_000_000);
  assertEquals(sample(text, 'op_node_default_refs_latency{layer="l1",type="l1_head"}'), -10);
  assertEquals(sample(text, 'op_node_default_refs_hash{layer="l1",type="l1_head"}'), 0x030201);
  assertEquals(sample(text, 'op_node_default_refs_number{layer="l2",type="l2_unsafe"}'), 7);
  assertEquals(sample(text, 'op_node_default_refs_latency{layer="l2",type="l2_unsafe"}'), -1);
  assertEquals(sample(text, 'op_node_default_refs_number{layer="l1_origin",type="l2_unsafe"}'), 99);
  assertEquals(sample(text, 'op_node_default_refs_time{layer="l1_origin",type="l2_unsafe"}'), undefined);
  assertEquals(sample(text, 'op_node_default_refs_seqnr{type="l2_unsafe"}'), 3);
  assertStringIncludes(text, "# TYPE op_node_default_refs_number gauge");
});

Deno.test("RPC, derivation, sequencer and p2p measures under op-node's names", async () => {
  const m = new Metrics({}, { now: () => 2_000_000, memoryUsage: fixedMemory });
  m.recordRpcServerRequest("eth_chainId", 0.003);
  m.recordRpcServerRequest("eth_chainId", 0.2);
  m.recordRpcClientRequest("eth_getBlockByNumber", 0.02, "rpc_-32000");
  m.recordDerivationError();
  m.recordPipelineReset();
  m.recordL1ReorgDepth(2n);
  m.recordSequencerBuildingDiff(-0.2);
  m.recordSequencerSealing(0.04);
  m.setPeerCount(4);
  m.recordGossipEvent("DELIVER_MESSAGE");
  m.countSequencedTxs(5);
  m.setDerivationIdle(true);
  const text = await m.render();
  assertEquals(sample(text, 'op_node_default_rpc_server_requests_total{method="eth_chainId"}'), 2);
  assertEquals(
    sample(
      text,
      'op_node_default_rpc_server_request_duration_seconds_bucket{le="0.005",method="eth_chainId"}',
    ),
    1,
  );
  assertEquals(
    sample(
      text,
      'op_node_default_rpc_server_request_duration_seconds_bucket{le="0.25",method="eth_chainId"}',
    ),
    2,
  );
  assertEquals(
    sample(
      text,
      'op_node_default_rpc_client_responses_total{method="eth_getBlockByNumber",error="rpc_-32000"}',
    ),
    1,
  );
  assertEquals(sample(text, "op_node_default_derivation_errors_total"), 1);
  assertEquals(sample(text, "op_node_default_last_derivation_errors_unix"), 2000);
  assertEquals(sample(text, "op_node_default_pipeline_resets_total"), 1);
  assertEquals(sample(text, 'op_node_default_l1_reorg_depth_bucket{le="1.5"}'), 0);
  assertEquals(sample(text, 'op_node_default_l1_reorg_depth_bucket{le="2.5"}'), 1);
  assertEquals(sample(text, 'op_node_default_sequencer_building_diff_seconds_bucket{le="-0.25"}'), 0);
  assertEquals(sample(text, 'op_node_default_sequencer_building_diff_seconds_bucket{le="-0.1"}'), 1);
  assertEquals(sample(text, "op_node_default_sequencer_building_diff_total"), 1);
  assertEquals(sample(text, "op_node_default_sequencer_sealing_seconds_count"), 1);
  assertEquals(sample(text, "op_node_default_p2p_peer_count"), 4);
  assertEquals(sample(text, 'op_node_default_p2p_gossip_events_total{type="DELIVER_MESSAGE"}'), 1);
  assertEquals(sample(text, "op_node_default_transactions_sequenced_total"), 5);
  assertEquals(sample(text, "op_node_default_derivation_idle"), 1);
});

Deno.test("process metrics come from Deno.memoryUsage and the lag probe, not /proc", async () => {
  const m = new Metrics({}, { memoryUsage: fixedMemory });
  m.recordEventLoopLag(0.25);
  m.recordEventLoopLag(0.05);
  const text = await m.render();
  assertEquals(sample(text, "process_resident_memory_bytes"), 123_456_789);
  assertEquals(sample(text, "nodejs_heap_size_used_bytes"), 30_000_000);
  assertEquals(sample(text, "nodejs_heap_size_total_bytes"), 40_000_000);
  assertEquals(sample(text, "nodejs_external_memory_bytes"), 1_000_000);
  assertEquals(sample(text, "nodejs_eventloop_lag_seconds"), 0.05);
  assertEquals(sample(text, "nodejs_eventloop_lag_max_seconds"), 0.25);
  const start = sample(text, "process_start_time_seconds")!;
  assert(Math.abs(start - Date.now() / 1000) < 3600, `start time ${start}`);
  // The max resets after each scrape.
  assertEquals(sample(await m.render(), "nodejs_eventloop_lag_max_seconds"), 0);
  // Every keel metric name ends in a unit or a count suffix (DESIGN.md rule 6), except op-node's own names.
  const opNodeUnitless = new Set([
    "op_node_default_up",
    "op_node_default_info",
    "op_node_default_protocol_versions",
    "op_node_default_derivation_idle",
    "op_node_default_unsafe_payloads_buffer_len",
    "op_node_default_unsafe_payloads_buffer_mem_size",
    "op_node_default_refs_number",
    "op_node_default_refs_time",
    "op_node_default_refs_hash",
    "op_node_default_refs_seqnr",
    "op_node_default_refs_latency",
    "op_node_default_l1_reorg_depth",
    "op_node_default_p2p_peer_count",
    "op_node_default_p2p_stream_count",
    "op_node_default_channel_input_bytes",
  ]);
  for (const line of text.split("\n").filter((l) => l.startsWith("# TYPE "))) {
    const name = line.split(" ")[2];
    if (opNodeUnitless.has(name)) continue;
    assertMatch(name, /_(bytes|seconds|total|unix)$/, `metric ${name} has no unit`);
  }
});

Deno.test("the real lag probe starts, records and stops (idempotent)", async () => {
  const m = new Metrics({ lagProbeIntervalMs: 10 });
  m.start();
  m.start();
  // Block the loop for 60 ms so the probe sees drift.
  const until = performance.now() + 60;
  while (performance.now() < until) { /* busy */ }
  await new Promise((r) => setTimeout(r, 30));
  m.stop();
  m.stop();
  const lag = sample(await m.render(), "nodejs_eventloop_lag_max_seconds")!;
  assert(lag >= 0.03, `lag ${lag}`);
  assert(sample(await m.render(), "process_resident_memory_bytes")! > 0);
});

Deno.test("content type and hash folding match Prometheus and op-node", () => {
  assertStringIncludes(METRICS_CONTENT_TYPE, "text/plain; version=0.0.4");
  assertEquals(hashToMetricValue(new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0, 9])), 1);
  assertEquals(hashToMetricValue(new Uint8Array([0, 0, 0, 0, 0, 0, 0, 1])), 2 ** 56);
});

Deno.test("recordSyncStatus: op-node's refs from the driver's sync status", async () => {
  const m = new Metrics({ lagProbeIntervalMs: 0 }, { now: () => 1_700_000_010_000 });
  const l1 = (n: bigint) => ({
    hash: new Uint8Array(32).fill(Number(n)),
    number: n,
    parentHash: new Uint8Array(32),
    timestamp: 1_700_000_000n + n,
  });
  const l2 = (n: bigint) => ({
    ...l1(n),
    l1Origin: { hash: new Uint8Array(32).fill(1), number: 1n },
    sequenceNumber: n,
  });
  recordSyncStatus(m, {
    currentL1: l1(7n),
    currentL1Finalized: l1(5n),
    headL1: l1(9n),
    safeL1: l1(8n),
    finalizedL1: l1(6n),
    unsafeL2: l2(40n),
    safeL2: l2(30n),
    finalizedL2: l2(20n),
    pendingSafeL2: l2(31n),
    queuedUnsafeL2: l2(0n),
    engineSyncTarget: l2(0n),
  });
  const text = await m.render();
  for (
    const [labels, n] of [
      ['layer="l1",type="l1_head"', 9],
      ['layer="l1",type="l1_safe"', 8],
      ['layer="l1",type="l1_finalized"', 6],
      ['layer="l1",type="l1_derived"', 7],
      ['layer="l2",type="l2_unsafe"', 40],
      ['layer="l2",type="l2_safe"', 30],
      ['layer="l2",type="l2_finalized"', 20],
      ['layer="l2",type="l2_pending_safe"', 31],
      ['layer="l1_origin",type="l2_unsafe"', 1],
    ] as const
  ) assertEquals(sample(text, `op_node_default_refs_number{${labels}}`), n, labels);
});
