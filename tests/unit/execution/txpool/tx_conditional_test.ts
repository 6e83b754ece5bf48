/**
 * TxConditionals follows the pool: a conditional stays while its transaction is pooled, moves aside when
 * the transaction leaves (included), and comes back when a reorg returns the transaction to the pool; a
 * rejected one is gone for good; at most LEFT_CONDITIONALS_KEPT are kept aside. And the conditional checks'
 * cost and ranges (op-geth TransactionConditional Cost and Validate).
 */
import type { Hex } from "../../../../lib/common/mod.ts";
import {
  conditionalCost,
  conditionalRangeError,
  headerConditionalError,
  LEFT_CONDITIONALS_KEPT,
  type TxConditional,
  TxConditionals,
} from "../../../../lib/execution/txpool/mod.ts";
import { assertEquals } from "../../../assert.ts";

const h = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;

function pool() {
  const set = new Set<Hex>();
  return { set, has: (x: Hex) => set.has(x), remove: (x: Hex) => set.delete(x) };
}

Deno.test("TxConditionals: a reorg that returns a transaction to the pool returns its conditional", () => {
  const p = pool();
  const c = new TxConditionals(p);
  const cond: TxConditional = { knownAccounts: [], blockNumberMax: 9n };
  p.set.add(h(1));
  c.set(h(1), cond);
  c.prune();
  assertEquals([c.size, c.get(h(1))], [1, cond]);
  p.set.delete(h(1)); // included in a block
  c.prune();
  assertEquals([c.size, c.get(h(1))], [0, undefined]);
  p.set.add(h(1)); // the block was reorged away: back in the pool
  c.prune();
  assertEquals(c.get(h(1)), cond);
  // Rejected at build time: out of the pool and forgotten.
  c.reject(h(1));
  assertEquals(p.set.has(h(1)), false);
  p.set.add(h(1));
  c.prune();
  assertEquals(c.get(h(1)), undefined);
});

Deno.test("TxConditionals: at most LEFT_CONDITIONALS_KEPT are kept for transactions out of the pool", () => {
  const p = pool();
  const c = new TxConditionals(p);
  for (let i = 0; i <= LEFT_CONDITIONALS_KEPT; i++) c.set(h(i), { knownAccounts: [] });
  c.prune(); // none pooled: all move aside, the oldest beyond the limit forgotten
  p.set.add(h(0));
  p.set.add(h(LEFT_CONDITIONALS_KEPT));
  c.prune();
  assertEquals(c.get(h(0)), undefined);
  assertEquals(c.get(h(LEFT_CONDITIONALS_KEPT)), { knownAccounts: [] });
});

Deno.test("conditional cost, ranges and header checks as op-geth's", () => {
  const cond: TxConditional = {
    knownAccounts: [
      { address: new Uint8Array(20), storageRoot: new Uint8Array(32) },
      { address: new Uint8Array(20).fill(1), slots: [[new Uint8Array(32), new Uint8Array(32)]] },
    ],
    blockNumberMin: 5n,
    timestampMax: 100n,
  };
  assertEquals(conditionalCost(cond), 2 + 2 + 1 + 1);
  assertEquals(conditionalRangeError(cond), undefined);
  assertEquals(
    conditionalRangeError({ knownAccounts: [], blockNumberMin: 3n, blockNumberMax: 2n }),
    "block number minimum constraint must be less than the maximum",
  );
  assertEquals(headerConditionalError(cond, { number: 5n, timestamp: 100n }), undefined);
  assertEquals(
    headerConditionalError(cond, { number: 4n, timestamp: 1n }),
    "failed block number minimum constraint",
  );
  assertEquals(
    headerConditionalError(cond, { number: 9n, timestamp: 101n }),
    "failed timestamp maximum constraint",
  );
});
