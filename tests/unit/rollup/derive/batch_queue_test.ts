import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEOACode7702Tx, createFeeMarket1559Tx } from "@ethereumjs/tx";
import { eoaCode7702SignAuthorization } from "@ethereumjs/util";
import { assert, assertEquals, assertRejects, assertThrows } from "../../../assert.ts";
import { hexToBytes } from "../../../../lib/common/bytes.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import type { DecodedBatch, SingularBatch } from "../../../../lib/protocol/batch.ts";
import type { L1BlockRef, L2BlockRef } from "../../../../lib/protocol/block_ref.ts";
import type { RollupConfig } from "../../../../lib/protocol/rollup_config.ts";
import { spanBatchFromSingular } from "../../../../lib/protocol/span_batch_singular.ts";
import { BatchQueue } from "../../../../lib/rollup/derive/batch_queue.ts";
import type { SafeChain } from "../../../../lib/rollup/derive/check_span_batch.ts";
import { rollupFixture } from "./rollup_fixture.ts";

// L1 block n at time 996 + 4(n - 83); L2 block k at time 2k (genesis time 0, 2-second blocks, chain id 10).
const KEY = hexToBytes("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318");
const common = createCustomCommon({ chainId: 10 }, Mainnet, { hardfork: Hardfork.Prague });
const DEPOSIT = Uint8Array.of(0x7e, 0xf8, 0x01, 0x02);

function hashOf(tag: number, n: bigint): Uint8Array {
  const h = new Uint8Array(32);
  h[31] = tag;
  new DataView(h.buffer).setBigUint64(0, n);
  return h;
}
const l1Hash = (n: bigint) => hashOf(0xa1, n);
const l2Hash = (k: bigint) => hashOf(0xb2, k);

function l1(n: bigint, timestamp = 996n + 4n * (n - 83n)): L1BlockRef {
  return { number: n, hash: l1Hash(n), parentHash: l1Hash(n - 1n), timestamp };
}

function l2(k: bigint, origin: bigint): L2BlockRef {
  return {
    number: k,
    hash: l2Hash(k),
    parentHash: l2Hash(k - 1n),
    timestamp: 2n * k,
    l1Origin: { number: origin, hash: l1Hash(origin) },
    sequenceNumber: 0n,
  };
}

function tx(nonce: bigint): Uint8Array {
  return createFeeMarket1559Tx({
    nonce,
    gasLimit: 21_000n,
    to: `0x${"5a".repeat(20)}`,
    value: 1n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    chainId: 10n,
  }, { common }).sign(KEY).serialize();
}

const TX = [tx(0n), tx(1n), tx(2n), tx(3n)];
const SET_CODE_TX = createEOACode7702Tx({
  nonce: 9n,
  gasLimit: 60_000n,
  to: `0x${"5a".repeat(20)}`,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 1_000_000n,
  chainId: 10n,
  authorizationList: [
    eoaCode7702SignAuthorization({ chainId: "0xa", address: `0x${"dd".repeat(20)}`, nonce: "0x1" }, KEY),
  ],
}, { common }).sign(KEY).serialize();

/** The batch of L2 block k on L1 origin `origin`. */
function single(k: bigint, origin: bigint, transactions: Uint8Array[] = []): SingularBatch {
  return {
    parentHash: l2Hash(k - 1n),
    epochNumber: origin,
    epochHash: l1Hash(origin),
    timestamp: 2n * k,
    transactions,
  };
}
const s = (k: bigint, origin: bigint, txs: Uint8Array[] = []): DecodedBatch => ({
  kind: "singular",
  batch: single(k, origin, txs),
});
const span = (batches: SingularBatch[]): DecodedBatch => ({
  kind: "span",
  batch: spanBatchFromSingular(batches, 0n, 10n),
});

/** The safe block a batch becomes. */
function child(parent: L2BlockRef, batch: SingularBatch): L2BlockRef {
  const number = parent.number + 1n;
  return {
    number,
    hash: l2Hash(number),
    parentHash: parent.hash,
    timestamp: batch.timestamp,
    l1Origin: { number: batch.epochNumber, hash: batch.epochHash },
    sequenceNumber: batch.epochNumber === parent.l1Origin.number ? parent.sequenceNumber + 1n : 0n,
  };
}

