/**
 * findL2Heads (op-node sync/start.go FindL2Heads): on an L1 chain and an L2 chain built on it, then an
 * L1 reorg from some height (new hashes from there), the unsafe head walks back to the last block whose
 * L1 origin is canonical; origins past the L1 head are plausible; the safe head is a lookback behind
 * the highest canonical origin and never above the old safe head; finalized and genesis mismatches fail.
 */
import type { L1BlockRef, L2BlockRef } from "../../../../lib/protocol/block_ref.ts";
import { findL2Heads, type L2Heads } from "../../../../lib/rollup/driver/find_heads.ts";
import { rollupFixture } from "../derive/rollup_fixture.ts";
import { assertEquals, assertRejects } from "../../../assert.ts";

const cfg = { ...rollupFixture(), seqWindowSize: 4n };

/** L1 block `n` of fork `f` (fork 0 is the original chain; the genesis is fork-independent). */
function l1Hash(n: bigint, f: number): Uint8Array {
  if (n === 0n) return cfg.genesis.l1.hash;
  const h = new Uint8Array(32);
  h[0] = 0xaa;
  h[1] = f;
  h[31] = Number(n);
  return h;
}

/** An L1 chain of `length` blocks that follows fork 0 below `reorgAt` and fork 1 from it. */
function l1Chain(length: number, reorgAt = Infinity): L1BlockRef[] {
  const fork = (n: number) => (n >= reorgAt ? 1 : 0);
  return Array.from({ length }, (_, n) => ({
    number: BigInt(n),
    hash: l1Hash(BigInt(n), fork(n)),
    parentHash: n === 0 ? new Uint8Array(32) : l1Hash(BigInt(n - 1), fork(n - 1)),
    timestamp: BigInt(n) * 12n,
  }));
}

/** An L2 chain with `perEpoch` blocks per L1 origin, built on fork 0, origins 0, 1, 2, ... */
function l2Chain(length: number, perEpoch: number): L2BlockRef[] {
  return Array.from({ length }, (_, i) => {
    const o = BigInt(Math.floor(i / perEpoch));
    const h = new Uint8Array(32);
    h[0] = 0xbb;
    h[31] = i;
    return {
      number: BigInt(i),
      hash: i === 0 ? cfg.genesis.l2.hash : h,
      parentHash: new Uint8Array(32),
      timestamp: BigInt(i) * 2n,
      l1Origin: { number: o, hash: l1Hash(o, 0) },
      sequenceNumber: BigInt(i % perEpoch),
    };
  });
}

function run(
  l1: L1BlockRef[],
  l2: L2BlockRef[],
  heads: { unsafe: number; safe: number; finalized?: number },
) {
  const current: L2Heads = {
    unsafe: l2[heads.unsafe],
    safe: l2[heads.safe],
    finalized: l2[heads.finalized ?? 0],
  };
  return findL2Heads(cfg, cfg.seqWindowSize, current, {
    l1ByNumber: (n) => Promise.resolve(l1[Number(n)]),
    l2ByNumber: (n) => Promise.resolve(l2[Number(n)]),
  });
}

Deno.test("find heads: no reorg keeps the unsafe head; the safe head goes a lookback back", async () => {
  const l2 = l2Chain(60, 3); // origins 0..19
  const got = await run(l1Chain(30), l2, { unsafe: 59, safe: 50 });
  assertEquals(got.unsafe.number, 59n);
  // Highest canonical origin 19: epochs at or below 19 - 4 - 1 = 14 start at block 42.
  assertEquals(got.safe.number, 42n);
  // Never above the old safe head.
  assertEquals((await run(l1Chain(30), l2, { unsafe: 59, safe: 30 })).safe.number, 30n);
});

Deno.test("find heads: an L1 reorg takes origins away; the unsafe head walks back below them", async () => {
  const l2 = l2Chain(60, 3);
  // L1 reorged from 16 on: blocks 48.. (origins 16..19) lose their origins.
  const got = await run(l1Chain(30, 16), l2, { unsafe: 59, safe: 55 });
  assertEquals(got.unsafe.number, 47n);
  assertEquals(got.unsafe.l1Origin.number, 15n);
  // The safe head: epochs at or below 15 - 5 = 10 start at block 30.
  assertEquals(got.safe.number, 30n);
});

Deno.test("find heads: origins past the L1 head are plausible and keep the unsafe head", async () => {
  const l2 = l2Chain(60, 3);
  // L1 knows blocks 0..17 only: origins 18, 19 are ahead.
  const got = await run(l1Chain(18), l2, { unsafe: 59, safe: 40 });
  assertEquals(got.unsafe.number, 59n);
  // The highest canonical origin is 17 (block 53).
  assertEquals(got.safe.number, 36n);
});

Deno.test("find heads: a finalized block whose origin is gone, or an L2 genesis not the config's, is an error", async () => {
  const l2 = l2Chain(60, 3);
  await assertRejects(
    () => run(l1Chain(30, 5), l2, { unsafe: 59, safe: 40, finalized: 30 }),
    Error,
    "finalized block 30",
  );
  // Every origin but the genesis' reorged away: the walk reaches the L2 genesis, which is another one.
  const other = l2Chain(9, 3).map((b) => ({
    ...b,
    l1Origin: { ...b.l1Origin, hash: l1Hash(b.l1Origin.number + 1n, 0) },
  }));
  other[0] = { ...other[0], hash: new Uint8Array(32).fill(9) };
  await assertRejects(() => run(l1Chain(30), other, { unsafe: 8, safe: 4 }), Error, "L2 genesis");
});

Deno.test("find heads: a reorg deeper than five sequencing windows is refused", async () => {
  const l2 = l2Chain(90, 3); // origins 0..29
  await assertRejects(() => run(l1Chain(40, 3), l2, { unsafe: 89, safe: 10 }), Error, "too deep");
});
