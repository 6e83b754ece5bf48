import type { TypedTransaction } from "@ethereumjs/tx";
import { assertEquals } from "../../../assert.ts";
import { type OrderedCandidate, TransactionsByPriceAndNonce } from "../../../../lib/execution/txpool/mod.ts";
import { tx1559 } from "./fixtures.ts";

/** Candidates for one account: [tip, seq] per nonce. */
function account(key: number, entries: [bigint, number][]): OrderedCandidate[] {
  return entries.map(([tip, seq], i) => ({ tx: tx1559({ key, nonce: BigInt(i) }), tip, seq }));
}

const label = (tx: TypedTransaction, keys: Map<string, number>) =>
  `${keys.get(tx.getSenderAddress().toString())}:${tx.nonce}`;

Deno.test("TransactionsByPriceAndNonce: best tip first, nonce order kept, ties by arrival", () => {
  const lists = [
    account(1, [[5n, 0], [9n, 5]]), // nonce 1 pays more but must wait for nonce 0
    account(2, [[7n, 1]]),
    account(3, [[5n, 2], [1n, 3]]),
    account(4, [[5n, 4]]),
  ];
  const keys = new Map(lists.map((l, i) => [l[0].tx.getSenderAddress().toString(), i + 1]));
  const ordered = new TransactionsByPriceAndNonce(lists);
  assertEquals(ordered.size, 4);
  assertEquals([...ordered].map((t) => label(t, keys)), ["2:0", "1:0", "1:1", "3:0", "4:0", "3:1"]);
  assertEquals(ordered.peek(), undefined);
  assertEquals(ordered.size, 0);
});

Deno.test("TransactionsByPriceAndNonce: pop drops the rest of an account, shift moves on", () => {
  const lists = [account(1, [[9n, 0], [9n, 1], [9n, 2]]), account(2, [[3n, 3], [2n, 4]])];
  const keys = new Map(lists.map((l, i) => [l[0].tx.getSenderAddress().toString(), i + 1]));
  const ordered = new TransactionsByPriceAndNonce(lists);
  const taken: string[] = [];
  taken.push(label(ordered.peek()!, keys));
  ordered.shift(); // 1:0 included
  taken.push(label(ordered.peek()!, keys));
  ordered.pop(); // 1:1 failed: 1:2 must not come
  for (let t = ordered.peek(); t !== undefined; t = ordered.peek()) {
    taken.push(label(t, keys));
    ordered.shift();
  }
  assertEquals(taken, ["1:0", "1:1", "2:0", "2:1"]);
  ordered.pop(); // no-op when empty
  ordered.shift();
  assertEquals(ordered.peekTip(), undefined);
});

Deno.test("TransactionsByPriceAndNonce: many accounts come out in tip order", () => {
  const tips = [4n, 8n, 1n, 6n, 3n, 7n, 2n, 5n];
  const lists = tips.map((tip, i) => account(i, [[tip, i]]));
  const out = [...new TransactionsByPriceAndNonce(lists)].map((t) => lists.findIndex((l) => l[0].tx === t));
  assertEquals(out.map((i) => tips[i]), [8n, 7n, 6n, 5n, 4n, 3n, 2n, 1n]);
});
