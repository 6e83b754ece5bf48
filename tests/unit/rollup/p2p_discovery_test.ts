/**
 * Discv5 discovery on 127.0.0.1 (rollup-node-p2p.md "Discv5"): hosts find each other from a bootnode
 * record, dial only records of their own chain, keep the records they found and start from them again.
 */
import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { ENR } from "@chainsafe/enr";
import { decodeOpStackEnr, OPSTACK_ENR_KEY } from "../../../lib/protocol/opstack_enr.ts";
import type { P2pHost, P2pHostOptions } from "../../../lib/rollup/p2p/mod.ts";
import { testHost, until } from "./p2p_helpers.ts";

function host(chainId: bigint, discovery: Partial<NonNullable<P2pHostOptions["discovery"]>> | undefined) {
  return testHost(chainId, {
    peersLo: 20,
    discovery: discovery === undefined ? undefined : {
      listenUdp: 0,
      advertiseTcp: 0,
      advertiseUdp: 0,
      bootnodes: [],
      intervalMs: 300,
      ...discovery,
    },
  });
}

const connected = async (a: P2pHost, b: P2pHost) => (await a.peersInfo())[b.selfInfo().peerID] !== undefined;

Deno.test("discovery: a node finds its chain's peers from a bootnode, never dials another chain's, and restarts from its kept records", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-discovery-" });
  const a = host(901n, {});
  const other = host(902n, {});
  let b = host(901n, {});
  try {
    await a.start();
    const enrA = a.selfInfo().ENR;
    assert(enrA.startsWith("enr:"), enrA);
    // The record names the host's TCP port and the chain (version 0).
    const record = ENR.decodeTxt(enrA);
    assertEquals(record.ip, "127.0.0.1");
    assertEquals(`/ip4/127.0.0.1/tcp/${record.tcp}/p2p/${a.selfInfo().peerID}`, a.selfInfo().addresses[0]);
    assertEquals(record.udp, record.tcp); // --p2p.listen.udp 0: the TCP port
    assertEquals(decodeOpStackEnr(record.kvs.get(OPSTACK_ENR_KEY)!), { chainId: 901n, version: 0n });

    other.options.discovery!.bootnodes = [enrA];
    await other.start();
    b.options.discovery!.bootnodes = [enrA];
    b.options.discovery!.dbPath = dir;
    await b.start();
    await until("b connected to a", () => connected(b, a));
    // b learns the other chain's node through a's table, and leaves it alone.
    const enrOther = other.selfInfo().ENR;
    await until("b's table holding the other chain's node", () => b.discoveryTable().includes(enrOther));
    await new Promise((r) => setTimeout(r, 1_000));
    assertEquals(await connected(b, other), false);
    assertEquals(await connected(other, b), false);
    assert((await b.peerStats()).table >= 2);
    assertEquals((await b.peersInfo())[a.selfInfo().peerID].ENR, enrA);

    // The records b found are kept (its own chain's only) and read back: no bootnode needed.
    await b.stop();
    const kept = JSON.parse(await Deno.readTextFile(`${dir}/records.json`)) as string[];
    assertEquals(kept, [enrA]);
    b = host(901n, { dbPath: dir });
    await b.start();
    await until("b connected to a again", () => connected(b, a));
  } finally {
    await b.stop();
    await other.stop();
    await a.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("discovery: off with --p2p.no-discovery (nodep2p_discoveryTable: discovery disabled); a bad bootnode is skipped", async () => {
  const off = host(901n, undefined);
  const on = host(901n, { bootnodes: ["enode://" + "ab".repeat(64) + "@127.0.0.1:30303", "enr:-AAAA"] });
  try {
    await off.start();
    assertThrows(() => off.discoveryTable(), Error, "discovery disabled");
    assertEquals(off.selfInfo().ENR, "");
    assertEquals((await off.peerStats()).table, 0);
    await on.start();
    assertEquals(on.discoveryTable(), []);
  } finally {
    await on.stop();
    await off.stop();
  }
});
