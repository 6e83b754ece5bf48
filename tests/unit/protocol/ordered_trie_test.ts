import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { assertEquals } from "../../assert.ts";
import { bytesToHex } from "../../../lib/common/bytes.ts";
import { EMPTY_TRIE_ROOT } from "../../../lib/protocol/block.ts";
import { orderedTrieRoot, rlpEncodeIndex, trieRoot } from "../../../lib/protocol/ordered_trie.ts";

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

Deno.test("rlpEncodeIndex: the key of entry i is rlp(i), across each change of length", () => {
  for (const i of [0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0xffffff, 0x1000000, 2 ** 32 + 5]) {
    assertEquals(bytesToHex(rlpEncodeIndex(i)), bytesToHex(RLP.encode(i)), `index ${i}`);
  }
});
