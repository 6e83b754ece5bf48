import { encodeSingularBatch, type SingularBatch } from "../../../../lib/protocol/batch.ts";
import { compressChannel } from "../../../../lib/protocol/channel.ts";
import { encodeSpanBatch } from "../../../../lib/protocol/span_batch_encode.ts";
import { spanBatchFromSingular } from "../../../../lib/protocol/span_batch_singular.ts";
import type { L1Tx } from "../../../../lib/rollup/l1/mod.ts";
import { batcherData, readChannel } from "../../../../lib/rollup/derive/mod.ts";
import { rollupFixture } from "./rollup_fixture.ts";
import { assert, assertEquals } from "../../../assert.ts";

const inbox = new Uint8Array(20).fill(0xbb);
const batcher = new Uint8Array(20).fill(0xaa);
const other = new Uint8Array(20).fill(0x01);
const h = (n: number) => new Uint8Array(32).fill(n);

function tx(type: number, from: Uint8Array, to: Uint8Array | null, input: number[], blobs = 0): L1Tx {
  return {
    hash: h(type),
    type,
    from,
    to,
    input: Uint8Array.from(input),
    blobVersionedHashes: Array.from({ length: blobs }, (_, i) => h(0x10 + i)),
  };
}

Deno.test("l1 retrieval: batcher transactions by inbox, signer and type, blobs numbered over the block", () => {
  const txs = [
    tx(3, other, inbox, [], 2), // someone else's blobs: skipped but counted
    tx(2, batcher, inbox, [0, 1]),
    tx(2, other, inbox, [0, 2]), // not the batcher
    tx(0, batcher, other, [0, 3]), // not the inbox
    tx(4, batcher, inbox, [0, 4]), // set-code transactions are not batcher transactions
    tx(3, batcher, inbox, [9, 9], 2), // from Ecotone: its blobs, not its calldata
    tx(1, batcher, inbox, [0, 5]),
    tx(0, batcher, null, [0, 6]),
  ];
  assertEquals(batcherData(txs, inbox, batcher, true), [
    { kind: "calldata", data: Uint8Array.of(0, 1) },
    { kind: "blob", index: 2, hash: h(0x10) },
    { kind: "blob", index: 3, hash: h(0x11) },
    { kind: "calldata", data: Uint8Array.of(0, 5) },
  ]);
  // Before Ecotone a blob transaction carries no batcher data.
  assertEquals(batcherData(txs, inbox, batcher, false).map((d) => d.kind), ["calldata", "calldata"]);
});

const genesis = 1_000n;
function batch(i: number): SingularBatch {
  return {
    parentHash: h(i),
    epochNumber: 7n,
    epochHash: h(7),
    timestamp: genesis + 2n * BigInt(i),
    transactions: [],
  };
}
const origin = { hash: h(1), number: 10n, parentHash: h(0), timestamp: 120n };

Deno.test("channel reader: singular and span batches in order; Brotli from Fjord", async () => {
  const span = encodeSpanBatch(spanBatchFromSingular([batch(2), batch(3)], genesis, 10n));
  const channel = [encodeSingularBatch(batch(1)), Uint8Array.from([1, ...span])];
  const read = await readChannel(rollupFixture(), compressChannel(channel, "zlib"), origin);
  assertEquals(read.error, undefined);
  assertEquals(read.batches.map((b) => b.kind), ["singular", "span"]);
  assertEquals(read.batches[0], { kind: "singular", batch: batch(1) });
  const brotli = compressChannel(channel, "brotli");
  assert((await readChannel(rollupFixture(), brotli, origin)).error!.includes("before Fjord"));
  assertEquals((await readChannel(rollupFixture({ fjord: 0n }), brotli, origin)).batches.length, 2);
});

Deno.test("channel reader: a batch that does not decode ends the channel; the batches before it stand", async () => {
  const channel = [encodeSingularBatch(batch(1)), Uint8Array.of(7, 1, 2), encodeSingularBatch(batch(2))];
  const read = await readChannel(rollupFixture(), compressChannel(channel, "zlib"), origin);
  assertEquals(read.batches, [{ kind: "singular", batch: batch(1) }]);
  assert(read.error!.includes("unknown batch version 7"));
  const junk = await readChannel(rollupFixture(), Uint8Array.of(0x78, 1, 2, 3), origin);
  assertEquals(junk.batches, []);
  assert(junk.error !== undefined);
});
