import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { assertEquals, assertThrows } from "../../assert.ts";
import { bytesToHex } from "../../../lib/common/bytes.ts";
import { EMPTY_TRIE_ROOT } from "../../../lib/protocol/block.ts";
import { OrderedTrieBuilder, orderedTrieRoot, trieRoot } from "../../../lib/protocol/ordered_trie.ts";

/** Deterministic pseudo-random bytes (xorshift32). */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  return (len: number) => {
    const out = new Uint8Array(len);
    for (let i = 0; i < len; i++) out[i] = next() & 0xff;
    return out;
  };
}

async function mptRoot(pairs: [Uint8Array, Uint8Array][]): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie();
  for (const [k, v] of pairs) await trie.put(k, v);
  return trie.root();
}

Deno.test("orderedTrieRoot: empty list is the empty trie root", () => {
  assertEquals(bytesToHex(orderedTrieRoot([])), bytesToHex(EMPTY_TRIE_ROOT));
});

Deno.test("orderedTrieRoot equals MerklePatriciaTrie for random values and sizes", async () => {
  const bytes = rng(7);
  for (const n of [1, 2, 3, 15, 16, 17, 127, 128, 129, 300]) {
    const values: Uint8Array[] = [];
    for (let i = 0; i < n; i++) values.push(bytes(1 + (bytes(1)[0] % 120)));
    const pairs = values.map((v, i): [Uint8Array, Uint8Array] => [RLP.encode(i), v]);
    assertEquals(bytesToHex(orderedTrieRoot(values)), bytesToHex(await mptRoot(pairs)), `n=${n}`);
  }
});

Deno.test("trieRoot equals MerklePatriciaTrie for random keys of mixed length (short embedded nodes)", async () => {
  const bytes = rng(99);
  for (let round = 0; round < 20; round++) {
    const pairs: [Uint8Array, Uint8Array][] = [];
    const n = 1 + (bytes(1)[0] % 40);
    for (let i = 0; i < n; i++) pairs.push([bytes(1 + (bytes(1)[0] % 4)), bytes(1 + (bytes(1)[0] % 8))]);
    // Last write wins in both.
    assertEquals(bytesToHex(trieRoot(pairs)), bytesToHex(await mptRoot(pairs)), `round ${round}`);
  }
});

Deno.test("OrderedTrieBuilder: values set one by one in any order give orderedTrieRoot's root", () => {
  const bytes = rng(21);
  for (const n of [0, 1, 2, 15, 16, 17, 127, 128, 129, 300, 1000]) {
    // Values of 1..150 bytes: leaves inlined in their parent (< 32 bytes) and hashed ones.
    const values: Uint8Array[] = [];
    for (let i = 0; i < n; i++) values.push(bytes(1 + (bytes(1)[0] % 150)));
    const builder = new OrderedTrieBuilder(n);
    // Set in a shuffled order, one index twice (the last value wins).
    const order = values.map((_, i) => i).sort(() => (bytes(1)[0] & 1) - 0.5);
    const set = new Set<number>();
    if (n > 0) {
      builder.set(order[0], Uint8Array.of(1, 2, 3));
      set.add(order[0]);
    }
    for (const i of order) {
      assertEquals(builder.complete, set.size === n);
      builder.set(i, values[i]);
      set.add(i);
    }
    assertEquals(builder.complete, true);
    assertEquals(bytesToHex(builder.root()), bytesToHex(orderedTrieRoot(values)), `n=${n}`);
  }
});

Deno.test("OrderedTrieBuilder: a missing entry, an index out of range and an empty value are refused", () => {
  const builder = new OrderedTrieBuilder(3);
  builder.set(0, Uint8Array.of(1));
  builder.set(2, Uint8Array.of(3));
  assertThrows(() => builder.root(), Error, "1 of 3 entries not set");
  assertThrows(() => builder.set(3, Uint8Array.of(1)), Error, "entry 3");
  assertThrows(() => builder.set(-1, Uint8Array.of(1)), Error, "entry -1");
  assertThrows(() => builder.set(1, new Uint8Array()), Error, "empty value");
  assertThrows(() => new OrderedTrieBuilder(-1), Error, "-1 entries");
});
