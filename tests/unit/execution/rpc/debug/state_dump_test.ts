/**
 * The ordered trie walk under debug_accountRange / debug_dumpBlock (state_dump.ts trieLeaves): a storage
 * trie of many slots read in key order from any start key, stopping where its consumer stops; a missing
 * node is a clear error.
 */
import { Address } from "@ethereumjs/util";
import { bytesToHex, hexToBytes, keccak256 } from "../../../../../lib/common/mod.ts";
import { MemoryStore } from "../../../../../lib/db/mod.ts";
import { trieLeaves } from "../../../../../lib/execution/rpc/debug/state_dump.ts";
import { createStateManager } from "../../../../../lib/execution/state/mod.ts";
import { EMPTY_TRIE_ROOT } from "../../../../../lib/protocol/mod.ts";
import { assertEquals, assertThrows } from "../../../../assert.ts";

const word = (n: number) => hexToBytes("0x" + n.toString(16).padStart(64, "0"));

async function storageTrie(slots: number) {
  const sm = await createStateManager(new MemoryStore());
  const a = new Address(new Uint8Array(20).fill(1));
  await sm.putCode(a, Uint8Array.of(0));
  for (let i = 0; i < slots; i++) await sm.putStorage(a, word(i), Uint8Array.of(1 + (i % 200), 7));
  await sm.flush();
  const account = (await sm.getAccount(a))!;
  const expected = [...Array(slots).keys()].map((i) => bytesToHex(keccak256(word(i)))).sort();
  return { nodes: sm.nodeDb!, root: account.storageRoot, expected };
}

/** The keys of the leaves, and checks each value is its slot's (RLP of the two bytes written). */
const read = (leaves: Iterable<[Uint8Array, Uint8Array]>) =>
  [...leaves].map(([k, v]) => {
    assertEquals([v.length, v[0], v[2]], [3, 0x82, 7]);
    return bytesToHex(k);
  });

Deno.test("trieLeaves: every leaf in key order, from any start key", async () => {
  const { nodes, root, expected } = await storageTrie(600);
  assertEquals(read(trieLeaves(nodes, root)), expected);
  const shifted = (key: string, by: bigint) =>
    hexToBytes("0x" + (BigInt(key) + by).toString(16).padStart(64, "0"));
  for (const i of [0, 1, 299, 598, 599]) {
    assertEquals(read(trieLeaves(nodes, root, hexToBytes(expected[i]))), expected.slice(i));
    // One below the key: the same range; one above: the range after it.
    assertEquals(read(trieLeaves(nodes, root, shifted(expected[i], -1n))), expected.slice(i));
    assertEquals(read(trieLeaves(nodes, root, shifted(expected[i], 1n))), expected.slice(i + 1));
  }
  assertEquals(read(trieLeaves(nodes, root, new Uint8Array(32).fill(0xff))), []);
  assertEquals(read(trieLeaves(nodes, EMPTY_TRIE_ROOT)), []);
});

Deno.test("trieLeaves: reads no further than its consumer; a missing node is an error", async () => {
  const { nodes, root } = await storageTrie(50);
  let reads = 0;
  const counting = { getNode: (h: Uint8Array) => (reads++, nodes.getNode(h)) };
  const it = trieLeaves(counting, root);
  it.next();
  it.return(undefined);
  const few = reads;
  read(trieLeaves(counting, root));
  assertEquals(few < reads - few, true);
  const missing = { getNode: (h: Uint8Array) => (h === root ? nodes.getNode(h) : undefined) };
  assertThrows(() => read(trieLeaves(missing, root)), Error, "Cannot dump the state: trie node 0x");
});
