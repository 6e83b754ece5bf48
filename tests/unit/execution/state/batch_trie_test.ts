import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, Address } from "@ethereumjs/util";
import { assert, assertEquals, assertRejects } from "../../../assert.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import { MemoryStore } from "../../../../lib/db/mod.ts";
import {
  applyTrieUpdates,
  createStateManager,
  LazyAccountCache,
  PendingTrie,
} from "../../../../lib/execution/state/mod.ts";
import { EMPTY_TRIE_ROOT } from "../../../../lib/protocol/block.ts";
import { trieRounds } from "./trie_rounds.ts";

/** Deterministic pseudo-random numbers (xorshift32). */
function rng(seed: number) {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

function bytes(rand: () => number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
}

Deno.test("applyTrieUpdates: same roots as put/del one by one, over rounds of inserts, updates and deletes", async () => {
  const reference = new MerklePatriciaTrie();
  const batched = new MerklePatriciaTrie();
  const keys: Uint8Array[] = [];
  for (
    const [round, updates] of trieRounds(7, 40, { maxUpdates: 60, deletes: 0.3, maxValue: 40 }).entries()
  ) {
    keys.push(...updates.map((u) => u.key));
    for (const u of updates) {
      if (u.value === null) await reference.del(u.key);
      else await reference.put(u.key, u.value);
    }
    const root = await applyTrieUpdates(batched, updates);
    assertEquals(root, reference.root(), `round ${round}`);
    assertEquals(batched.root(), root);
  }
  // Every value reads back through the ordinary trie from the nodes the batches wrote.
  for (const k of keys) assertEquals(await batched.get(k), await reference.get(k));
  // Deleting everything gives the empty root.
  const all = keys.map((key) => ({ key, value: null }));
  assertEquals(await applyTrieUpdates(batched, all), EMPTY_TRIE_ROOT);
});

Deno.test("applyTrieUpdates: a tiny trie (root under 32 bytes) and a later update of the same key winning", async () => {
  const reference = new MerklePatriciaTrie();
  const batched = new MerklePatriciaTrie();
  const k = new Uint8Array(32).fill(1);
  await reference.put(k, new Uint8Array([2]));
  const root = await applyTrieUpdates(batched, [
    { key: k, value: new Uint8Array([1]) },
    { key: k, value: new Uint8Array([2]) },
  ]);
  assertEquals(root, reference.root());
  assertEquals(await batched.get(k), new Uint8Array([2]));
});

Deno.test("applyTrieUpdates: keys of different lengths and a missing node are refused", async () => {
  const trie = new MerklePatriciaTrie();
  await assertRejects(() =>
    applyTrieUpdates(trie, [{ key: new Uint8Array(32), value: new Uint8Array([1]) }, {
      key: new Uint8Array(31),
      value: new Uint8Array([1]),
    }])
  );
  trie.root(keccak256(new Uint8Array([1])));
  const err = await assertRejects(() =>
    applyTrieUpdates(trie, [{ key: new Uint8Array(32), value: new Uint8Array([1]) }])
  );
  assertEquals((err as { code?: string }).code, "TRIE_CORRUPT");
});

Deno.test("KeelStateManager: batched flush gives the upstream state roots, across checkpoints, reverts and storage deletes", async () => {
  const rand = rng(11);
  const ours = await createStateManager(new MemoryStore());
  const upstream = new MerkleStateManager({ caches: new Caches() });
  const addrs = Array.from({ length: 40 }, () => new Address(bytes(rand, 20)));
  const slot = () => {
    const k = new Uint8Array(32);
    k[31] = Math.floor(rand() * 12);
    return k;
  };
  for (let block = 0; block < 12; block++) {
    const ops: ((sm: MerkleStateManager) => Promise<void>)[] = [];
    for (let i = 0; i < 30; i++) {
      const a = addrs[Math.floor(rand() * addrs.length)];
      const r = rand();
      const nonce = BigInt(Math.floor(rand() * 5));
      const balance = BigInt(Math.floor(rand() * 1e9));
      const key = slot();
      const value = rand() < 0.25 ? new Uint8Array() : bytes(rand, 1 + Math.floor(rand() * 32));
      const code = bytes(rand, 10);
      if (r < 0.5) {
        // As the EVM does: nonce and balance change, storage root and code hash stay.
        ops.push(async (sm) => {
          const acc = (await sm.getAccount(a)) ?? new Account();
          acc.nonce = nonce;
          acc.balance = balance;
          await sm.putAccount(a, acc);
        });
      } else if (r < 0.85) {
        ops.push(async (sm) => {
          if ((await sm.getAccount(a)) === undefined) await sm.putAccount(a, new Account(0n, 1n));
          await sm.putStorage(a, key, value);
        });
      } else if (r < 0.9) ops.push((sm) => sm.putCode(a, code));
      else ops.push((sm) => sm.deleteAccount(a));
    }
    const revert = rand() < 0.25;
    for (const sm of [ours, upstream]) {
      await sm.getStateRoot(); // flush before the checkpoint, as the block builder does
      await sm.checkpoint();
      for (const op of ops) await op(sm);
      if (revert) await sm.revert();
      else await sm.commit();
    }
    assertEquals(await ours.getStateRoot(), await upstream.getStateRoot(), `block ${block}`);
  }
  for (const a of addrs) {
    assertEquals((await ours.getAccount(a))?.storageRoot, (await upstream.getAccount(a))?.storageRoot);
    const account = await upstream.getAccount(a);
    if (account === undefined) continue;
    // Storage read through the cache equals the slot in upstream's committed storage trie. (Upstream's
    // own getStorage can answer from a stale cache entry after an account deletion.)
    const db = (upstream as unknown as { _trie: MerklePatriciaTrie })._trie.database().db;
    const trie = new MerklePatriciaTrie({ useKeyHashing: true, db });
    trie.root(account.storageRoot);
    for (let i = 0; i < 12; i++) {
      const k = new Uint8Array(32);
      k[31] = i;
      const raw = await trie.get(k);
      assertEquals(await ours.getStorage(a, k), raw === null ? new Uint8Array() : RLP.decode(raw));
    }
  }
});

Deno.test("KeelStateManager: a storage write stays in the cache until the flush, reads back, and reverts", async () => {
  const sm = await createStateManager(new MemoryStore());
  const a = new Address(new Uint8Array(20).fill(3));
  const k = new Uint8Array(32).fill(1);
  await assertRejects(() => sm.putStorage(a, k, new Uint8Array([1])), Error, "non-existing account");
  await assertRejects(() => sm.putStorage(a, new Uint8Array(31), new Uint8Array([1])), Error, "32 bytes");
  await sm.putAccount(a, new Account(0n, 1n));
  await sm.getStateRoot();
  await sm.checkpoint();
  await sm.putStorage(a, k, new Uint8Array([0, 7]));
  assertEquals((await sm.getAccount(a))?.storageRoot, EMPTY_TRIE_ROOT); // not flushed yet
  assertEquals(await sm.getStorage(a, k), new Uint8Array([7]));
  await sm.revert();
  assertEquals(await sm.getStorage(a, k), new Uint8Array());
  await sm.checkpoint();
  await sm.putStorage(a, k, new Uint8Array([9]));
  await sm.commit();
  const root = await sm.getStateRoot();
  const reference = new MerklePatriciaTrie({ useKeyHashing: true });
  await reference.put(k, new Uint8Array([9]));
  assertEquals((await sm.getAccount(a))?.storageRoot, reference.root());
  assertEquals(root.length, 32);
});

Deno.test("LazyAccountCache: accounts are kept as copies and encoded when the flush reads them", async () => {
  const sm = await createStateManager(new MemoryStore());
  const a = new Address(new Uint8Array(20).fill(5));
  const acc = new Account(3n, 1000n);
  await sm.putAccount(a, acc);
  acc.balance = 1n; // the caller's object is not the cached one
  const got = await sm.getAccount(a);
  assertEquals(got?.balance, 1000n);
  got!.nonce = 99n; // neither is the returned one
  assertEquals((await sm.getAccount(a))?.nonce, 3n);
  const caches = (sm as unknown as { _caches: Caches })._caches;
  assert(caches.account instanceof LazyAccountCache);
  assertEquals(caches.account!.get(a)?.accountRLP, new Account(3n, 1000n).serialize());
  // Deleted accounts and reverts behave as upstream.
  await sm.checkpoint();
  await sm.deleteAccount(a);
  assertEquals(await sm.getAccount(a), undefined);
  await sm.revert();
  assertEquals((await sm.getAccount(a))?.balance, 1000n);
  const reference = new MerklePatriciaTrie({ useKeyHashing: true });
  await reference.put(a.bytes, new Account(3n, 1000n).serialize());
  assertEquals(await sm.getStateRoot(), reference.root());
});

/** Nodes in a Map, counting writes. */
function countingDb() {
  const nodes = new Map<string, Uint8Array>();
  const db = {
    writes: 0,
    get: (k: Uint8Array) => Promise.resolve(nodes.get(k.toString())),
    put: (k: Uint8Array, v: Uint8Array) => {
      db.writes++;
      nodes.set(k.toString(), v);
    },
  };
  return db;
}

Deno.test("PendingTrie: prefetched paths change no root, and the same nodes are written", async () => {
  const rand = rng(11);
  const plain = countingDb();
  const fetched = countingDb();
  let rootPlain = EMPTY_TRIE_ROOT;
  let rootFetched = EMPTY_TRIE_ROOT;
  const keys: Uint8Array[] = [];
  for (
    const [round, updates] of trieRounds(11, 40, { maxUpdates: 40, deletes: 0.35, maxValue: 40 }).entries()
  ) {
    keys.push(...updates.map((u) => u.key));
    const a = new PendingTrie(plain, rootPlain);
    const b = new PendingTrie(fetched, rootFetched);
    // Paths to keys about to change, to keys that stay, and to absent keys.
    await b.prefetch([...updates.map((u) => u.key), keys[0], bytes(rand, 32)]);
    for (let k = 0; k < updates.length; k += 7) {
      await a.update(updates.slice(k, k + 7));
      await b.update(updates.slice(k, k + 7));
    }
    rootPlain = await a.commit();
    rootFetched = await b.commit();
    assertEquals(rootFetched, rootPlain, `round ${round}`);
  }
  // The prefetched nodes were loaded, not built: the same nodes were written either way.
  assertEquals(fetched.writes, plain.writes);
  // A prefetch alone writes nothing and keeps the root.
  const c = new PendingTrie(fetched, rootFetched);
  await c.prefetch(keys.slice(0, 20));
  const before = fetched.writes;
  assertEquals(await c.commit(), rootFetched);
  assertEquals(fetched.writes, before);
});

Deno.test("PendingTrie: a branch collapsing onto a stored subtree writes the new node only", async () => {
  const db = countingDb();
  const key = (first: number) => Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? first : 0x77));
  const value = new Uint8Array(40).fill(5);
  // The root branch holds a leaf under nibble 0 and, under nibble 1, a branch of two leaves.
  const t = new PendingTrie(db, EMPTY_TRIE_ROOT);
  await t.update([key(0x00), key(0x10), key(0x11)].map((k) => ({ key: k, value })));
  const root = await t.commit();
  // Deleting the first leaf leaves the root branch one child: it becomes an extension over the
  // stored branch, which is loaded as it is and not written again.
  const before = db.writes;
  const next = new PendingTrie(db, root);
  await next.update([{ key: key(0x00), value: null }]);
  const reference = new MerklePatriciaTrie();
  for (const k of [key(0x10), key(0x11)]) await reference.put(k, value);
  assertEquals(await next.commit(), reference.root());
  assertEquals(db.writes - before, 1);
});
