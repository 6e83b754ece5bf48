/**
 * op-node's metrics fed from the rollup node's parts (lib/node/node_metrics.ts, l1_rpc.ts): a driver
 * deriving from a fake L1 (derivation_idle, derivation_errors, channel_input_bytes, sequencer_resets),
 * a sequencer building on a fake engine (sealing, building diff, transactions sequenced, sequencing
 * errors and resets), a failed publish, two p2p hosts gossiping (gossip events, peer and stream
 * counts), and the RPC client against a fake JSON-RPC server (rpc_client_*).
 */
import { BaseError } from "../../../lib/common/errors.ts";
import { JsonRpcClient } from "../../../lib/common/json_rpc_client.ts";
import { Metrics } from "../../../lib/common/metrics.ts";
import { InstrumentedRpcClient, rpcErrorLabel } from "../../../lib/node/l1_rpc.ts";
import {
  driverMetrics,
  publishSequenced,
  recordP2pCounts,
  sequencerMetrics,
} from "../../../lib/node/node_metrics.ts";
import { compressChannel } from "../../../lib/protocol/channel.ts";
import type { ExecutionPayload } from "../../../lib/protocol/engine.ts";
import { encodeBatcherTxData } from "../../../lib/protocol/frame.ts";
import type { RollupConfig } from "../../../lib/protocol/rollup_config.ts";
import { Driver, type DriverDeps } from "../../../lib/rollup/driver/mod.ts";
import { LocalBlockSigner } from "../../../lib/rollup/p2p/block_signer.ts";
import { P2pHost } from "../../../lib/rollup/p2p/mod.ts";
import { Sequencer, type SequencerDeps } from "../../../lib/rollup/sequencer/mod.ts";
import { assert, assertEquals, assertRejects } from "../../assert.ts";
import {
  BATCHER,
  config,
  genesisPayload,
  genesisRef,
  l1Header,
  l1Ref,
  notFound,
  sequencerFakes,
  Z32,
} from "../rollup/fake_chain.ts";
import { ADDRESS, KEY } from "../rollup/fake_signer.ts";
import { testPayload, until } from "../rollup/p2p_helpers.ts";

