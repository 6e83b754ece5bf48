import { assertEquals } from "../../../assert.ts";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { MemoryStore, PREFIXES } from "../../../../lib/db/mod.ts";
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
