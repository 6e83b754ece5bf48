/**
 * A span batch transaction and its signed EIP-2718 form (specs/protocol/delta/span-batches.md "Store
 * `y_parity` and `protected_bit` instead of `v`"), both ways: the batcher turns blocks' transactions
 * into span form (`spanBatchTxFromSigned`), derivation turns them back (`spanBatchTxToSigned`).
 */
import { BaseError } from "../common/errors.ts";
import { bytesToBigInt } from "../common/bytes.ts";
import { rlpDecode, rlpEncode, rlpEncodeTyped, type RlpValue } from "../common/rlp.ts";
import type { SpanBatchTx } from "./span_batch.ts";
import {
  accessList,
  ANY_BYTES,
  authorizationList,
  encodeError,
  U256_BYTES,
  U64_BYTES,
} from "./span_batch_fields.ts";
import { accessListInput, authorizationListInput } from "./span_batch_encode.ts";

/**
 * The signed EIP-2718 transaction of a span transaction on chain `chainId` (span-batches.md "Store
 * `y_parity` and `protected_bit` instead of `v`": legacy v = 2 * chainId + 35 + y_parity when
 * protected, 27 + y_parity otherwise; typed transactions carry the chain id and y_parity).
 */
export function spanBatchTxToSigned(tx: SpanBatchTx, chainId: bigint): Uint8Array {
  const to = tx.to ?? new Uint8Array(0);
  const yParity = BigInt(tx.yParity);
  switch (tx.type) {
    case 0: {
      const v = tx.protected ? chainId * 2n + 35n + yParity : 27n + yParity;
      return rlpEncode([tx.nonce, tx.gasPrice, tx.gas, to, tx.value, tx.data, v, tx.r, tx.s]);
    }
    case 1:
      return rlpEncodeTyped(1, [
        chainId,
        tx.nonce,
        tx.gasPrice,
        tx.gas,
        to,
        tx.value,
        tx.data,
        accessListInput(tx.accessList, "access list"),
        yParity,
        tx.r,
        tx.s,
      ]);
    case 2:
      return rlpEncodeTyped(2, [
        chainId,
        tx.nonce,
        tx.maxPriorityFeePerGas,
        tx.maxFeePerGas,
        tx.gas,
        to,
        tx.value,
        tx.data,
        accessListInput(tx.accessList, "access list"),
        yParity,
        tx.r,
        tx.s,
      ]);
    case 4:
      return rlpEncodeTyped(4, [
        chainId,
        tx.nonce,
        tx.maxPriorityFeePerGas,
        tx.maxFeePerGas,
        tx.gas,
        tx.to,
        tx.value,
        tx.data,
        accessListInput(tx.accessList, "access list"),
        authorizationListInput(tx.authorizationList, "authorization list"),
        yParity,
        tx.r,
        tx.s,
      ]);
    default:
      throw encodeError(`unsupported transaction type ${(tx as { type: unknown }).type}`);
  }
}

function txError(index: number, message: string): BaseError {
  return new BaseError("SPAN_BATCH_INVALID", `Cannot add transaction ${index} to a span batch: ${message}`);
}

/**
 * The span form of signed transaction `raw` (EIP-2718 bytes) on chain `chainId`, as op-node's
 * AddTxs: the fields go-ethereum decodes for types 0, 1, 2 and 4 (uint64 nonce and gas, a 0- or
 * 20-byte `to`, canonical integers), a typed transaction's chain id must be `chainId`, a legacy v must
 * be 27/28 or EIP-155 for `chainId`. Other types (blob, deposit) cannot be in a span batch.
 */
