/**
 * KeelTrie (state/keel_trie.ts) reads what the upstream trie reads: the same values for present and
 * absent keys, embedded (short) nodes included, on tries written by upstream; storage-trie copies are
 * KeelTries; a missing root is reported as upstream reports it; a value read cannot change the cache.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import { SqliteStore } from "../../../../lib/db/mod.ts";
import { KeelTrie } from "../../../../lib/execution/state/keel_trie.ts";
import { TrieDb } from "../../../../lib/execution/state/mod.ts";
import { prng } from "../../../prng.ts";
import { assert, assertEquals } from "../../../assert.ts";

const opts = (db: TrieDb, hashed: boolean) => ({
  db,
  useKeyHashing: hashed,
  valueEncoding: "view" as const,
  useNodePruning: false,
  useRootPersistence: false,
});

for (const hashed of [false, true]) {
  Deno.test(`KeelTrie reads what the upstream trie wrote (${hashed ? "hashed" : "short"} keys)`, async () => {
    const rand = prng(hashed ? 7 : 11);
    const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
    // On sqlite with the file's read cache, as the state is kept: a read hands out the cached bytes.
    const db = new TrieDb(SqliteStore.open(":memory:"));
    const upstream = new MerklePatriciaTrie(opts(db, hashed));
    const entries: [Uint8Array, Uint8Array][] = [];
    for (let i = 0; i < 400; i++) {
      // Short keys and values make nodes under 32 bytes, which their parents embed.
      const key = bytes(hashed ? 20 : 1 + Math.floor(rand() * 3));
      const value = bytes(1 + Math.floor(rand() * (i % 3 === 0 ? 3 : 60)));
      await upstream.put(key, value);
      entries.push([key, value]);
    }
    const keel = new KeelTrie({ ...opts(db, hashed), root: upstream.root() });
    const probes = [...entries.map(([k]) => k), ...Array.from({ length: 100 }, () => bytes(hashed ? 20 : 2))];
    for (const key of probes) {
      const [a, b] = [await upstream.get(key), await keel.get(key)];
      assertEquals(b === null ? null : bytesToHex(b), a === null ? null : bytesToHex(a), bytesToHex(key));
    }
    const copy = keel.shallowCopy(false);
    assert(copy instanceof KeelTrie);
    assertEquals(
      bytesToHex((await copy.get(entries[5][0]))!),
      bytesToHex((await upstream.get(entries[5][0]))!),
    );
    // A value read and then changed by its reader: the next read still sees the stored one.
    const got = (await keel.get(entries[1][0]))!;
    const want = bytesToHex(got);
    got.fill(0);
    assertEquals(bytesToHex((await keel.get(entries[1][0]))!), want);
    assertEquals(await keel.checkRoot(new Uint8Array(32).fill(9)), false);
  });
}
