/**
 * The p2p options that limit whom a node talks to and how (interfaces.md 4.5): --p2p.netrestrict,
 * --p2p.sync.req-resp, --p2p.peers.hi with --p2p.peers.grace.
 */
import { assert, assertEquals, assertRejects } from "../../assert.ts";
import type { P2pHost } from "../../../lib/rollup/p2p/mod.ts";
import { testHost, until } from "./p2p_helpers.ts";

const count = async (h: P2pHost) => Object.keys(await h.peersInfo()).length;

Deno.test("p2p.netrestrict: a node talks only to the networks named", async () => {
  const open = testHost(901n);
  const restricted = testHost(901n, { netRestrict: ["10.0.0.0/8"] });
  const local = testHost(901n, { netRestrict: ["127.0.0.0/8"] });
  try {
    await open.start();
    await restricted.start();
    await local.start();
    assert(restricted.allowedIp("10.1.2.3"));
    assertEquals(restricted.allowedIp("127.0.0.1"), false);
    // Dialling out of the networks is refused; so is a connection coming in from outside them.
    await assertRejects(() => restricted.connectPeer(open.selfInfo().addresses[0]));
    await open.connectPeer(restricted.selfInfo().addresses[0]).catch(() => {});
    await new Promise((r) => setTimeout(r, 500));
    assertEquals(await count(restricted), 0);
    await local.connectPeer(open.selfInfo().addresses[0]);
    await until("local connected", async () => (await count(local)) === 1);
  } finally {
    await local.stop();
    await restricted.stop();
    await open.stop();
  }
});

Deno.test("p2p.sync.req-resp false: payload_by_number is not served", async () => {
  const server = testHost(901n, { reqResp: false });
  const client = testHost(901n);
  try {
    await server.start();
    await client.start();
    await client.connectPeer(server.selfInfo().addresses[0]);
    await assertRejects(() => client.requestPayload(server.selfInfo().peerID, 1n, 3_000));
  } finally {
    await client.stop();
    await server.stop();
  }
});

Deno.test("p2p.peers.hi: above the high tide the host drops peers past their grace, sparing protected ones", async () => {
  const hub = testHost(901n, { peersHi: 1, peersGraceMs: 0, pruneMs: 200 });
  const spokes = [testHost(901n), testHost(901n), testHost(901n)];
  try {
    await hub.start();
    for (const s of spokes) await s.start();
    await hub.protectPeer(spokes[2].selfInfo().peerID);
    for (const s of spokes) await s.connectPeer(hub.selfInfo().addresses[0]);
    // Pruned to the high tide, keeping the protected one. (Waiting for both: the hub may see the
    // protected spoke's connection after it pruned the others, a moment with one other peer left.)
    const protectedId = spokes[2].selfInfo().peerID;
    await until(
      "pruned to the high tide, the protected peer kept",
      async () => (await count(hub)) === 1 && (await hub.peersInfo())[protectedId] !== undefined,
    );
  } finally {
    for (const s of spokes) await s.stop();
    await hub.stop();
  }
});
