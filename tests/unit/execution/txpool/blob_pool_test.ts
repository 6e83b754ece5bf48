/** Blob transactions in the pool of a plain (L1) chain: network form only, sidecar verified and kept. */
import { assert, assertEquals, assertRejects, assertThrows } from "../../../assert.ts";
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import { createTxFromRLP } from "@ethereumjs/tx";
import { kzgToVersionedHash, loadKzg } from "../../../../lib/execution/evm/mod.ts";
import {
  blobDecodingCommon,
  blobNetworkEncoding,
  splitBlobNetworkTx,
  TxPool,
  validateBlobTx,
  versionedHashesOf,
} from "../../../../lib/execution/txpool/mod.ts";
import { blobTx, CHAIN_ID, common, ETH, GWEI, testBlob, TestChain } from "./fixtures.ts";

function l1Pool(chain = new TestChain()): TxPool {
  chain.head = { ...chain.head, allowedTypes: new Set([0, 1, 2, 3, 4]) };
  return new TxPool({ gasLimitReserve: 0n }, { ...chain.deps(), common: () => common });
}

Deno.test("txpool (L1): a blob transaction in network form is pooled with its sidecar, served by versioned hash", async () => {
  const pool = l1Pool();
  const { tx, network, sidecar, canonical } = await blobTx(CHAIN_ID, { seeds: [1, 2] });
  const hash = await pool.add(network);
  assertEquals(hash, bytesToHex(tx.hash()));
  assert(pool.isPending(hash));
  assertEquals(pool.blobSidecar(hash), sidecar);
  // The pooled transaction is the canonical form (what blocks carry).
  assertEquals(pool.get(hash)!.serialize(), canonical);
  const [h0, h1] = versionedHashesOf(tx);
  const unknown = kzgToVersionedHash(new Uint8Array(48));
  assertEquals(pool.getBlobs([h1, unknown, h0]), [
    { blob: sidecar.blobs[1], proof: sidecar.proofs[1] },
    null,
    { blob: sidecar.blobs[0], proof: sidecar.proofs[0] },
  ]);
  // Included: the transaction and its blobs leave the pool.
  await pool.onNewHead({ included: [hash] });
  assertEquals(pool.size, 0);
  assertEquals(pool.getBlobs([h0]), [null]);
  assertEquals(pool.blobSidecar(hash), undefined);
});

Deno.test("txpool (L1): blob transactions without a valid sidecar are refused", async () => {
  const pool = l1Pool();
  const a = await blobTx(CHAIN_ID, { seeds: [3] });
  await assertRejects(() => pool.add(a.canonical), BaseError, "missing sidecar in blob transaction");
  // A decoded transaction without the network-wrapper fields has no sidecar either.
  await assertRejects(() => pool.add(a.tx), BaseError, "missing sidecar");
  // The sidecar of another blob: its commitment does not hash to the transaction's versioned hash.
  const b = await blobTx(CHAIN_ID, { seeds: [4], nonce: 1n });
  const own = splitBlobNetworkTx(a.network);
  const { sidecar } = splitBlobNetworkTx(b.network);
  await assertRejects(
    () => pool.add(blobNetworkEncoding(a.canonical, sidecar)),
    BaseError,
    "computed hash",
  );
  // Right commitment, wrong blob: the KZG proof does not verify.
  await assertRejects(
    () =>
      pool.add(
        blobNetworkEncoding(a.canonical, { ...own.sidecar, blobs: [testBlob(9)] }),
      ),
    BaseError,
    "invalid blob proof",
  );
  assertEquals(pool.size, 0);
});

Deno.test("txpool (L1): the cost of a blob transaction includes its blob gas at maxFeePerBlobGas", async () => {
  const chain = new TestChain();
  const pool = l1Pool(chain);
  const t = await blobTx(CHAIN_ID, { blobFeeCap: GWEI });
  // gas + value is affordable, gas + value + 131072 * 1 gwei is not.
  chain.set(0, { balance: 21_000n * 10n * GWEI + 1n + 131_071n * GWEI });
  await assertRejects(() => pool.add(t.network), BaseError, "insufficient funds");
  chain.set(0, { balance: ETH });
  await pool.add(t.network);
  assertEquals(pool.size, 1);
});

Deno.test("txpool (OP): blob transactions are refused as a type the chain does not support", async () => {
  const chain = new TestChain();
  const pool = new TxPool({}, { ...chain.deps(), common: () => common });
  const t = await blobTx(CHAIN_ID);
  await assertRejects(() => pool.add(t.network), BaseError, "transaction type not supported");
});

Deno.test("txpool (L1): more blobs than a block holds (EIP-7691: 9 from Prague) are refused before KZG", async () => {
  const t = await blobTx(CHAIN_ID, { seeds: [1] });
  const kzg = await loadKzg();
  validateBlobTx(t.tx, t.sidecar, 9, kzg);
  assertThrows(
    () => validateBlobTx(t.tx, t.sidecar, 0, kzg),
    BaseError,
    "too many blobs in transaction: have 1, permitted 0",
  );
  assertThrows(() => validateBlobTx(t.tx, undefined, 9, kzg), BaseError, "missing sidecar");
});

Deno.test("txpool (L1): a blob transaction a reorg drops comes back with its blobs from the limbo", async () => {
  const chain = new TestChain();
  const pool = l1Pool(chain);
  const t = await blobTx(CHAIN_ID, { seeds: [5] });
  const hash = await pool.add(t.network);
  // Included (the sender's nonce moves on), then the block is dropped (the nonce moves back).
  chain.set(0, { nonce: 1n });
  await pool.onNewHead({ included: [hash] });
  assertEquals(pool.size, 0);
  chain.set(0, { nonce: 0n });
  // The dropped block's transaction, decoded from the block (canonical form, no blobs).
  const fromBlock = blobDecodingCommon(CHAIN_ID, await loadKzg());
  await pool.onNewHead({ included: [], removed: [createTxFromRLP(t.canonical, { common: fromBlock })] });
  assert(pool.has(hash));
  assertEquals(pool.blobSidecar(hash), t.sidecar);
  assertEquals(pool.getBlobs(versionedHashesOf(t.tx)), [{
    blob: t.sidecar.blobs[0],
    proof: t.sidecar.proofs[0],
  }]);
  // Without a limbo entry the same transaction cannot come back.
  const other = new TxPool({}, { ...chain.deps(), common: () => common });
  chain.head = { ...chain.head, allowedTypes: new Set([0, 1, 2, 3, 4]) };
  await assertRejects(
    () => other.add(createTxFromRLP(t.canonical, { common: fromBlock })),
    BaseError,
    "missing sidecar",
  );
});

Deno.test("txpool (L1): replacing a blob transaction also needs a bumped blob fee cap", async () => {
  const pool = l1Pool();
  const first = await blobTx(CHAIN_ID, { seeds: [1], blobFeeCap: 100n });
  await pool.add(first.network);
  const sameBlobFee = await blobTx(CHAIN_ID, {
    seeds: [1],
    blobFeeCap: 100n,
    feeCap: 20n * GWEI,
    tip: 2n * GWEI,
  });
  await assertRejects(() => pool.add(sameBlobFee.network), BaseError, "blob fee cap not bumped");
  const bumped = await blobTx(CHAIN_ID, { seeds: [1], blobFeeCap: 110n, feeCap: 20n * GWEI, tip: 2n * GWEI });
  const hash = await pool.add(bumped.network);
  assertEquals(pool.size, 1);
  assert(pool.has(hash));
});
