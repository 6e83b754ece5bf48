import { assertEquals, assertRejects } from "../../../assert.ts";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { MemoryStore, PREFIXES, SqliteStore } from "../../../../lib/db/mod.ts";
import { TrieDb } from "../../../../lib/execution/state/mod.ts";

const enc = new TextEncoder();

Deno.test("TrieDb: hex keys map to prefixed bytes; string and byte value encodings", async () => {
  const store = new MemoryStore();
  const db = new TrieDb(store);
  await db.put("abcd", new Uint8Array([1, 2]));
  assertEquals(store.get(new Uint8Array([PREFIXES.trieNode, 0xab, 0xcd])), new Uint8Array([1, 2]));
  assertEquals(await db.get("abcd"), new Uint8Array([1, 2]));
  assertEquals(await db.get("abcd", { valueEncoding: "string" }), "0102");
  await db.put("ef", "ff00");
  assertEquals(await db.get("ef"), new Uint8Array([0xff, 0x00]));
  assertEquals(await db.get("0000"), undefined);
  // Archive: deletes are ignored unless allowed.
  await db.del("abcd");
  assertEquals(await db.get("abcd"), new Uint8Array([1, 2]));
  const pruning = new TrieDb(store, { allowDelete: true });
  await pruning.batch([{ type: "del", key: "abcd" }, { type: "put", key: "01", value: new Uint8Array([9]) }]);
  assertEquals(await db.get("abcd"), undefined);
  assertEquals(await db.shallowCopy().get("01"), new Uint8Array([9]));
  store.close();
});

Deno.test("TrieDb: a MerklePatriciaTrie on it reads back at an old root after later writes", async () => {
  const store = new MemoryStore();
  const trie = new MerklePatriciaTrie({ db: new TrieDb(store), valueEncoding: "view", useKeyHashing: true });
  await trie.put(enc.encode("a"), enc.encode("1"));
  const root1 = trie.root();
  await trie.put(enc.encode("a"), enc.encode("2"));
  await trie.put(enc.encode("b"), enc.encode("3"));
  const old = new MerklePatriciaTrie({
    db: new TrieDb(store),
    valueEncoding: "view",
    useKeyHashing: true,
    root: root1,
  });
  assertEquals(await old.get(enc.encode("a")), enc.encode("1"));
  assertEquals(await old.get(enc.encode("b")), null);
  assertEquals(await trie.get(enc.encode("a")), enc.encode("2"));
  store.close();
});

/** A sqlite file (in memory) whose row reads are counted. */
function countingStore(): SqliteStore & { reads: number } {
  const store = Object.assign(SqliteStore.open(":memory:"), { reads: 0 });
  const get = store.get.bind(store);
  store.get = (key: Uint8Array) => {
    store.reads++;
    return get(key);
  };
  return store;
}

Deno.test("TrieDb: a sqlite file's nodes are read once for every TrieDb on it, by hex or by hash", async () => {
  const store = countingStore();
  store.reads = 0;
  const hash = new Uint8Array(32).fill(0xab);
  new TrieDb(store).putNode(hash, new Uint8Array([0xc1, 0x80]));
  const hex = "ab".repeat(32);
  assertEquals(await new TrieDb(store).get(hex), new Uint8Array([0xc1, 0x80]));
  assertEquals(store.reads, 1);
  // Another TrieDb (a fresh state manager's), by hash, by 0x-prefixed hex, as a string: no new read.
  assertEquals(new TrieDb(store).getNode(hash), new Uint8Array([0xc1, 0x80]));
  assertEquals(await new TrieDb(store).get(`0x${hex}`), new Uint8Array([0xc1, 0x80]));
  assertEquals(await new TrieDb(store).get(hex, { valueEncoding: "string" }), "c180");
  assertEquals(store.reads, 1);
  // Absent keys are not remembered: a later write is seen.
  assertEquals(await new TrieDb(store).get("cd".repeat(32)), undefined);
  await new TrieDb(store).put("cd".repeat(32), new Uint8Array([1]));
  assertEquals(await new TrieDb(store).get("cd".repeat(32)), new Uint8Array([1]));
  // The worker's TrieDb keeps its own cache: it reads the file.
  const reads = store.reads;
  new TrieDb(store, { readCache: false }).getNode(hash);
  assertEquals(store.reads, reads + 1);
  store.close();
});

Deno.test("TrieDb: a node written and read in a write group that rolls back is not served from the cache", async () => {
  const store = countingStore();
  const db = new TrieDb(store);
  const hash = new Uint8Array(32).fill(0x11);
  await assertRejects(() =>
    store.transactionAsync(async () => {
      db.putNode(hash, new Uint8Array([0xc2, 0x01, 0x02]));
      // Reads in the group see its writes (and would fill the cache).
      assertEquals(db.getNode(hash), new Uint8Array([0xc2, 0x01, 0x02]));
      await Promise.resolve();
      throw new Error("block failed");
    })
  );
  assertEquals(db.getNode(hash), undefined);
  assertEquals(await new TrieDb(store).get("11".repeat(32)), undefined);
  store.close();
});

Deno.test("TrieDb: a pruning TrieDb's delete also leaves the shared read cache", async () => {
  const store = countingStore();
  const archive = new TrieDb(store);
  await archive.put("22".repeat(32), new Uint8Array([7]));
  assertEquals(await archive.get("22".repeat(32)), new Uint8Array([7]));
  await new TrieDb(store, { allowDelete: true }).del("22".repeat(32));
  assertEquals(await archive.get("22".repeat(32)), undefined);
  store.close();
});

Deno.test("TrieDb: nodes the trie writes are kept for the next reads (a view of a larger buffer is not)", async () => {
  const store = countingStore();
  const db = new TrieDb(store);
  await db.put("33".repeat(32), new Uint8Array([0xc1, 0x80]));
  await db.batch([{ type: "put", key: "44".repeat(32), value: new Uint8Array([0xc1, 0x01]) }]);
  const shared = new Uint8Array(64);
  await db.put("55".repeat(32), shared.subarray(0, 2));
  store.reads = 0;
  assertEquals(await new TrieDb(store).get("33".repeat(32)), new Uint8Array([0xc1, 0x80]));
  assertEquals(await new TrieDb(store).get("44".repeat(32)), new Uint8Array([0xc1, 0x01]));
  assertEquals(store.reads, 0);
  assertEquals(await new TrieDb(store).get("55".repeat(32)), new Uint8Array(2));
  assertEquals(store.reads, 1);
  // Written in a group that rolls back: gone from the cache with the group.
  await assertRejects(() =>
    store.transactionAsync(async () => {
      await db.put("66".repeat(32), new Uint8Array([0xc1, 0x02]));
      await Promise.resolve();
      throw new Error("block failed");
    })
  );
  assertEquals(await db.get("66".repeat(32)), undefined);
  store.close();
});
