/**
 * The peerstore on disk (--p2p.peerstore.path): what libp2p learned about peers survives a restart,
 * the restarted node dials them again, and a copy of the node's key is kept there.
 */
import { Key } from "interface-datastore";
import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { bytesToHex } from "../../../lib/common/bytes.ts";
import { SqliteDatastore } from "../../../lib/rollup/p2p/mod.ts";
import { testHost, until } from "./p2p_helpers.ts";

Deno.test("peerstore datastore: put, get, has, delete, prefix queries, and a missing key is NotFoundError", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-peerstore-" });
  try {
    const ds = await SqliteDatastore.open(`${dir}/ps`);
    ds.put(new Key("/peers/a"), Uint8Array.of(1));
    ds.put(new Key("/peers/b"), Uint8Array.of(2));
    ds.put(new Key("/other/c"), Uint8Array.of(3));
    assertEquals(ds.get(new Key("/peers/b")), Uint8Array.of(2));
    assert(ds.has(new Key("/other/c")));
    const keys: string[] = [];
    for await (const k of ds.queryKeys({ prefix: "/peers" })) keys.push(k.toString());
    assertEquals(keys, ["/peers/a", "/peers/b"]);
    ds.delete(new Key("/peers/a"));
    assertEquals(assertThrows(() => ds.get(new Key("/peers/a"))).name, "NotFoundError");
    ds.close();
    const again = await SqliteDatastore.open(`${dir}/ps`);
    const all: string[] = [];
    for await (const p of again.query({})) all.push(`${p.key}=${p.value[0]}`);
    assertEquals(all, ["/other/c=3", "/peers/b=2"]);
    again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("peerstore on disk: a restarted node redials the peers it knew, and keeps a copy of its key", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-peerstore-" });
  const a = testHost(901n);
  let b = testHost(901n, { peerstorePath: `${dir}/ps`, privKeyPath: `${dir}/key.txt` });
  try {
    await a.start();
    const idA = a.selfInfo().peerID;
    await b.start();
    await b.connectPeer(a.selfInfo().addresses[0]);
    await until("b connected to a", async () => (await b.peersInfo())[idA] !== undefined);
    await b.stop();
    // No static peer, no discovery: only the peerstore names a.
    b = testHost(901n, { peerstorePath: `${dir}/ps`, privKeyPath: `${dir}/key.txt` });
    await b.start();
    await until("b reconnected to a", async () => (await b.peersInfo())[idA] !== undefined);
    await b.stop();
    const ds = await SqliteDatastore.open(`${dir}/ps`);
    const key = (await Deno.readTextFile(`${dir}/key.txt`)).trim();
    assertEquals(bytesToHex(ds.get(new Key("/keel/self/privkey"))).slice(2), key);
    ds.close();
  } finally {
    await b.stop();
    await a.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