/** The value of one sample line `name{labels} value` in the exposition text. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith(series + " ")) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

Deno.test("driver: derivation_idle, derivation_errors, channel_input_bytes; with a sequencer, sequencer_resets", async () => {
  const cfg = config();
  const channel = compressChannel([Uint8Array.of(0xc3, 1, 2, 3)], "zlib");
  const input = encodeBatcherTxData([{
    channelId: new Uint8Array(16).fill(7),
    number: 0,
    data: channel,
    isLast: true,
  }]);
  let reads = 0;
  const l1 = {
    blockRef: (x: unknown) => Promise.resolve(typeof x === "string" || x === 0n ? l1Ref(0n) : notFound(x)),
    blockWithTxs: () => {
      // The first read fails as an L1 reorg would: a derivation error of severity reset.
      if (reads++ === 0) {
        return Promise.reject(new BaseError("L1_REORG", "Cannot read L1 block 0", { severity: "reset" }));
      }
      return Promise.resolve({
        header: l1Header(0n),
        txs: [{
          hash: Z32,
          type: 2,
          from: BATCHER,
          to: cfg.batchInboxAddress,
          input,
          blobVersionedHashes: [],
        }],
      });
    },
    receipts: () => Promise.resolve([]),
  };
  const l2 = {
    payloadByNumber: (n: bigint) => Promise.resolve(n === 0n ? genesisPayload() : undefined),
    safeNumber: () => Promise.resolve(undefined),
    headNumber: () => Promise.resolve(0n),
  };
  const m = new Metrics({ lagProbeIntervalMs: 0 });
  const driver = new Driver(
    cfg,
    { l1, l2, engine: {}, ...driverMetrics(m, { sequencing: true }) } as unknown as DriverDeps,
    { pollIntervalMs: 10, epochPollIntervalMs: 0 },
  );
  driver.start();
  try {
    await until(
      "derivation idle",
      async () => sample(await m.render(), "op_node_default_derivation_idle") === 1,
    );
  } finally {
    await driver.stop();
  }
  const text = await m.render();
  assertEquals(sample(text, "op_node_default_derivation_errors_total"), 1);
  assertEquals(sample(text, "op_node_default_sequencer_resets_total"), 1);
  assertEquals(sample(text, "op_node_default_channel_input_bytes"), channel.length);
  assert(driver.error === undefined, String(driver.error));
  // Without a sequencer in the node, a reset is the pipeline's only.
  const verifier = new Metrics({ lagProbeIntervalMs: 0 });
  driverMetrics(verifier, { sequencing: false }).onDerivationError!(
    new BaseError("L1_REORG", "reorg", { severity: "reset" }),
  );
  assertEquals(sample(await verifier.render(), "op_node_default_sequencer_resets_total"), 0);
  assertEquals(sample(await verifier.render(), "op_node_default_derivation_errors_total"), 1);
});

Deno.test("sequencer: sealing and building times, transactions sequenced, sequencing errors and resets", async () => {
  const cfg = config();
  const built: ExecutionPayload = {
    ...testPayload(1n, 2n),
    parentHash: genesisRef().hash,
    transactions: [Uint8Array.of(0x7e, 1), Uint8Array.of(2, 1), Uint8Array.of(2, 2)],
  };
  let builds = 0;
  const fakes = sequencerFakes(built, () => {
    builds++;
    // The second build fails (a sequencing error), the third with severity reset (a sequencer reset).
    if (builds === 2) return Promise.reject(new BaseError("ENGINE_DOWN", "engine down"));
    if (builds === 3) return Promise.reject(new BaseError("L1_REORG", "origin gone", { severity: "reset" }));
    return Promise.resolve();
  });
  const m = new Metrics({ lagProbeIntervalMs: 0 });
  let resets = 0;
  let blocks = 0;
  const seq = new Sequencer(cfg, {
    ...fakes,
    now: () => 1_000_000,
    onReset: () => resets++,
    onBlock: () => blocks++,
    ...sequencerMetrics(m, cfg.blockTime),
  } as unknown as SequencerDeps, { l1Confs: 0 });
  await seq.open();
  try {
    await until("a sequencer reset", async () => {
      return (sample(await m.render(), "op_node_default_sequencer_resets_total") ?? 0) >= 1;
    });
  } finally {
    await seq.close();
  }
  const text = await m.render();
  assertEquals(blocks, 1);
  assertEquals(resets, 1);
  assertEquals(sample(text, "op_node_default_sequencer_sealing_total"), 1);
  assertEquals(sample(text, "op_node_default_sequencer_sealing_seconds_count"), 1);
  assertEquals(sample(text, "op_node_default_sequencer_building_diff_total"), 1);
  // Built at once (keel seals as soon as the build starts): well under the 2-second block time.
  assertEquals(sample(text, 'op_node_default_sequencer_building_diff_seconds_bucket{le="-1"}'), 1);
  assertEquals(sample(text, "op_node_default_transactions_sequenced_total"), 3);
  assertEquals(sample(text, "op_node_default_sequencing_errors_total"), 1);
  assertEquals(sample(text, "op_node_default_sequencer_resets_total"), 1);
  assert((sample(text, "op_node_default_last_sequencing_errors_unix") ?? 0) > 0);
});

Deno.test("publishSequenced: a block that cannot be published is a publishing error", async () => {
  const m = new Metrics({ lagProbeIntervalMs: 0 });
  const failed: bigint[] = [];
  const publish = publishSequenced(
    m,
    (p) => p.blockNumber === 2n ? Promise.reject(new Error("no peers")) : Promise.resolve(),
    (p) => failed.push(p.blockNumber),
  );
  publish(testPayload(1n, 2n), undefined);
  publish(testPayload(2n, 4n), undefined);
  await until("the failure", () => failed.length === 1);
  assertEquals(failed, [2n]);
  assertEquals(sample(await m.render(), "op_node_default_publishing_errors_total"), 1);
});

Deno.test("p2p: gossip events by type, peer and stream counts", async () => {
  const cfg = { l2ChainId: 901n, blockTime: 2n, forks: {} } as unknown as RollupConfig;
  const ma = new Metrics({ lagProbeIntervalMs: 0 });
  const mb = new Metrics({ lagProbeIntervalMs: 0 });
  let received = 0;
  const a = new P2pHost({ listenIp: "127.0.0.1", listenTcp: 0, staticPeers: [], redialMs: 60_000 }, {
    cfg,
    now: () => 1000,
    unsafeBlockSigner: () => ADDRESS,
    onBlock: () => received++,
    onGossipEvent: (t) => ma.recordGossipEvent(t),
  });
  await a.start();
  const b = new P2pHost({
    listenIp: "127.0.0.1",
    listenTcp: 0,
    staticPeers: [a.selfInfo().addresses[0]],
    redialMs: 500,
    signer: new LocalBlockSigner(KEY),
  }, {
    cfg,
    now: () => 1000,
    unsafeBlockSigner: () => ADDRESS,
    onBlock: () => {},
    onGossipEvent: (t) => mb.recordGossipEvent(t),
  });
  const events = async (m: Metrics, type: string) =>
    sample(await m.render(), `op_node_default_p2p_gossip_events_total{type="${type}"}`) ?? 0;
  try {
    await b.start();
    await until("a grafting b into its mesh", async () => (await events(ma, "GRAFT")) >= 1);
    await b.publish(testPayload(5n, 1000n));
    await until("a accepting the block", () => received === 1);
    // Signed by another key: a rejects it.
    const other = await new LocalBlockSigner(new Uint8Array(32).fill(9)).sign(901n, Z32);
    await b.publishSigned(testPayload(6n, 1000n), undefined, other);
    await until("a rejecting the block", async () => (await events(ma, "REJECT_MESSAGE")) === 1);
    assertEquals(await events(ma, "DELIVER_MESSAGE"), 1);
    assertEquals(await events(ma, "JOIN"), 4, "the blocks topics v0..v3");
    assertEquals(await events(mb, "PUBLISH_MESSAGE"), 2);
    assertEquals(await events(mb, "DELIVER_MESSAGE"), 0);
    recordP2pCounts(ma, a);
    const text = await ma.render();
    assertEquals(sample(text, "op_node_default_p2p_peer_count"), 1);
    assert((sample(text, "op_node_default_p2p_stream_count") ?? 0) >= 1, "gossipsub's streams at least");
  } finally {
    await b.stop();
    await a.stop();
  }
  recordP2pCounts(ma, a);
  assertEquals(sample(await ma.render(), "op_node_default_p2p_peer_count"), 0);
});

Deno.test("RPC client: calls and batches counted under op-node's names and error labels", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json();
    if (Array.isArray(body)) {
      return Response.json(body.map((c: { id: number }) => ({ jsonrpc: "2.0", id: c.id, result: "0x1" })));
    }
    if (body.method === "http_fails") return new Response("down", { status: 503 });
    if (body.method === "eth_fails") {
      return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32000, message: "no" } });
    }
    return Response.json({ jsonrpc: "2.0", id: body.id, result: "0x1" });
  });
  const m = new Metrics({ lagProbeIntervalMs: 0 });
  try {
    const rpc = new InstrumentedRpcClient(new JsonRpcClient(`http://127.0.0.1:${server.addr.port}`), m);
    assertEquals(await rpc.call("eth_chainId"), "0x1");
    await assertRejects(() => rpc.call("eth_fails"));
    await assertRejects(() => rpc.call("http_fails"));
    assertEquals(await rpc.batch([{ method: "eth_getBlockByNumber" }, { method: "eth_getBlockByNumber" }]), [
      "0x1",
      "0x1",
    ]);
    const text = await m.render();
    const requests = (method: string) =>
      sample(text, `op_node_default_rpc_client_requests_total{method="${method}"}`);
    const responses = (method: string, error: string) =>
      sample(text, `op_node_default_rpc_client_responses_total{method="${method}",error="${error}"}`);
    assertEquals(requests("eth_chainId"), 1);
    assertEquals(responses("eth_chainId", "<nil>"), 1);
    assertEquals(responses("eth_fails", "rpc_-32000"), 1);
    assertEquals(responses("http_fails", "http_503"), 1);
    assertEquals(requests("<batch>"), 1);
    assertEquals(requests("eth_getBlockByNumber"), 2);
    assertEquals(responses("eth_getBlockByNumber", "<nil>"), 2);
    assertEquals(
      sample(text, 'op_node_default_rpc_client_request_duration_seconds_count{method="<batch>"}'),
      1,
    );
    assertEquals(
      sample(text, 'op_node_default_rpc_client_request_duration_seconds_count{method="eth_chainId"}'),
      1,
    );
    assertEquals(rpcErrorLabel(new Error("timeout")), "<unknown>");
  } finally {
    await server.shutdown();
  }
});
