import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import {
  createAccessList2930Tx,
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { createAddressFromPrivateKey } from "@ethereumjs/util";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, hexToBytes, toQuantity } from "../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import { isErrorCode } from "../../../../lib/common/errors.ts";
import { loadKzg } from "../../../../lib/execution/evm/kzg.ts";
import { type RpcTransaction, verifyL1Tx } from "../../../../lib/rollup/l1/l1_tx.ts";
import { assert, assertEquals, assertThrows } from "../../../assert.ts";

const key = new Uint8Array(32).fill(7);
const sender = createAddressFromPrivateKey(key).bytes;
const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const to = new Uint8Array(20).fill(0xff);
const data = Uint8Array.of(0, 1, 2, 3);

/** The transaction as an L1 node's eth_getBlockByHash returns it. */
function rpcOf(tx: TypedTransaction): RpcTransaction {
  const j = tx.toJSON() as Record<string, unknown>;
  const out: Record<string, unknown> = {
    hash: bytesToHex(tx.hash()),
    type: toQuantity(tx.type),
    from: bytesToHex(tx.getSenderAddress().bytes),
    to: j.to ?? null,
    nonce: j.nonce,
    gas: j.gasLimit,
    value: j.value,
    input: j.data,
    r: j.r,
    s: j.s,
    v: j.v,
  };
  for (
    const k of [
      "gasPrice",
      "maxFeePerGas",
      "maxPriorityFeePerGas",
      "chainId",
      "accessList",
      "authorizationList",
    ]
  ) {
    if (j[k] !== undefined) out[k] = j[k];
  }
  if (tx.type !== 0) out.yParity = j.v;
  // @ethereumjs writes the authorizations as byte strings; an L1 node as quantities.
  const auths = j.authorizationList as Record<string, string>[] | undefined;
  if (auths !== undefined) {
    const qty = (v: string) => toQuantity(v === "0x" ? 0n : BigInt(v));
    out.authorizationList = auths.map((a) => ({
      chainId: qty(a.chainId),
      address: a.address,
      nonce: qty(a.nonce),
      yParity: qty(a.yParity),
      r: qty(a.r),
      s: qty(a.s),
    }));
  }
  return out as unknown as RpcTransaction;
}

const accessList = [{ address: bytesToHex(to), storageKeys: [bytesToHex(new Uint8Array(32).fill(1))] }];
const txs: [string, TypedTransaction][] = [
  [
    "legacy, EIP-155",
    createLegacyTx({ nonce: 1, gasPrice: 10n ** 9n, gasLimit: 50_000, to, value: 5, data }, { common }).sign(
      key,
    ),
  ],
  [
    "legacy, no chain id",
    createLegacyTx({ nonce: 2, gasPrice: 10n ** 9n, gasLimit: 50_000, to, data }, {
      common: new Common({ chain: Mainnet, hardfork: Hardfork.TangerineWhistle }),
    }).sign(key),
  ],
  [
    "legacy creation",
    createLegacyTx({ nonce: 3, gasPrice: 1n, gasLimit: 90_000, data }, { common }).sign(key),
  ],
  [
    "EIP-2930",
    createAccessList2930Tx({ chainId: 1n, nonce: 4, gasPrice: 7n, gasLimit: 60_000, to, data, accessList }, {
      common,
    }).sign(key),
  ],
  [
    "EIP-1559",
    createFeeMarket1559Tx({
      chainId: 1n,
      nonce: 5,
      maxFeePerGas: 9n,
      maxPriorityFeePerGas: 2n,
      gasLimit: 60_000,
      to,
      value: 1n,
      data,
      accessList,
    }, { common }).sign(key),
  ],
  [
    "EIP-7702",
    createEOACode7702Tx({
      chainId: 1n,
      nonce: 6,
      maxFeePerGas: 9n,
      maxPriorityFeePerGas: 2n,
      gasLimit: 80_000,
      to,
      authorizationList: [{
        chainId: "0x1",
        address: bytesToHex(to),
        nonce: "0x0",
        yParity: "0x1",
        r: "0x01",
        s: "0x02",
      }],
    }, { common }).sign(key),
  ],
];

