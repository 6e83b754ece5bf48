/**
 * Pieces the span batch decoder, encoder and transaction conversion share (span_batch.ts,
 * span_batch_encode.ts, span_batch_tx.ts): the element limit, integer field sizes, the errors, and the
 * checked reading of RLP fields the way go-ethereum's decoder accepts them.
 */
import { BaseError } from "../common/errors.ts";
import { bytesToBigInt } from "../common/bytes.ts";
import type { RlpValue } from "../common/rlp.ts";
import type { SpanBatchAccessTuple, SpanBatchAuthorization } from "./span_batch.ts";

/**
 * Limit on the number of blocks, of transactions per block and of transactions in total
 * (derivation.md "Protocol Parameters"; fjord/derivation.md). op-node also uses it as the byte limit
 * of one transaction's RLP data in `tx_datas`.
 */
export const MAX_SPAN_BATCH_ELEMENT_COUNT = 10_000_000;

export const U64_LIMIT = 1n << 64n;
export const U256_LIMIT = 1n << 256n;
/** Byte sizes of the integer fields: go-ethereum decodes uint64 (8), uint8 (1), uint256 (32) and big.Int (any). */
export const U64_BYTES = 8;
export const U256_BYTES = 32;
export const ANY_BYTES = Infinity;

export function invalid(message: string): BaseError {
  return new BaseError("SPAN_BATCH_INVALID", `Cannot decode span batch: ${message}`);
}

export function tooBig(message: string): BaseError {
  return new BaseError("SPAN_BATCH_TOO_BIG", `Cannot decode span batch: ${message}`, {
    meta: { limit: MAX_SPAN_BATCH_ELEMENT_COUNT },
  });
}

export function encodeError(message: string): BaseError {
  return new BaseError("SPAN_BATCH_INVALID", `Cannot encode span batch: ${message}`);
}

// ---------------------------------------------------------------------------------------------
// RLP fields, checked as go-ethereum's RLP decoder checks them

export function list(v: RlpValue, field: string, length?: number): RlpValue[] {
  if (!Array.isArray(v)) throw invalid(`${field} must be a list`);
  if (length !== undefined && v.length !== length) {
    throw invalid(`${field} must have ${length} elements, has ${v.length}`);
  }
  return v;
}

export function byteString(v: RlpValue, field: string): Uint8Array {
  if (!(v instanceof Uint8Array)) throw invalid(`${field} must be a byte string`);
  return v;
}

function fixedBytes(v: RlpValue, length: number, field: string): Uint8Array {
  const b = byteString(v, field);
  if (b.length !== length) throw invalid(`${field} must be ${length} bytes, is ${b.length}`);
  return b.slice();
}

/** A canonical RLP integer (no leading zero byte) of at most `maxBytes` bytes. */
export function integer(v: RlpValue, maxBytes: number, field: string): bigint {
  const b = byteString(v, field);
  if (b.length > 0 && b[0] === 0) throw invalid(`${field} has leading zero bytes`);
  if (b.length > maxBytes) throw invalid(`${field} exceeds ${maxBytes * 8} bits`);
  return bytesToBigInt(b);
}

export function accessList(v: RlpValue, field: string): SpanBatchAccessTuple[] {
  return list(v, field).map((item, i) => {
    const [address, keys] = list(item, `${field}[${i}]`, 2);
    return {
      address: fixedBytes(address, 20, `${field}[${i}] address`),
      storageKeys: list(keys, `${field}[${i}] storage keys`).map((k, j) =>
        fixedBytes(k, 32, `${field}[${i}] storage key ${j}`)
      ),
    };
  });
}

export function authorizationList(v: RlpValue, field: string): SpanBatchAuthorization[] {
  return list(v, field).map((item, i) => {
    const f = `${field}[${i}]`;
    const [chainId, address, nonce, yParity, r, s] = list(item, f, 6);
    return {
      chainId: integer(chainId, U256_BYTES, `${f} chain id`),
      address: fixedBytes(address, 20, `${f} address`),
      nonce: integer(nonce, U64_BYTES, `${f} nonce`),
      yParity: Number(integer(yParity, 1, `${f} y-parity`)),
      r: integer(r, U256_BYTES, `${f} r`),
      s: integer(s, U256_BYTES, `${f} s`),
    };
  });
}