interface Drained {
  out: { batch: SingularBatch; concluding: boolean }[];
  safe: L2BlockRef;
  flushes: number;
}

/**
 * Drives the queue as the pipeline does for one L1 origin: batches are read channel by channel,
 * one per "need-data"; a flush discards the rest of the current channel; stops at "need-data" once
 * every batch was read.
 */
async function drain(q: BatchQueue, safe: L2BlockRef, channels: DecodedBatch[][] = []): Promise<Drained> {
  const queue = channels.map((c) => c.slice());
  const result: Drained = { out: [], safe, flushes: 0 };
  for (let i = 0; i < 1000; i++) {
    while (queue.length > 0 && queue[0].length === 0) queue.shift();
    const r = await q.next(result.safe, queue.length === 0);
    if (r === "need-data") {
      if (queue.length === 0) return result;
      q.addBatch(queue[0].shift()!);
    } else if (r === "flush-channel") {
      result.flushes++;
      queue.shift();
    } else {
      result.out.push(r);
      result.safe = child(result.safe, r.batch);
    }
  }
  throw new Error("the queue did not settle");
}

const times = (d: Drained) => d.out.map((o) => o.batch.timestamp);
const noChain: SafeChain = {
  l2BlockRefByNumber: (n) => Promise.reject(new Error(`no block ${n}`)),
  transactionsByNumber: (n) => Promise.reject(new Error(`no block ${n}`)),
};

const cfgWith = (forks: RollupConfig["forks"] = {}, over: Partial<RollupConfig> = {}): RollupConfig => ({
  ...rollupFixture(forks),
  ...over,
});

/** A queue started at the safe head's origin 83 and moved to L1 block 84. */
function started(cfg: RollupConfig, l2chain: SafeChain = noChain): BatchQueue {
  const q = new BatchQueue(cfg, l2chain);
  q.reset(l1(83n));
  q.setOrigin(l1(84n));
  return q;
}
const SAFE = l2(500n, 83n); // time 1000; L1 84 is at 1000

Deno.test("batch queue: batches in order are accepted one by one", async () => {
  const q = started(cfgWith());
  const d = await drain(q, SAFE, [[s(501n, 83n, [TX[0]]), s(502n, 84n), s(503n, 84n, [TX[1]])]]);
  assertEquals(d.out, [
    { batch: single(501n, 83n, [TX[0]]), concluding: true },
    { batch: single(502n, 84n), concluding: true },
    { batch: single(503n, 84n, [TX[1]]), concluding: true },
  ]);
  assertEquals(d.safe.l1Origin.number, 84n);
  assertEquals(q.l1Blocks.map((b) => b.number), [84n], "L1 blocks before the safe head's epoch are pruned");
  assertEquals(await q.next(d.safe, true), "need-data");
});

Deno.test("batch queue: future batches are kept and served in order before Holocene", async () => {
  const q = started(cfgWith());
  const d = await drain(q, SAFE, [[s(503n, 84n), s(502n, 84n)], [s(501n, 83n)]]);
  assertEquals(times(d), [1002n, 1004n, 1006n]);
});

Deno.test("batch queue: old and invalid batches are dropped, the first valid one in L1 order wins", async () => {
  const q = started(cfgWith());
  const wrongParent: DecodedBatch = {
    kind: "singular",
    batch: { ...single(501n, 83n), parentHash: l2Hash(7n) },
  };
  const wrongEpoch: DecodedBatch = {
    kind: "singular",
    batch: { ...single(501n, 83n), epochHash: l1Hash(9n) },
  };
  const d = await drain(q, SAFE, [[
    s(499n, 83n),
    wrongParent,
    wrongEpoch,
    s(501n, 83n, [TX[0]]),
    s(501n, 83n, [TX[1]]),
    s(502n, 83n),
  ]]);
  assertEquals(d.out.map((o) => o.batch), [single(501n, 83n, [TX[0]]), single(502n, 83n)]);
});

