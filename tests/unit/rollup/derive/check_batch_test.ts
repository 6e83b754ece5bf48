import type { SingularBatch } from "../../../../lib/protocol/batch.ts";
import type { L1BlockRef, L2BlockRef } from "../../../../lib/protocol/block_ref.ts";
import { checkBatchTransactions, checkSingularBatch } from "../../../../lib/rollup/derive/check_batch.ts";
import { rollupFixture } from "./rollup_fixture.ts";
import { assertEquals } from "../../../assert.ts";

const h = (n: number) => new Uint8Array(32).fill(n);

/** A chain with 2-second L2 blocks, a 3,600-block sequencing window and a 600 s drift before Fjord. */

const l1 = (number: bigint, timestamp: bigint): L1BlockRef => ({
  hash: h(Number(number % 200n) + 50),
  number,
  parentHash: h(Number((number - 1n) % 200n) + 50),
  timestamp,
});
const epoch = l1(100n, 1000n);
const nextEpoch = l1(101n, 1012n);
const safe: L2BlockRef = {
  hash: h(9),
  number: 50n,
  parentHash: h(8),
  timestamp: 1004n,
  l1Origin: { hash: epoch.hash, number: epoch.number },
  sequenceNumber: 2n,
};
const inclusion = l1(105n, 1060n);
const tx = Uint8Array.of(2, 0xc0);

function batch(over: Partial<SingularBatch> = {}): SingularBatch {
  return {
    parentHash: safe.hash,
    epochNumber: 100n,
    epochHash: epoch.hash,
    timestamp: 1006n,
    transactions: [tx],
    ...over,
  };
}

Deno.test("check batch: the next batch on the safe head is accepted, in its epoch or the next", () => {
  const cfg = rollupFixture();
  assertEquals(checkSingularBatch(cfg, [epoch], safe, batch(), inclusion), { validity: "accept" });
  const advance = batch({ epochNumber: 101n, epochHash: nextEpoch.hash, timestamp: 1012n });
  const safe2 = { ...safe, timestamp: 1010n };
  assertEquals(checkSingularBatch(cfg, [epoch, nextEpoch], safe2, advance, inclusion).validity, "accept");
  // Advancing without knowing the next L1 block cannot be decided.
  assertEquals(checkSingularBatch(cfg, [epoch], safe2, advance, inclusion).validity, "undecided");
  assertEquals(checkSingularBatch(cfg, [], safe, batch(), inclusion).validity, "undecided");
});

Deno.test("check batch: timestamp order, before and from Holocene (by the inclusion block's time)", () => {
  const pre = rollupFixture();
  const holo = rollupFixture({ canyon: 0n, delta: 0n, holocene: 1050n });
  const future = batch({ timestamp: 1008n });
  const past = batch({ timestamp: 1004n });
  assertEquals(checkSingularBatch(pre, [epoch], safe, future, inclusion).validity, "future");
  assertEquals(checkSingularBatch(pre, [epoch], safe, past, inclusion).validity, "drop");
  assertEquals(checkSingularBatch(holo, [epoch], safe, future, inclusion).validity, "drop");
  assertEquals(checkSingularBatch(holo, [epoch], safe, past, inclusion).validity, "past");
  // Holocene at 1061: the batch included at 1060 still follows the old rules.
  const later = rollupFixture({ canyon: 0n, delta: 0n, holocene: 1061n });
  assertEquals(checkSingularBatch(later, [epoch], safe, future, inclusion).validity, "future");
});

Deno.test("check batch: parent, sequencing window, epoch number and hash", () => {
  const cfg = rollupFixture();
  const drop = (b: SingularBatch, blocks = [epoch, nextEpoch], incl = inclusion) =>
    checkSingularBatch(cfg, blocks, safe, b, incl);
  assertEquals(drop(batch({ parentHash: h(7) })).validity, "drop");
  assertEquals(drop(batch(), [epoch], l1(3701n, 9000n)).validity, "drop");
  assertEquals(drop(batch(), [epoch], l1(3700n, 9000n)).validity, "accept");
  assertEquals(drop(batch({ epochNumber: 99n })).validity, "drop");
  assertEquals(drop(batch({ epochNumber: 102n })).validity, "drop");
  assertEquals(drop(batch({ epochHash: h(3) })).validity, "drop");
  assertEquals(drop(batch({ epochNumber: 101n, epochHash: epoch.hash })).validity, "drop");
  // The L2 time is never below the L1 origin's time.
  assertEquals(
    checkSingularBatch(
      cfg,
      [epoch, l1(101n, 1007n)],
      safe,
      batch({ epochNumber: 101n, epochHash: l1(101n, 1007n).hash }),
      inclusion,
    )
      .reason,
    "timestamp before its L1 origin's",
  );
});

Deno.test("check batch: the sequencer drift (600 s before Fjord, 1800 s from Fjord by the origin's time)", () => {
  const cfg = rollupFixture();
  const late = { ...safe, timestamp: 1600n };
  const b = batch({ timestamp: 1602n });
  // With transactions: dropped.
  assertEquals(checkSingularBatch(cfg, [epoch, l1(101n, 1700n)], late, b, inclusion).validity, "drop");
  // Empty and the next origin not yet possible (its time is later): accepted; possible: dropped.
  const empty = batch({ timestamp: 1602n, transactions: [] });
  assertEquals(checkSingularBatch(cfg, [epoch, l1(101n, 1700n)], late, empty, inclusion).validity, "accept");
  assertEquals(checkSingularBatch(cfg, [epoch, l1(101n, 1602n)], late, empty, inclusion).validity, "drop");
  assertEquals(checkSingularBatch(cfg, [epoch], late, empty, inclusion).validity, "undecided");
  // Fjord makes the drift 1800 s: the same batch with transactions is within it.
  assertEquals(
    checkSingularBatch(rollupFixture({ fjord: 0n }), [epoch], late, b, inclusion).validity,
    "accept",
  );
});

Deno.test("check batch: empty, deposit and (before Isthmus) set-code transactions drop the batch", () => {
  const cfg = rollupFixture();
  for (
    const [txs, reason] of [
      [[tx, new Uint8Array()], "transaction 1 is empty"],
      [[Uint8Array.of(0x7e, 0xc0)], "transaction 0 is a deposit"],
      [[Uint8Array.of(4, 0xc0)], "transaction 0 is a set-code transaction before Isthmus"],
    ] as const
  ) {
    assertEquals(checkSingularBatch(cfg, [epoch], safe, batch({ transactions: [...txs] }), inclusion), {
      validity: "drop",
      reason,
    });
  }
  assertEquals(
    checkBatchTransactions(rollupFixture({ isthmus: 1006n }), 1006n, [Uint8Array.of(4, 0xc0)]),
    undefined,
  );
  assertEquals(
    checkBatchTransactions(rollupFixture({ isthmus: 1007n }), 1006n, [Uint8Array.of(4, 0xc0)]) !== undefined,
    true,
  );
  assertEquals(
    checkBatchTransactions(cfg, 1006n, [Uint8Array.of(0xf8), Uint8Array.of(1), Uint8Array.of(2)]),
    undefined,
  );
});
