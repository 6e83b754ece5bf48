/** buildTrie: the one-pass trie builder gives @ethereumjs/mpt's roots and a trie it can read. */
import { createMPT } from "@ethereumjs/mpt";
import { assertEquals } from "../../../assert.ts";
import { bigIntToBytes, bytesToHex, hexToBytes } from "../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import { EMPTY_TRIE_ROOT } from "../../../../lib/protocol/block.ts";
import { buildTrie } from "../../../../lib/execution/genesis/trie_builder.ts";

function entries(n: number, seed: number): [Uint8Array, Uint8Array][] {
  const out: [Uint8Array, Uint8Array][] = [];
  for (let i = 0; i < n; i++) {
    const key = keccak256(bigIntToBytes(BigInt(seed * 100_000 + i), 8));
    // Values from 1 to 40 bytes: short leaves are embedded in their parent, long ones hashed.
    const value = keccak256(key).subarray(0, 1 + (i % 32));
    out.push([key, i % 5 === 0 ? new Uint8Array([...value, ...value]) : value]);
  }
  return out;
}

for (const n of [1, 2, 3, 16, 17, 300, 2000]) {
  Deno.test(`buildTrie: ${n} keys give @ethereumjs/mpt's root, and the emitted nodes form a readable trie`, async () => {
    const data = entries(n, n);
    const reference = await createMPT();
    for (const [k, v] of data) await reference.put(k, v);

    const nodes = new Map<string, Uint8Array>();
    const root = buildTrie(data, (hash, node) => nodes.set(bytesToHex(hash), node));
    assertEquals(bytesToHex(root), bytesToHex(reference.root()));

    const readBack = await createMPT();
    for (const [hash, node] of nodes) {
      await readBack.database().put(hexToBytes(hash), node);
    }
    readBack.root(root);
    for (const [k, v] of data) assertEquals(bytesToHex((await readBack.get(k))!), bytesToHex(v));
  });
}

Deno.test("buildTrie: keys sharing a long prefix (extension nodes) and duplicates", async () => {
  const base = new Uint8Array(32).fill(0xab);
  const keys = [0x00, 0x01, 0x10, 0xff].map((last) => {
    const k = base.slice();
    k[31] = last;
    return k;
  });
  const data: [Uint8Array, Uint8Array][] = keys.map((k, i) => [k, new Uint8Array(40).fill(i + 1)]);
  data.push([keys[0], new Uint8Array([9])]); // a later duplicate replaces the first value
  const reference = await createMPT();
  for (const [k, v] of data) await reference.put(k, v);
  assertEquals(bytesToHex(buildTrie(data, () => {})), bytesToHex(reference.root()));
  assertEquals(buildTrie([], () => {}), EMPTY_TRIE_ROOT);
});