export function spanBatchTxFromSigned(raw: Uint8Array, chainId: bigint, index = 0): SpanBatchTx {
  if (raw.length === 0) throw txError(index, "empty transaction");
  const typed = raw[0] <= 0x7f;
  const type = typed ? raw[0] : 0;
  if (typed && type !== 1 && type !== 2 && type !== 4) {
    throw txError(index, `unsupported transaction type ${type}`);
  }
  let decoded: RlpValue;
  try {
    decoded = rlpDecode(type === 0 ? raw : raw.subarray(1));
  } catch (e) {
    throw new BaseError(
      "SPAN_BATCH_INVALID",
      `Cannot add transaction ${index} to a span batch: ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
  const lengths: Record<number, number> = { 0: 9, 1: 11, 2: 12, 4: 13 };
  if (!Array.isArray(decoded) || decoded.length !== lengths[type]) {
    throw txError(index, `a type ${type} transaction is a list of ${lengths[type]} fields`);
  }
  const f = decoded;
  const int = (i: number, maxBytes: number, name: string): bigint => {
    const v = f[i];
    if (!(v instanceof Uint8Array)) throw txError(index, `${name} must be a byte string`);
    if (v.length > 0 && v[0] === 0) throw txError(index, `${name} has leading zero bytes`);
    if (v.length > maxBytes) throw txError(index, `${name} exceeds ${maxBytes * 8} bits`);
    return bytesToBigInt(v);
  };
  const bytes = (i: number, name: string): Uint8Array => {
    const v = f[i];
    if (!(v instanceof Uint8Array)) throw txError(index, `${name} must be a byte string`);
    return v.slice();
  };
  const recipient = (i: number, required: boolean): Uint8Array | null => {
    const v = bytes(i, "to");
    if (v.length === 0 && !required) return null;
    if (v.length !== 20) {
      throw txError(index, `to must be 20 bytes${required ? "" : " or empty"}, is ${v.length}`);
    }
    return v;
  };
  const sameChain = (i: number, maxBytes: number): void => {
    const id = int(i, maxBytes, "chain id");
    if (id !== chainId) throw txError(index, `chain id is ${id}, expected ${chainId}`);
  };
  const signature = (i: number, maxBytes: number) => {
    const yParity = int(i, maxBytes, "y-parity");
    if (yParity > 1n) throw txError(index, `y-parity is ${yParity}, expected 0 or 1`);
    return { yParity: Number(yParity), r: int(i + 1, U256_BYTES, "r"), s: int(i + 2, U256_BYTES, "s") };
  };
  const nested = <T>(i: number, name: string, read: (v: RlpValue, field: string) => T): T => {
    try {
      return read(f[i], name);
    } catch (e) {
      throw txError(index, (e as Error).message.replace("Cannot decode span batch: ", ""));
    }
  };
  switch (type) {
    case 0: {
      // [nonce, gasPrice, gas, to, value, data, v, r, s]
      const v = int(6, ANY_BYTES, "v");
      let yParity: bigint;
      let isProtected: boolean;
      if (v === 27n || v === 28n) {
        isProtected = false;
        yParity = v - 27n;
      } else if (v >= 35n) {
        // EIP-155: v = 2 * chainId + 35 + y_parity
        isProtected = true;
        yParity = (v - 35n) & 1n;
        const txChainId = (v - 35n) >> 1n;
        if (txChainId !== chainId) throw txError(index, `chain id is ${txChainId}, expected ${chainId}`);
      } else {
        throw txError(index, `legacy v ${v} is neither 27/28 nor EIP-155`);
      }
      return {
        type: 0,
        protected: isProtected,
        nonce: int(0, U64_BYTES, "nonce"),
        gasPrice: int(1, ANY_BYTES, "gas price"),
        gas: int(2, U64_BYTES, "gas"),
        to: recipient(3, false),
        value: int(4, ANY_BYTES, "value"),
        data: bytes(5, "data"),
        yParity: Number(yParity),
        r: int(7, U256_BYTES, "r"),
        s: int(8, U256_BYTES, "s"),
      };
    }
    case 1:
      // [chainId, nonce, gasPrice, gas, to, value, data, accessList, yParity, r, s]
      sameChain(0, ANY_BYTES);
      return {
        type: 1,
        nonce: int(1, U64_BYTES, "nonce"),
        gasPrice: int(2, ANY_BYTES, "gas price"),
        gas: int(3, U64_BYTES, "gas"),
        to: recipient(4, false),
        value: int(5, ANY_BYTES, "value"),
        data: bytes(6, "data"),
        accessList: nested(7, "access list", accessList),
        ...signature(8, ANY_BYTES),
      };
    case 2:
      // [chainId, nonce, tip, feeCap, gas, to, value, data, accessList, yParity, r, s]
      sameChain(0, ANY_BYTES);
      return {
        type: 2,
        nonce: int(1, U64_BYTES, "nonce"),
        maxPriorityFeePerGas: int(2, ANY_BYTES, "max priority fee"),
        maxFeePerGas: int(3, ANY_BYTES, "max fee"),
        gas: int(4, U64_BYTES, "gas"),
        to: recipient(5, false),
        value: int(6, ANY_BYTES, "value"),
        data: bytes(7, "data"),
        accessList: nested(8, "access list", accessList),
        ...signature(9, ANY_BYTES),
      };
    default:
      // type 4: [chainId, nonce, tip, feeCap, gas, to, value, data, accessList, authList, yParity, r, s]
      sameChain(0, U256_BYTES);
      return {
        type: 4,
        nonce: int(1, U64_BYTES, "nonce"),
        maxPriorityFeePerGas: int(2, U256_BYTES, "max priority fee"),
        maxFeePerGas: int(3, U256_BYTES, "max fee"),
        gas: int(4, U64_BYTES, "gas"),
        to: recipient(5, true) as Uint8Array,
        value: int(6, U256_BYTES, "value"),
        data: bytes(7, "data"),
        accessList: nested(8, "access list", accessList),
        authorizationList: nested(9, "authorization list", authorizationList),
        ...signature(10, U256_BYTES),
      };
  }
}
