import { assert, assertEquals } from "../../../assert.ts";
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import {
  decodeRawTransaction,
  decodingCommon,
  SenderRecovery,
  TxPool,
} from "../../../../lib/execution/txpool/mod.ts";
import { CHAIN_ID, common, TestChain, tx1559, txLegacy } from "./fixtures.ts";

const ALL = new Set([0, 1, 2, 4]);

Deno.test("SenderRecovery: a worker recovers the same senders as @ethereumjs, into the tx cache", async () => {
  const recovery = new SenderRecovery({ workers: 1, batch: 4 });
  try {
    const signed = [];
    for (let i = 0; i < 10; i++) {
      signed.push(i % 2 === 0 ? tx1559({ key: i, nonce: 1n }) : txLegacy({ key: i }));
    }
    const fresh = signed.map((t) => decodeRawTransaction(t.serialize(), common, ALL));
    for (const t of fresh) assertEquals(t.cache.senderPubKey, undefined);
    await Promise.all(fresh.map((t) => recovery.recover(t)));
    for (let i = 0; i < fresh.length; i++) {
      assert(fresh[i].cache.senderPubKey !== undefined, `tx ${i} recovered`);
      assertEquals(fresh[i].getSenderAddress().toString(), signed[i].getSenderAddress().toString());
    }
    // Already recovered: resolves at once.
    await recovery.recover(fresh[0]);
  } finally {
    recovery.close();
  }
});

Deno.test("SenderRecovery: with no workers it recovers inline; close() is idempotent", async () => {
  const recovery = new SenderRecovery({ workers: 0 });
  const t = decodeRawTransaction(tx1559({ key: 3 }).serialize(), decodingCommon(CHAIN_ID), ALL);
  await recovery.recover(t);
  assert(t.cache.senderPubKey !== undefined);
  recovery.close();
  recovery.close();
});

Deno.test("TxPool with SenderRecovery: concurrent raw adds land with their senders", async () => {
  const recovery = new SenderRecovery({ workers: 1, batch: 8 });
  try {
    const chain = new TestChain();
    const pool = new TxPool({}, { ...chain.deps(), senderRecovery: recovery });
    const txs = [];
    for (let k = 0; k < 5; k++) for (let n = 0n; n < 4n; n++) txs.push(tx1559({ key: k, nonce: n }));
    const hashes = await Promise.all(txs.map((t) => pool.add(t.serialize())));
    assertEquals(hashes, txs.map((t) => bytesToHex(t.hash())));
    assertEquals(pool.status(), { pending: 20, queued: 0 });
    assertEquals([...pool.pending()].length, 20);
  } finally {
    recovery.close();
  }
});
