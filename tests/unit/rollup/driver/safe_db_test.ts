/**
 * The safe-head database (--safedb.path, op-node node/safedb): records by L1 block, lookups of the last
 * record at or before an L1 block, and resets that drop the records from the first safe head at or past
 * the reset one (re-recording the reset head at that L1 block when an earlier record exists), on a real
 * sqlite file that keeps them across reopening.
 */
import type { L2BlockRef } from "../../../../lib/protocol/block_ref.ts";
import { MemoryStore } from "../../../../lib/db/mod.ts";
import { SafeDb } from "../../../../lib/rollup/driver/mod.ts";
import { assertEquals } from "../../../assert.ts";

const hash = (n: number) => new Uint8Array(32).fill(n);
const l1 = (n: number) => ({ hash: hash(100 + n), number: BigInt(n) });
function l2(n: number, origin: number): L2BlockRef {
  return {
    hash: hash(n),
    number: BigInt(n),
    parentHash: hash(n - 1),
    timestamp: BigInt(1000 + 2 * n),
    l1Origin: l1(origin),
    sequenceNumber: 0n,
  };
}
const record = (l1n: number, l2n: number) => ({
  l1: l1(l1n),
  safeHead: { hash: hash(l2n), number: BigInt(l2n) },
});

function filled(): SafeDb {
  const db = new SafeDb(new MemoryStore());
  db.updated(l2(4, 9), l1(10));
  db.updated(l2(5, 9), l1(10)); // a later head from the same L1 block replaces the record
  db.updated(l2(8, 11), l1(12));
  db.updated(l2(11, 14), l1(15));
  db.updated(l2(14, 18), l1(20));
  return db;
}

Deno.test("safe db: the last record at or before an L1 block", () => {
  const db = filled();
  assertEquals(db.at(9n), undefined);
  assertEquals(db.at(10n), record(10, 5));
  assertEquals(db.at(14n), record(12, 8));
  assertEquals(db.at(15n), record(15, 11));
  assertEquals(db.at(1_000n), record(20, 14));
});

Deno.test("safe db: a reset drops the records from the first safe head at or past it", () => {
  const db = filled();
  db.reset(l2(8, 11));
  assertEquals(db.at(1_000n), record(12, 8), "re-recorded at the first dropped record's L1 block");
  assertEquals(db.at(11n), record(10, 5));
  // Between records: the first one at or past the head is the L1 15 one.
  const other = filled();
  other.reset(l2(9, 13));
  assertEquals(other.at(1_000n), record(15, 9));
  assertEquals(other.at(14n), record(12, 8));
});

Deno.test("safe db: a reset before the first record drops everything; one past the last keeps all", () => {
  const db = filled();
  db.reset(l2(3, 2));
  assertEquals(db.at(1_000n), undefined);
  const kept = filled();
  kept.reset(l2(20, 30));
  assertEquals(kept.at(1_000n), record(20, 14));
  assertEquals(kept.at(10n), record(10, 5));
});

Deno.test("safe db: records survive closing and reopening the file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-safedb-" });
  try {
    const db = SafeDb.open(`${dir}/safe.db`);
    db.updated(l2(7, 3), l1(5));
    db.close();
    const again = SafeDb.open(`${dir}/safe.db`);
    assertEquals(again.at(6n), record(5, 7));
    again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
