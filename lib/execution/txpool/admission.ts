/**
 * The admission checks that need no account state (go-ethereum core/txpool/validation.go
 * ValidateTransaction; op-geth's OP rules): allowed types, size, initcode, gas, fees, signature,
 * replay protection, nonce bound, intrinsic gas and the EIP-7623 floor, authorizations, and for blob
 * transactions the blob count and the sidecar (EIP-4844, EIP-7691).
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { Capability } from "@ethereumjs/tx";
import type { KZG } from "@ethereumjs/util";
import type { Hex } from "../../common/bytes.ts";
import { type BlobsBundle, verifyBlobSidecar } from "../evm/mod.ts";
import { txPoolError } from "./errors.ts";
import type { PoolHead, TxPoolOptions } from "./options.ts";
import { versionedHashesOf } from "./blob_sidecar.ts";
import {
  feeCap,
  floorDataGas,
  intrinsicGas,
  MAX_INITCODE_SIZE,
  MAX_UINT64,
  tipCap,
  TX_TYPE,
} from "./validation.ts";

/**
 * Types the pool refuses: deposits always (op-geth: no unauthenticated deposits) and any type the fork
 * does not allow (blob transactions are allowed only on plain chains from Cancun: the OP specs refuse
 * them on L2).
 */
export function refuseType(type: number, head: PoolHead): void {
  if (type === TX_TYPE.deposit || !head.allowedTypes.has(type)) {
    throw txPoolError("TX_TYPE_NOT_SUPPORTED", undefined, { type });
  }
}

function hex(bytes: Uint8Array): Hex {
  return `0x${bytes.toHex()}` as Hex;
}

/** geth ValidateTransaction: the checks that need no state. Returns the sender. */
export function validateStateless(
  tx: TypedTransaction,
  head: PoolHead,
  opts: Readonly<TxPoolOptions>,
  reinject: boolean,
): Uint8Array {
  const isCreate = tx.to === undefined;
  const maxInitCode = head.maxInitCodeSize ?? MAX_INITCODE_SIZE;
  if (head.isShanghai && isCreate && tx.data.length > maxInitCode) {
    throw txPoolError(
      "MAX_INITCODE_SIZE_EXCEEDED",
      `code size ${tx.data.length}, limit ${maxInitCode}`,
    );
  }
  const limit = head.gasLimit > opts.gasLimitReserve ? head.gasLimit - opts.gasLimitReserve : 0n;
  if (tx.gasLimit > limit) throw txPoolError("GAS_LIMIT", undefined, { gas: tx.gasLimit, limit });
  const cap = feeCap(tx);
  const tip = tipCap(tx);
  if (cap < tip) throw txPoolError("TIP_ABOVE_FEE_CAP", undefined, { feeCap: cap, tipCap: tip });
  let sender: Uint8Array;
  try {
    sender = tx.getSenderAddress().bytes;
  } catch (err) {
    throw txPoolError("INVALID_SENDER", "invalid transaction v, r, s values", {}, err);
  }
  if (
    !reinject && !opts.allowUnprotectedTxs && tx.type === TX_TYPE.legacy &&
    !tx.supports(Capability.EIP155ReplayProtection)
  ) {
    throw txPoolError("UNPROTECTED_TX");
  }
  if (tx.nonce >= MAX_UINT64) {
    throw txPoolError("NONCE_MAX", `address ${hex(sender)}, nonce: ${tx.nonce}`);
  }
  const intrinsic = intrinsicGas(tx, head);
  if (tx.gasLimit < intrinsic) {
    throw txPoolError("INTRINSIC_GAS", `gas ${tx.gasLimit}, minimum needed ${intrinsic}`);
  }
  if (head.isPrague) {
    const floor = floorDataGas(tx);
    if (tx.gasLimit < floor) {
      throw txPoolError("FLOOR_DATA_GAS", `gas ${tx.gasLimit}, minimum needed ${floor}`);
    }
  }
  if (tip < opts.minTip) {
    throw txPoolError("TX_GAS_PRICE_TOO_LOW", `gas tip cap ${tip}, minimum needed ${opts.minTip}`);
  }
  if (!reinject && opts.rejectFeeCapBelowBaseFee && cap < head.nextBaseFee) {
    throw txPoolError(
      "FEE_CAP_TOO_LOW",
      `address ${hex(sender)}, maxFeePerGas: ${cap}, baseFee: ${head.nextBaseFee}`,
    );
  }
  if (tx.type === TX_TYPE.setCode && "authorizationList" in tx && tx.authorizationList.length === 0) {
    throw txPoolError("EMPTY_AUTHORIZATIONS");
  }
  return sender;
}

/**
 * A blob transaction's blob count (1 to the block maximum, EIP-7691: 9 from Prague) and sidecar
 * (geth core/txpool/validation.go validateBlobSidecar). Throws INVALID_TRANSACTION.
 */
export function validateBlobTx(
  tx: TypedTransaction,
  sidecar: BlobsBundle | undefined,
  maxBlobs: number,
  kzg: KZG,
): void {
  if (sidecar === undefined) throw txPoolError("INVALID_TRANSACTION", "missing sidecar in blob transaction");
  const hashes = versionedHashesOf(tx);
  if (hashes.length === 0) throw txPoolError("INVALID_TRANSACTION", "blobless blob transaction");
  if (hashes.length > maxBlobs) {
    throw txPoolError(
      "INVALID_TRANSACTION",
      `too many blobs in transaction: have ${hashes.length}, permitted ${maxBlobs}`,
    );
  }
  try {
    verifyBlobSidecar(kzg, hashes, sidecar);
  } catch (e) {
    throw txPoolError("INVALID_TRANSACTION", (e as Error).message, {}, e);
  }
}