Deno.test("batch queue: an undecided batch waits for the next L1 block and holds later ones", async () => {
  const q = new BatchQueue(cfgWith(), noChain);
  q.reset(l1(83n));
  // 501 on epoch 84 needs L1 block 84; the valid 501 on epoch 83 behind it must wait.
  let d = await drain(q, SAFE, [[s(501n, 84n), s(501n, 83n)]]);
  assertEquals(d.out, []);
  q.setOrigin(l1(84n));
  d = await drain(q, SAFE);
  assertEquals(d.out.map((o) => o.batch), [single(501n, 84n)], "the first batch in L1 order wins");
});

Deno.test("batch queue: empty batches once the sequencing window expired, keeping or advancing the epoch", async () => {
  const q = new BatchQueue(cfgWith({}, { seqWindowSize: 2n }), noChain);
  q.reset(l1(83n));
  let safe = l2(498n, 83n); // time 996
  let d = await drain(q, safe);
  assertEquals(d.out, []);
  q.setOrigin(l1(84n));
  assertEquals((await drain(q, safe)).out, [], "epoch 83's window ends at L1 block 85");
  q.setOrigin(l1(85n));
  // 85 may still carry batches: nothing until it is read completely.
  q.addBatch(s(510n, 83n));
  assertEquals(await q.next(safe, false), "need-data");
  d = await drain(q, safe);
  // 998 < 1000 (L1 84): the epoch is kept; 1000 >= 1000: epoch 84 is adopted, but its window ends at 86.
  assertEquals(d.out, [{ batch: single(499n, 83n), concluding: true }]);
  safe = d.safe;
  assertEquals(q.l1Blocks.map((b) => b.number), [84n, 85n], "the epoch moved on without a block");
  q.setOrigin(l1(86n));
  d = await drain(q, safe);
  // 1000 on 84 (first of its epoch), 1002 < 1004 on 84, then 1004 >= 1004 waits for epoch 85's window.
  assertEquals(d.out.map((o) => o.batch), [single(500n, 84n), single(501n, 84n)]);
  assertEquals(d.out.map((o) => o.batch.transactions.length), [0, 0]);
});

Deno.test("batch queue: the first block of an epoch is made even when the next L1 block is due", async () => {
  // L1 83 at 996, 84 at 999, 85 at 1000.
  const blocks = [l1(83n), l1(84n, 999n), l1(85n, 1000n), l1(86n, 1001n)];
  const q = new BatchQueue(cfgWith({}, { seqWindowSize: 1n }), noChain);
  q.reset(blocks[0]);
  const safe = l2(499n, 83n); // 998
  q.setOrigin(blocks[1]);
  let d = await drain(q, safe);
  // Epoch 83's window ended at 84 and 1000 >= 999: epoch 83 is done, without a block.
  assertEquals([d.out, q.l1Blocks.map((b) => b.number)], [[], [84n]]);
  q.setOrigin(blocks[2]);
  d = await drain(q, safe);
  // Epoch 84 (window until 85) gets block 500 although 85 is at 1000, then is done.
  assertEquals(d.out.map((o) => o.batch), [single(500n, 84n)]);
  q.setOrigin(blocks[3]);
  d = await drain(q, d.safe);
  assertEquals(d.out.map((o) => o.batch), [single(501n, 85n)]);
});

Deno.test("batch queue: a span batch is accepted and served block by block across epochs", async () => {
  const q = started(cfgWith({ canyon: 0n, delta: 0n }));
  assertEquals((await drain(q, SAFE)).out, []);
  q.setOrigin(l1(85n));
  const blocks = [single(501n, 83n, [TX[0]]), single(502n, 84n), single(503n, 84n, [TX[1], TX[2]])];
  const d = await drain(q, SAFE, [[span(blocks)], [s(504n, 85n)]]);
  assertEquals(d.out, [
    { batch: blocks[0], concluding: false },
    { batch: blocks[1], concluding: false },
    { batch: blocks[2], concluding: true },
    { batch: single(504n, 85n), concluding: true },
  ]);
});

