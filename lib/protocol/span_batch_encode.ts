/**
 * Span batch encoding (specs/protocol/delta/span-batches.md "Span batch format"): `encodeSpanBatch`
 * writes the content of a version-1 batch (without the version byte); span_batch.ts decodes it.
 * Values out of range for their field are refused with SPAN_BATCH_INVALID naming the field.
 */
import { rlpEncode, rlpEncodeTyped, type RlpInput } from "../common/rlp.ts";
import type {
  SpanBatch,
  SpanBatchAccessTuple,
  SpanBatchAuthorization,
  SpanBatchLegacyTx,
  SpanBatchTx,
} from "./span_batch.ts";
import {
  ANY_BYTES,
  encodeError,
  MAX_SPAN_BATCH_ELEMENT_COUNT,
  U256_BYTES,
  U256_LIMIT,
  U64_BYTES,
  U64_LIMIT,
} from "./span_batch_fields.ts";

/** Appends bytes into one growing buffer. */
class Writer {
  private buf = new Uint8Array(256);
  private len = 0;

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  /** The minimal uvarint of `v` (Go's binary.PutUvarint). */
  uvarint(v: bigint | number, field: string): void {
    let x = BigInt(v);
    if (x < 0n || x >= U64_LIMIT) throw encodeError(`${field} ${x} is not a uint64`);
    this.reserve(10);
    while (x >= 0x80n) {
      this.buf[this.len++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.buf[this.len++] = Number(x);
  }

  /** A standard bitlist of `bits.length` bits. */
  bits(bits: ArrayLike<boolean | number>): void {
    const len = Math.ceil(bits.length / 8);
    this.reserve(len);
    const start = this.len;
    this.buf.fill(0, start, start + len);
    for (let i = 0; i < bits.length; i++) {
      if (bits[i]) this.buf[start + len - 1 - (i >> 3)] |= 1 << (i & 7);
    }
    this.len += len;
  }

  /** `v` as 32 big-endian bytes. */
  u256(v: bigint, field: string): void {
    if (v < 0n || v >= U256_LIMIT) throw encodeError(`${field} is not a uint256`);
    this.reserve(32);
    for (let i = 31; i >= 0; i--) {
      this.buf[this.len + i] = Number(v & 0xffn);
      v >>= 8n;
    }
    this.len += 32;
  }

  result(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

function checkLength(b: Uint8Array, length: number, field: string): Uint8Array {
  if (!(b instanceof Uint8Array) || b.length !== length) {
    throw encodeError(`${field} must be ${length} bytes`);
  }
  return b;
}

function checkInteger(v: bigint, maxBytes: number, field: string): bigint {
  if (typeof v !== "bigint" || v < 0n || (maxBytes !== ANY_BYTES && v >= 1n << BigInt(8 * maxBytes))) {
    throw encodeError(
      `${field} is not an unsigned ${maxBytes === ANY_BYTES ? "" : `${maxBytes * 8}-bit `}integer`,
    );
  }
  return v;
}

function checkBit(v: number, field: string): number {
  if (v !== 0 && v !== 1) throw encodeError(`${field} must be 0 or 1`);
  return v;
}

export function accessListInput(al: SpanBatchAccessTuple[], field: string): RlpInput {
  return al.map((t, i) => [
    checkLength(t.address, 20, `${field}[${i}] address`),
    t.storageKeys.map((k, j) => checkLength(k, 32, `${field}[${i}] storage key ${j}`)),
  ]);
}

export function authorizationListInput(auths: SpanBatchAuthorization[], field: string): RlpInput {
  return auths.map((a, i) => {
    const f = `${field}[${i}]`;
    if (!Number.isInteger(a.yParity) || a.yParity < 0 || a.yParity > 255) {
      throw encodeError(`${f} y-parity must be a uint8`);
    }
    return [
      checkInteger(a.chainId, U256_BYTES, `${f} chain id`),
      checkLength(a.address, 20, `${f} address`),
      checkInteger(a.nonce, U64_BYTES, `${f} nonce`),
      BigInt(a.yParity),
      checkInteger(a.r, U256_BYTES, `${f} r`),
      checkInteger(a.s, U256_BYTES, `${f} s`),
    ];
  });
}

/** The `tx_datas` element of a span transaction (span-batches.md; isthmus/derivation.md for type 4). */
function spanTxData(tx: SpanBatchTx, index: number): Uint8Array {
  const f = `transaction ${index}`;
  switch (tx.type) {
    case 0:
      return rlpEncode([
        checkInteger(tx.value, ANY_BYTES, `${f} value`),
        checkInteger(tx.gasPrice, ANY_BYTES, `${f} gas price`),
        tx.data,
      ]);
    case 1:
      return rlpEncodeTyped(1, [
        checkInteger(tx.value, ANY_BYTES, `${f} value`),
        checkInteger(tx.gasPrice, ANY_BYTES, `${f} gas price`),
        tx.data,
        accessListInput(tx.accessList, `${f} access list`),
      ]);
    case 2:
      return rlpEncodeTyped(2, [
        checkInteger(tx.value, ANY_BYTES, `${f} value`),
        checkInteger(tx.maxPriorityFeePerGas, ANY_BYTES, `${f} max priority fee`),
        checkInteger(tx.maxFeePerGas, ANY_BYTES, `${f} max fee`),
        tx.data,
        accessListInput(tx.accessList, `${f} access list`),
      ]);
    case 4:
      if (tx.to === null) throw encodeError(`${f} is a set-code transaction without recipient`);
      return rlpEncodeTyped(4, [
        checkInteger(tx.value, U256_BYTES, `${f} value`),
        checkInteger(tx.maxPriorityFeePerGas, U256_BYTES, `${f} max priority fee`),
        checkInteger(tx.maxFeePerGas, U256_BYTES, `${f} max fee`),
        tx.data,
        accessListInput(tx.accessList, `${f} access list`),
        authorizationListInput(tx.authorizationList, `${f} authorization list`),
      ]);
    default:
      throw encodeError(`${f} has unsupported type ${(tx as { type: unknown }).type}`);
  }
}

/**
 * Encodes a span batch as the content of a version-1 batch (without the version byte), in the
 * layout of span-batches.md "Span batch format". Checks what decoding checks: 1 to
 * MAX_SPAN_BATCH_ELEMENT_COUNT blocks, one origin bit and one tx count per block, counts that add
 * up to `txs.length`, field sizes. Throws BaseError SPAN_BATCH_INVALID "Cannot encode span batch: ...".
 */
export function encodeSpanBatch(batch: SpanBatch): Uint8Array {
  const { blockCount, originBits, blockTxCounts, txs } = batch;
  if (!Number.isInteger(blockCount) || blockCount < 1 || blockCount > MAX_SPAN_BATCH_ELEMENT_COUNT) {
    throw encodeError(`block count ${blockCount} is not in 1..${MAX_SPAN_BATCH_ELEMENT_COUNT}`);
  }
  if (originBits.length !== blockCount) {
    throw encodeError(`${originBits.length} origin bits for ${blockCount} blocks`);
  }
  if (blockTxCounts.length !== blockCount) {
    throw encodeError(`${blockTxCounts.length} block tx counts for ${blockCount} blocks`);
  }
  let total = 0;
  for (const n of blockTxCounts) {
    if (!Number.isInteger(n) || n < 0 || n > MAX_SPAN_BATCH_ELEMENT_COUNT) {
      throw encodeError(`block tx count ${n} is not in 0..${MAX_SPAN_BATCH_ELEMENT_COUNT}`);
    }
    total += n;
  }
  if (total !== txs.length) {
    throw encodeError(`block tx counts add up to ${total}, there are ${txs.length} txs`);
  }
  if (total > MAX_SPAN_BATCH_ELEMENT_COUNT) throw encodeError(`${total} transactions exceed the limit`);

  const w = new Writer();
  w.uvarint(batch.relTimestamp, "rel_timestamp");
  w.uvarint(batch.l1OriginNum, "l1_origin_num");
  w.bytes(checkLength(batch.parentCheck, 20, "parent_check"));
  w.bytes(checkLength(batch.l1OriginCheck, 20, "l1_origin_check"));
  w.uvarint(blockCount, "block_count");
  w.bits(originBits);
  for (const n of blockTxCounts) w.uvarint(n, "block tx count");

  w.bits(txs.map((tx) => tx.to === null));
  w.bits(txs.map((tx, i) => checkBit(tx.yParity, `transaction ${i} y-parity`)));
  txs.forEach((tx, i) => {
    w.u256(tx.r, `transaction ${i} r`);
    w.u256(tx.s, `transaction ${i} s`);
  });
  txs.forEach((tx, i) => {
    if (tx.to !== null) w.bytes(checkLength(tx.to, 20, `transaction ${i} to`));
  });
  txs.forEach((tx, i) => w.bytes(spanTxData(tx, i)));
  txs.forEach((tx, i) => w.uvarint(tx.nonce, `transaction ${i} nonce`));
  txs.forEach((tx, i) => w.uvarint(tx.gas, `transaction ${i} gas`));
  w.bits(txs.filter((tx) => tx.type === 0).map((tx) => (tx as SpanBatchLegacyTx).protected));
  return w.result();
}

// ---------------------------------------------------------------------------------------------
// Full transactions
