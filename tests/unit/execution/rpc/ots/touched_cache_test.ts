/**
 * The ots searches' cache of the addresses each transaction of a block touches: a block is replayed once
 * for any number of searches, the oldest entry goes when the cache is full.
 */
import { hexToBytes } from "../../../../../lib/common/bytes.ts";
import type { CallFrame } from "../../../../../lib/execution/rpc/debug/mod.ts";
import { TouchedCache } from "../../../../../lib/execution/rpc/ots/frames.ts";
import type { Block } from "../../../../../lib/protocol/block.ts";
import { assertEquals } from "../../../../assert.ts";

const A = hexToBytes("0x00000000000000000000000000000000000000aa");
const B = hexToBytes("0x00000000000000000000000000000000000000bb");
const C = hexToBytes("0x00000000000000000000000000000000000000cc");

function frame(from: Uint8Array, to: Uint8Array, calls: CallFrame[] = [], created?: Uint8Array): CallFrame {
  return {
    type: created === undefined ? "CALL" : "CREATE",
    from,
    to,
    created,
    value: 0n,
    gas: 0n,
    gasUsed: 0n,
    execGas: 0n,
    execGasUsed: 0n,
    input: new Uint8Array(),
    output: new Uint8Array(),
    calls,
    logs: [],
  };
}

Deno.test("TouchedCache: one replay per block, every address of the call tree, oldest evicted", async () => {
  let replays = 0;
  const cache = new TouchedCache(2, () => {
    replays++;
    return Promise.resolve([frame(A, B, [frame(B, C)]), undefined, frame(B, A, [], C)]);
  });
  const block = {} as Block;
  const backend = {} as never;
  const one = new Uint8Array(32).fill(1);
  const sets = await cache.of(backend, block, one);
  assertEquals(sets.map((s) => [...s].sort()), [
    [
      "0x00000000000000000000000000000000000000aa",
      "0x00000000000000000000000000000000000000bb",
      "0x00000000000000000000000000000000000000cc",
    ],
    [],
    [
      "0x00000000000000000000000000000000000000aa",
      "0x00000000000000000000000000000000000000bb",
      "0x00000000000000000000000000000000000000cc",
    ],
  ]);
  await cache.of(backend, block, one);
  assertEquals(replays, 1);
  await cache.of(backend, block, new Uint8Array(32).fill(2));
  await cache.of(backend, block, new Uint8Array(32).fill(3)); // evicts block one
  await cache.of(backend, block, one);
  assertEquals(replays, 4);
});
