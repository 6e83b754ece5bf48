import { createLegacyTx } from "@ethereumjs/tx";
import { assert, assertEquals, assertThrows } from "../../../assert.ts";
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import {
  decodeRawTransaction,
  decodingCommon,
  loadWasmSecp256k1,
  recoverSenderInto,
  SenderRecovery,
  TxPool,
} from "../../../../lib/execution/txpool/mod.ts";
import { CHAIN_ID, common, TestChain, tx1559, tx2930, tx7702, txLegacy } from "./fixtures.ts";

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

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

Deno.test("recoverSenderInto: libsecp256k1 (wasm) caches the key @ethereumjs recovers, for every type", async () => {
  const secp = await loadWasmSecp256k1();
  const signed = [
    tx1559({ key: 0 }),
    tx1559({ key: 1, nonce: 7n }),
    txLegacy({ key: 1 }),
    txLegacy({ key: 2, unprotected: true }),
    tx2930({ key: 0 }),
    tx7702({ key: 1, auths: 1 }),
  ];
  for (const [i, s] of signed.entries()) {
    const fresh = decodeRawTransaction(s.serialize(), common, new Set([0, 1, 2, 4]));
    assertEquals(fresh.cache.senderPubKey, undefined);
    assert(recoverSenderInto(secp, fresh), `tx ${i} recovered`);
    assertEquals(bytesToHex(fresh.cache.senderPubKey!), bytesToHex(s.getSenderPublicKey()), `tx ${i}`);
    assertEquals(fresh.getSenderAddress().toString(), s.getSenderAddress().toString());
  }
});

Deno.test("recoverSenderInto: signatures @ethereumjs refuses are left uncached (its own error stands)", async () => {
  const secp = await loadWasmSecp256k1();
  const good = txLegacy({ key: 0 });
  const { v, r, s } = good;
  const rebuild = (sig: { v: bigint; r: bigint; s: bigint }) =>
    createLegacyTx({ ...good.toJSON(), ...sig }, { common: good.common });
  // The same point with s above n/2 (EIP-2) and the other parity: valid ECDSA, invalid for Ethereum.
  const highS = rebuild({ v: v! % 2n === 0n ? v! - 1n : v! + 1n, r: r!, s: N - s! });
  assert(!recoverSenderInto(secp, highS));
  assertEquals(highS.cache.senderPubKey, undefined);
  assertThrows(() => highS.getSenderAddress(), Error, "s-values greater than secp256k1n/2");
  // r = 0.
  const zeroR = rebuild({ v: v!, r: 0n, s: s! });
  assert(!recoverSenderInto(secp, zeroR));
  assertThrows(() => zeroR.getSenderAddress(), Error, "Invalid Signature");
  // r not below the group order.
  const bigR = rebuild({ v: v!, r: N, s: s! });
  assert(!recoverSenderInto(secp, bigR));
  assertThrows(() => bigR.getSenderAddress(), Error, "Invalid Signature");
  // Through SenderRecovery the pool still sees @ethereumjs's error.
  const recovery = new SenderRecovery({ workers: 0 });
  await recovery.recover(highS);
  assertEquals(highS.cache.senderPubKey, undefined);
});

Deno.test("SenderRecovery: inline recovery with wasm off uses @ethereumjs (noble) and agrees", async () => {
  const a = decodeRawTransaction(tx1559({ key: 2 }).serialize(), common, ALL);
  const b = decodeRawTransaction(tx1559({ key: 2 }).serialize(), common, ALL);
  await new SenderRecovery({ workers: 0, wasm: false }).recover(a);
  await new SenderRecovery({ workers: 0, wasm: true }).recover(b);
  assert(a.cache.senderPubKey !== undefined);
  assertEquals(bytesToHex(a.cache.senderPubKey), bytesToHex(b.cache.senderPubKey!));
});

Deno.test("SenderRecovery: a worker leaves refused signatures to @ethereumjs and keeps the rest", async () => {
  const recovery = new SenderRecovery({ workers: 1, batch: 2 });
  try {
    const good = txLegacy({ key: 0 });
    const highS = createLegacyTx({
      ...good.toJSON(),
      v: good.v! % 2n === 0n ? good.v! - 1n : good.v! + 1n,
      s: N - good.s!,
    }, { common: good.common });
    const fresh = decodeRawTransaction(tx1559({ key: 4 }).serialize(), common, ALL);
    await Promise.all([recovery.recover(highS), recovery.recover(fresh)]);
    assertEquals(highS.cache.senderPubKey, undefined);
    assertThrows(() => highS.getSenderAddress(), Error, "s-values greater than secp256k1n/2");
    assertEquals(fresh.getSenderAddress().toString(), tx1559({ key: 4 }).getSenderAddress().toString());
  } finally {
    recovery.close();
  }
});
