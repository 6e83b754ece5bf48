/**
 * Peer scoring and banning (--p2p.scoring light, --p2p.ban.*; interfaces.md 3.2 "Automatic banning"):
 * the light parameters are valid GossipSub parameters, the req-resp score counts and decays, and a peer
 * that gossips an invalid block falls below the ban threshold and is dropped and kept out.
 */
import { validatePeerScoreParams, validatePeerScoreThresholds } from "@libp2p/gossipsub/score";
import { assert, assertEquals } from "../../assert.ts";
import { blocksTopic, encodeGossipBlock } from "../../../lib/protocol/gossip_block.ts";
import {
  LIGHT_THRESHOLDS,
  lightScoreParams,
  type P2pHost,
  ReqRespScores,
  scoreDecay,
} from "../../../lib/rollup/p2p/mod.ts";
import { testHost, testPayload, until } from "./p2p_helpers.ts";

Deno.test("light scoring: decay factors, valid GossipSub parameters, one invalid block below the ban line", () => {
  // Over a span of 10 slots a counter decays to 1% of its value.
  assert(Math.abs(Math.pow(scoreDecay(20_000, 2_000), 10) - 0.01) < 1e-12);
  const topics = [0, 1, 2, 3].map((v) => blocksTopic(901n, v as 0 | 1 | 2 | 3));
  const params = lightScoreParams(2_000, topics, () => 0);
  validatePeerScoreParams(params);
  validatePeerScoreThresholds(LIGHT_THRESHOLDS);
  const t = params.topics[topics[0]];
  // P4: one invalid message, squared, weighted by the topic.
  assert(t.topicWeight * t.invalidMessageDeliveriesWeight < -100);
  assertEquals(params.decayInterval, 2_000);
});

Deno.test("req-resp score: valid answers count for a peer, errors and rejected payloads against it, all decay", () => {
  const s = new ReqRespScores(2_000);
  for (let i = 0; i < 15; i++) s.record("a", "validResponses");
  assertEquals(s.counters("a").validResponses, 10); // capped
  assertEquals(s.score("a"), 5);
  s.record("b", "errorResponses");
  s.record("b", "rejectedPayloads");
  assertEquals(s.score("b"), -60);
  for (let i = 0; i < 60; i++) s.decay(); // ten epochs of 6 slots
  assertEquals(s.score("b"), 0);
  assertEquals(s.counters("b"), { validResponses: 0, errorResponses: 0, rejectedPayloads: 0 });
  assertEquals(s.score("nobody"), 0);
});

function host(scoring: "none" | "light", staticPeers: string[] = []) {
  // b redials a every 500 ms
  return testHost(901n, {
    staticPeers,
    redialMs: 500,
    scoring,
    ban: { threshold: -100, durationMs: 60_000 },
  });
}

/** Waits until `b` sees `a` subscribed to `topic`; returns b's pubsub. */
async function subscribed(a: P2pHost, b: P2pHost, topic: string) {
  // deno-lint-ignore no-explicit-any
  const pubsub = b.node.services.pubsub as any;
  const id = a.selfInfo().peerID;
  await until(
    "b seeing a's subscription",
    () => pubsub.getSubscribers(topic).some((p: unknown) => String(p) === id),
  );
  return pubsub;
}

for (const scoring of ["light", "none"] as const) {
  Deno.test(`banning (${scoring} scoring): a peer gossiping an invalid block ${scoring === "light" ? "is banned" : "stays"}`, async () => {
    const a = host(scoring);
    await a.start();
    const addr = a.selfInfo().addresses[0];
    const b = host("none", [addr]); // b redials a every 500 ms
    try {
      await b.start();
      const idB = b.selfInfo().peerID;
      const topic = blocksTopic(901n, 0);
      const pubsubB = await subscribed(a, b, topic);
      await pubsubB.publish(topic, new Uint8Array([1, 2, 3]));
      if (scoring === "light") {
        await until("a banning b", () => a.bannedPeers().includes(idB));
        await until("b dropped", async () => (await a.peersInfo())[idB] === undefined);
        // b keeps redialling; the ban keeps it out.
        await new Promise((r) => setTimeout(r, 1_500));
        assertEquals((await a.peersInfo())[idB], undefined);
        assertEquals((await a.peerStats()).banned, 1);
      } else {
        await new Promise((r) => setTimeout(r, 2_500));
        assertEquals(a.bannedPeers(), []);
        assert((await a.peersInfo())[idB] !== undefined);
      }
    } finally {
      await b.stop();
      await a.stop();
    }
  });
}

Deno.test("banning: a well-formed block arriving before the unsafe block signer is known is ignored, not held against the peer", async () => {
  const a = host("light");
  await a.start();
  const b = host("none", [a.selfInfo().addresses[0]]);
  try {
    await b.start();
    const topic = blocksTopic(901n, 0);
    const pubsubB = await subscribed(a, b, topic);
    // A pre-Canyon block (version 0 topic) stamped now, inside the time window.
    const payload = { ...testPayload(5n, 1000n), timestamp: BigInt(Math.floor(Date.now() / 1000)) };
    await pubsubB.publish(topic, encodeGossipBlock(payload, undefined, 0, 901n, new Uint8Array(32).fill(9)));
    await until("a ignoring the block", () => a.stats.ignored > 0);
    await new Promise((r) => setTimeout(r, 1_500));
    assertEquals(a.stats.rejected, 0);
    assertEquals(a.bannedPeers(), []);
    assert((await a.peersInfo())[b.selfInfo().peerID] !== undefined);
  } finally {
    await b.stop();
    await a.stop();
  }
});