Deno.test("batch queue: a span batch's rest is void when the safe head is not its previous block", async () => {
  const q = started(cfgWith({ canyon: 0n, delta: 0n }));
  q.addBatch(span([single(501n, 83n), single(502n, 83n), single(503n, 83n)]));
  const first = await q.next(SAFE, false);
  assert(typeof first === "object");
  assertEquals(first.concluding, false);
  // The engine did not take block 501: the safe head stays, the rest of the span is discarded.
  assertEquals(await q.next(SAFE, false), "need-data");
  const d = await drain(q, SAFE, [[s(501n, 83n, [TX[3]])]]);
  assertEquals(d.out.map((o) => o.batch), [single(501n, 83n, [TX[3]])]);
});

/** Safe blocks 497..500 on origin 83 with a deposit and these transactions. */
function safeChain(txs: Uint8Array[][]): SafeChain {
  const blocks = new Map(
    txs.map((t, i) => [497n + BigInt(i), { ref: l2(497n + BigInt(i), 83n), txs: [DEPOSIT, ...t] }]),
  );
  const get = (n: bigint) => {
    const b = blocks.get(n);
    return b === undefined ? Promise.reject(new Error(`no block ${n}`)) : Promise.resolve(b);
  };
  return {
    l2BlockRefByNumber: async (n) => (await get(n)).ref,
    transactionsByNumber: async (n) => (await get(n)).txs,
  };
}

Deno.test("batch queue: an overlapping span batch yields only its new blocks, if its overlap matches", async () => {
  const overlapping = span([
    single(499n, 83n, [TX[0]]),
    single(500n, 83n),
    single(501n, 83n, [TX[1]]),
    single(502n, 84n),
  ]);
  const forks = { canyon: 0n, delta: 0n };
  const matching = started(cfgWith(forks), safeChain([[], [], [TX[0]], []]));
  let d = await drain(matching, SAFE, [[overlapping]]);
  assertEquals(d.out, [
    { batch: single(501n, 83n, [TX[1]]), concluding: false },
    { batch: single(502n, 84n), concluding: true },
  ]);
  const differing = started(cfgWith(forks), safeChain([[], [], [TX[2]], []]));
  d = await drain(differing, SAFE, [[overlapping], [s(501n, 83n)]]);
  assertEquals(d.out.map((o) => o.batch), [single(501n, 83n)], "the span is dropped");
});

Deno.test("batch queue: a span batch before Delta is dropped", async () => {
  const q = started(cfgWith({ canyon: 0n, delta: 2000n }));
  const d = await drain(q, SAFE, [[span([single(501n, 83n)]), s(501n, 83n, [TX[0]])]]);
  assertEquals(d.out.map((o) => o.batch), [single(501n, 83n, [TX[0]])]);
});

const HOLOCENE = { canyon: 0n, delta: 0n, ecotone: 0n, fjord: 0n, granite: 0n, holocene: 0n };

/**
 * A Holocene queue at L1 block 85: batches on epochs 83 and 84 are included after their L1 origin
 * (a channel read at the parent's own L1 origin only holds past batches and is drained).
 */
async function holocene(): Promise<BatchQueue> {
  const q = started(cfgWith(HOLOCENE));
  assertEquals((await drain(q, SAFE)).out, []);
  q.setOrigin(l1(85n));
  return q;
}

Deno.test("batch queue, Holocene: a future batch is dropped with the rest of its channel", async () => {
  const q = await holocene();
  assert(q.holocene);
  const d = await drain(q, SAFE, [[s(502n, 84n), s(501n, 83n, [TX[0]])], [s(501n, 83n), s(502n, 84n)]]);
  assertEquals(d.flushes, 1);
  assertEquals(d.out.map((o) => o.batch), [single(501n, 83n), single(502n, 84n)]);
});

Deno.test("batch queue, Holocene: past batches are skipped without flushing", async () => {
  const q = await holocene();
  const d = await drain(q, SAFE, [[s(499n, 83n), s(500n, 83n), s(501n, 83n), s(502n, 84n)]]);
  assertEquals(d.flushes, 0);
  assertEquals(times(d), [1002n, 1004n]);
  // A past span batch is skipped too.
  const q2 = await holocene();
  const d2 = await drain(q2, SAFE, [[span([single(499n, 83n), single(500n, 83n)]), s(501n, 83n)]]);
  assertEquals([d2.flushes, times(d2)], [0, [1002n]]);
});

