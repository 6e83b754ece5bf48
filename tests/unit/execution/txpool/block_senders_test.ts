import { assert, assertEquals } from "../../../assert.ts";
import { BlockSenderRecovery, decodeRawTransaction } from "../../../../lib/execution/txpool/mod.ts";
import { common, tx1559, tx2930, txLegacy } from "./fixtures.ts";

const ALL = new Set([0, 1, 2, 4]);

function block(n: number) {
  const signed = [];
  for (let i = 0; i < n; i++) {
    signed.push(
      i % 3 === 0
        ? tx1559({ key: i % 50, nonce: BigInt(i) })
        : i % 3 === 1
        ? txLegacy({ key: i % 50 })
        : tx2930({
          key: i % 50,
        }),
    );
  }
  const fresh = signed.map((t) => decodeRawTransaction(t.serialize(), common, ALL));
  return { signed, fresh };
}

Deno.test("BlockSenderRecovery: both threads together recover every sender @ethereumjs recovers", async () => {
  const recovery = new BlockSenderRecovery();
  try {
    // Left alone long enough, the helper recovers the whole block.
    const first = block(100);
    const job1 = await recovery.start(first.fresh);
    await new Promise((r) => setTimeout(r, 2000));
    for (let k = 0; k < first.fresh.length; k++) job1.take(k);
    assertEquals(job1.helped, first.fresh.length);
    for (let k = 0; k < first.fresh.length; k++) {
      assertEquals(
        first.fresh[k].getSenderAddress().toString(),
        first.signed[k].getSenderAddress().toString(),
      );
    }
    // Taken at once, the two threads share the block (how much each does depends on the machine).
    const { signed, fresh } = block(300);
    for (const t of fresh) assertEquals(t.cache.senderPubKey, undefined);
    const job = await recovery.start(fresh);
    for (let k = 0; k < fresh.length; k++) {
      job.take(k);
      assert(fresh[k].cache.senderPubKey !== undefined, `tx ${k}`);
      assertEquals(fresh[k].getSenderAddress().toString(), signed[k].getSenderAddress().toString());
    }
    assert(job.helped < fresh.length, "this thread recovered the first ones");
  } finally {
    recovery.close();
  }
});

Deno.test("BlockSenderRecovery: small blocks stay on this thread; a cancelled job stops the helper", async () => {
  const recovery = new BlockSenderRecovery({ minTxs: 8 });
  try {
    const { fresh } = block(4);
    const job = await recovery.start(fresh);
    for (let k = 0; k < fresh.length; k++) job.take(k);
    assertEquals(job.helped, 0);
    assert(fresh.every((t) => t.cache.senderPubKey !== undefined));
    // Cancelling a job claims what is left: the helper stops at once.
    const big = block(40);
    const job2 = await recovery.start(big.fresh);
    job2.cancel();
    await new Promise((r) => setTimeout(r, 20));
    job2.take(39);
    assertEquals(job2.helped, 0);
  } finally {
    recovery.close();
  }
});