Deno.test("L1 tx: the sender is recovered from the signature, for every transaction type", () => {
  for (const [name, tx] of txs) {
    const got = verifyL1Tx(rpcOf(tx));
    assertEquals(got.from, sender, name);
    assertEquals(got.hash, tx.hash(), name);
    assertEquals(got.type, tx.type, name);
    assertEquals(got.input, data.length > 0 && name !== "EIP-7702" ? data : got.input, name);
  }
  assertEquals(verifyL1Tx(rpcOf(txs[2][1])).to, null);
  assertEquals(verifyL1Tx(rpcOf(txs[0][1])).to, to);
});

Deno.test("L1 tx: a blob transaction (EIP-4844 signing payload with the blob fee and versioned hashes)", async () => {
  const kzg = await loadKzg();
  const blobCommon = new Common({ chain: Mainnet, hardfork: Hardfork.Prague, customCrypto: { kzg } });
  const hashes = [new Uint8Array(32).fill(3), new Uint8Array(32).fill(4)].map((h) => (h[0] = 1, h));
  const tx = createBlob4844Tx({
    chainId: 1n,
    nonce: 7,
    maxFeePerGas: 9n,
    maxPriorityFeePerGas: 2n,
    maxFeePerBlobGas: 5n,
    gasLimit: 21_000,
    to,
    data,
    blobVersionedHashes: hashes,
  }, { common: blobCommon }).sign(key);
  const rpc: RpcTransaction = {
    ...rpcOf(tx),
    maxFeePerBlobGas: "0x5",
    blobVersionedHashes: hashes.map((h) => bytesToHex(h)),
  };
  const got = verifyL1Tx(rpc);
  assertEquals(got.from, sender);
  assertEquals(got.type, 3);
  assertEquals(got.blobVersionedHashes, hashes);
  // The blob fee and hashes are signed: changing them breaks the hash check.
  const e = assertThrows(() => verifyL1Tx({ ...rpc, maxFeePerBlobGas: "0x6" }));
  assert(isErrorCode(e, "L1_TX_INVALID"));
  assert((e as Error).message.includes("do not hash"));
});

Deno.test("L1 tx: fields that are not the transaction's, a wrong from, a high s are refused", () => {
  const rpc = rpcOf(txs[4][1]);
  const msg = (t: RpcTransaction) => (assertThrows(() => verifyL1Tx(t)) as Error).message;
  assert(msg({ ...rpc, value: "0x2" }).includes("do not hash to its hash"));
  assert(msg({ ...rpc, from: bytesToHex(to) }).includes("the RPC says"));
  assert(msg({ ...rpc, type: "0x9" }).includes("unknown transaction type 9"));
  assert(msg({ ...rpcOf(txs[0][1]), v: "0x1c0" }).includes("do not hash"));
  // The same signature with s replaced by n - s (and the parity flipped) is valid math but not Homestead.
  const legacy = rpcOf(txs[1][1]);
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const highS = n - BigInt(legacy.s);
  const v = legacy.v === "0x1b" ? 28n : 27n;
  const fields = [legacy.nonce, legacy.gasPrice!, legacy.gas, legacy.to!, legacy.value, legacy.input].map((
    x,
  ) => x === "0x0" ? new Uint8Array() : hexToBytes(x.length % 2 === 0 ? x : `0x0${x.slice(2)}`));
  const signed = RLP.encode([...fields, v, BigInt(legacy.r), highS]);
  const flipped = { ...legacy, v: toQuantity(v), s: toQuantity(highS), hash: bytesToHex(keccak256(signed)) };
  delete (flipped as { from?: string }).from;
  assert(msg(flipped).includes("s above n/2"));
  // Without `from` (a minimal RPC), the sender is still recovered.
  const { from: _f, ...noFrom } = rpc;
  assertEquals(verifyL1Tx(noFrom as RpcTransaction).from, sender);
});
