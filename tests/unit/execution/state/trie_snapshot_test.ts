/**
 * PendingTrie kept in memory across blocks (state/batch_trie.ts TrieSnapshot): a trie started from the
 * last commit's snapshot gives the roots of one started from the root hash, reads no node it holds,
 * writes no node twice; pruned snapshots read back what they dropped; `get` sees pending changes.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { assert, assertEquals, assertThrows } from "../../../assert.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import {
  keepSnapshots,
  type NodeDb,
  PendingTrie,
  pruneSnapshots,
  type TrieSnapshot,
  type TrieUpdate,
} from "../../../../lib/execution/state/mod.ts";
import { EMPTY_TRIE_ROOT } from "../../../../lib/protocol/block.ts";
import { trieRounds } from "./trie_rounds.ts";

/** A node store counting reads and writes; `copies`: it declares copiesValues and copies what it gets. */
function countingDb(copies: boolean) {
  const nodes = new Map<string, Uint8Array>();
  const read: string[] = [];
  const db = {
    writes: 0,
    read,
    nodes,
    copiesValues: copies,
    get: (k: Uint8Array) => {
      read.push(k.toString());
      return Promise.resolve(nodes.get(k.toString()));
    },
    put: (k: Uint8Array, v: Uint8Array) => {
      db.writes++;
      nodes.set(k.toString(), copies ? v.slice() : v);
    },
  } satisfies NodeDb & Record<string, unknown>;
  return db;
}

/** Rounds of random updates (trie_rounds.ts): values of 1..60 bytes, inlined and hashed nodes. */
function rounds(seed: number, count: number): TrieUpdate[][] {
  return trieRounds(seed, count, { maxUpdates: 50, deletes: 0.3, maxValue: 60 });
}

Deno.test("PendingTrie from a snapshot: the roots of a trie read from its root, no node read again or written twice", async () => {
  const reference = new MerklePatriciaTrie();
  const cold = countingDb(false);
  const hot = countingDb(true);
  let coldRoot = EMPTY_TRIE_ROOT;
  let snapshot: TrieSnapshot | undefined;
  for (const [r, updates] of rounds(3, 40).entries()) {
    for (const u of updates) {
      if (u.value === null) await reference.del(u.key);
      else await reference.put(u.key, u.value);
    }
    const a = new PendingTrie(cold, coldRoot);
    const b = new PendingTrie(hot, snapshot ?? EMPTY_TRIE_ROOT);
    for (let k = 0; k < updates.length; k += 9) {
      await a.update(updates.slice(k, k + 9));
      await b.update(updates.slice(k, k + 9));
      b.prehash(2);
    }
    coldRoot = await a.commit();
    assertEquals(coldRoot, reference.root(), `round ${r}`);
    assertEquals(await b.commit(), coldRoot, `round ${r}`);
    snapshot = b.snapshot();
    assertEquals(snapshot.root, coldRoot);
  }
  // The trie kept in memory never read a node: it built every one of them.
  assertEquals(hot.read.length, 0);
  assert(cold.read.length > 100, `${cold.read.length} reads`);
  // As many nodes were written (a kept node is not written again).
  assertEquals(hot.writes, cold.writes);
  // Every node written is stored under its hash (encodings cut from shared memory stayed intact).
  for (const [k, v] of hot.nodes) assertEquals(keccak256(v).toString(), k);
});

Deno.test("PendingTrie: a database that keeps what it is given gets arrays of their own", async () => {
  const db = countingDb(false);
  const t = new PendingTrie(db, EMPTY_TRIE_ROOT);
  await t.update(rounds(5, 1)[0]);
  await t.commit();
  for (const v of db.nodes.values()) assertEquals(v.byteLength, v.buffer.byteLength);
});

Deno.test("pruneSnapshots: the levels that do not fit are dropped and read back when needed, with the same roots", async () => {
  const db = countingDb(true);
  const reference = new MerklePatriciaTrie();
  let snapshot: TrieSnapshot | undefined;
  let readsPerRound = 0;
  for (const [r, updates] of rounds(9, 30).entries()) {
    for (const u of updates) {
      if (u.value === null) await reference.del(u.key);
      else await reference.put(u.key, u.value);
    }
    const before = db.read.length;
    const t = new PendingTrie(db, snapshot ?? EMPTY_TRIE_ROOT);
    await t.update(updates);
    assertEquals(await t.commit(), reference.root(), `round ${r}`);
    // Only the root level fits: everything below it becomes a reference by hash again.
    snapshot = pruneSnapshots([t.snapshot()], 1)[0];
    readsPerRound = db.read.length - before;
  }
  assert(readsPerRound > 0, "a pruned trie reads the nodes it dropped");
  // A large budget keeps everything: the next round reads nothing.
  const t = new PendingTrie(db, snapshot!);
  await t.update(rounds(10, 1)[0]);
  await t.commit();
  const kept = pruneSnapshots([t.snapshot()], 1 << 30)[0];
  const before = db.read.length;
  const next = new PendingTrie(db, kept);
  await next.update(rounds(10, 1)[0].map((u) => ({ key: u.key, value: Uint8Array.of(1, 2, 3) })));
  await next.commit();
  assertEquals(db.read.length, before);
});

Deno.test("PendingTrie.get: values with the pending changes, absent keys undefined; snapshot needs a commit", async () => {
  const db = countingDb(true);
  const updates = rounds(12, 3).flat();
  const expected = new Map<string, Uint8Array | null>();
  for (const u of updates) expected.set(u.key.toString(), u.value);
  const t = new PendingTrie(db, EMPTY_TRIE_ROOT);
  const half = updates.length >> 1;
  await t.update(updates.slice(0, half));
  await t.commit();
  const next = new PendingTrie(db, t.snapshot().root);
  await next.update(updates.slice(half));
  assertThrows(() => next.snapshot(), Error, "not committed");
  for (const u of updates) {
    const want = expected.get(u.key.toString());
    const got = await next.get(u.key);
    if (want === null || want!.length === 0) assertEquals(got, undefined);
    else assertEquals(got, want);
  }
  assertEquals(await next.get(new Uint8Array(32).fill(0xee)), undefined);
});

Deno.test("keepSnapshots: the changed tries first, then the most recent before, up to the bound", () => {
  const snap = (n: number): TrieSnapshot => ({ root: Uint8Array.of(n), node: null });
  const before = new Map([["a", snap(1)], ["b", snap(2)], ["c", snap(3)]]);
  const changed = new Map([["b", snap(9)], ["d", snap(4)]]);
  const kept = keepSnapshots(changed, before, 3);
  assertEquals([...kept.keys()], ["b", "d", "a"]);
  assertEquals(kept.get("b")!.root, Uint8Array.of(9));
  // Over rounds the bound holds and the oldest go first.
  let hot = kept;
  for (let r = 0; r < 5; r++) hot = keepSnapshots(new Map([[`n${r}`, snap(r)]]), hot, 3);
  assertEquals([...hot.keys()], ["n4", "n3", "n2"]);
});