Deno.test("batch queue, Holocene: an invalid block of a span discards the rest of the span and channel", async () => {
  const q = await holocene();
  // Block 502 carries a set-code transaction before Isthmus.
  const bad = span([single(501n, 83n, [TX[0]]), single(502n, 84n, [SET_CODE_TX]), single(503n, 84n)]);
  const d = await drain(q, SAFE, [[bad, s(502n, 84n, [TX[3]])], [s(502n, 84n, [TX[1]]), s(503n, 84n)]]);
  assertEquals(d.flushes, 1);
  assertEquals(d.out, [
    { batch: single(501n, 83n, [TX[0]]), concluding: true },
    { batch: single(502n, 84n, [TX[1]]), concluding: true },
    { batch: single(503n, 84n), concluding: true },
  ]);
});

Deno.test("batch queue, Holocene: an invalid span batch flushes its channel", async () => {
  const q = await holocene();
  const wrongParent = span([{ ...single(501n, 83n), parentHash: l2Hash(1n) }, single(502n, 84n)]);
  const d = await drain(q, SAFE, [[wrongParent, s(501n, 83n, [TX[0]])], [s(501n, 83n)]]);
  assertEquals(d.flushes, 1);
  assertEquals(d.out.map((o) => o.batch), [single(501n, 83n)]);
});

Deno.test("batch queue, Holocene: batches read at the safe head's own origin are drained", async () => {
  const q = new BatchQueue(cfgWith(HOLOCENE), noChain);
  q.reset(l1(83n));
  assertEquals((await drain(q, SAFE, [[s(501n, 83n)]])).out, []);
  q.setOrigin(l1(84n));
  assertEquals(times(await drain(q, SAFE, [[s(501n, 83n)]])), [1002n]);
});

Deno.test("batch queue, Holocene: empty batches once the sequencing window expired", async () => {
  const q = new BatchQueue(cfgWith(HOLOCENE, { seqWindowSize: 1n }), noChain);
  q.reset(l1(83n));
  q.setOrigin(l1(84n));
  const d = await drain(q, l2(498n, 83n));
  // 998 < 1000 keeps epoch 83; 1000 moves to epoch 84, whose window is still open.
  assertEquals(d.out, [{ batch: single(499n, 83n), concluding: true }]);
  assertEquals(q.l1Blocks.map((b) => b.number), [84n]);
});

Deno.test("batch queue: Holocene activates with the origin and drops buffered batches", async () => {
  const q = started(cfgWith({ canyon: 0n, delta: 0n, holocene: 1004n })); // L1 85 at 1004
  let d = await drain(q, SAFE, [[s(502n, 84n)]]);
  assertEquals([d.out, q.holocene], [[], false]);
  q.setOrigin(l1(85n));
  assert(q.holocene);
  d = await drain(q, SAFE, [[s(501n, 83n)]]);
  assertEquals(times(d), [1002n], "the buffered 502 is gone");
});

Deno.test("batch queue: a safe head off the known L1 chain needs a reset", async () => {
  const q = started(cfgWith());
  const forked = { ...SAFE, l1Origin: { number: 83n, hash: l1Hash(999n) } };
  q.addBatch(s(501n, 83n));
  const err = await assertRejects(() => q.next(forked, false), BaseError) as BaseError;
  assertEquals([err.code, err.severity], ["BATCH_QUEUE_EPOCH_MISMATCH", "reset"]);
});

Deno.test("batch queue: one batch in flight, the origin moves only when it is processed", async () => {
  const q = new BatchQueue(cfgWith(), noChain);
  await assertRejects(() => q.next(SAFE, true), BaseError, "not reset");
  q.reset(l1(83n));
  q.addBatch(s(501n, 83n));
  assertThrows(() => q.addBatch(s(502n, 83n)), BaseError, "not processed");
  assertThrows(() => q.setOrigin(l1(84n)), BaseError, "not processed");
  const r = await q.next(SAFE, false);
  assert(typeof r === "object");
  q.setOrigin(l1(84n));
  assertEquals(q.origin?.number, 83n, "adopted by the next call");
  assertThrows(() => q.setOrigin(l1(85n)), BaseError, "was not processed");
  assertEquals(await q.next(child(SAFE, r.batch), true), "need-data");
  assertEquals(q.origin?.number, 84n);
});
