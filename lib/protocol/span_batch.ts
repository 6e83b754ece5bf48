/**
 * Span batches (specs/protocol/delta/span-batches.md, "Span batch format"): the content of a
 * version-1 batch, `prefix ++ payload`, which carries a run of consecutive L2 blocks with their
 * transactions split into columns (signatures, recipients, RLP data, nonces, gas limits, bits).
 *
 * - `decodeSpanBatch` / `encodeSpanBatch`: the wire form (without the batch version byte).
 * - `spanBatchTxToSigned` / `spanBatchTxFromSigned`: a span transaction and its full EIP-2718 form.
 * - span_batch_singular.ts: to and from runs of singular batches (the batcher and derivation).
 *
 * Decoding accepts and rejects what op-node does (op-node/rollup/derive span_batch*.go), with one
 * difference in where: op-node reads the transaction columns first and fails later, when it derives
 * the blocks (unknown transaction type, a set-code transaction without recipient); here those fail in
 * `decodeSpanBatch`, since the decoded form is typed per transaction. Either way the batch is invalid.
 */
import { BaseError } from "../common/errors.ts";
import { bytesToBigInt } from "../common/bytes.ts";
import { rlpDecode, rlpEncode, rlpEncodeTyped, type RlpInput, type RlpValue } from "../common/rlp.ts";

/**
 * Limit on the number of blocks, of transactions per block and of transactions in total
 * (derivation.md "Protocol Parameters"; fjord/derivation.md). op-node also uses it as the byte limit
 * of one transaction's RLP data in `tx_datas`.
 */
export const MAX_SPAN_BATCH_ELEMENT_COUNT = 10_000_000;

/** One EIP-2930 access list entry. */
export interface SpanBatchAccessTuple {
  /** 20 bytes. */
  address: Uint8Array;
  /** 32 bytes each. */
  storageKeys: Uint8Array[];
}

/** One signed EIP-7702 authorization, as in the set-code transaction. */
export interface SpanBatchAuthorization {
  chainId: bigint;
  /** 20 bytes. */
  address: Uint8Array;
  nonce: bigint;
  /** 0..255 as RLP carries it (a uint8); valid signatures use 0 or 1. */
  yParity: number;
  r: bigint;
  s: bigint;
}

/** Fields every transaction has in a span batch, taken from the columns. */
interface SpanBatchTxBase {
  /** 20 bytes, or null for a contract creation (`contract_creation_bits`). */
  to: Uint8Array | null;
  nonce: bigint;
  gas: bigint;
  value: bigint;
  data: Uint8Array;
  /** `y_parity_bits`: 0 or 1. */
  yParity: number;
  r: bigint;
  s: bigint;
}

/** A legacy transaction: `rlp_encode(value, gasPrice, data)`, v from y-parity and `protected_bits`. */
export interface SpanBatchLegacyTx extends SpanBatchTxBase {
  type: 0;
  /** EIP-155: v = 2 * chainId + 35 + yParity; otherwise v = 27 + yParity. */
  protected: boolean;
  gasPrice: bigint;
}

/** An EIP-2930 transaction: `0x01 ++ rlp_encode(value, gasPrice, data, accessList)`. */
export interface SpanBatchAccessListTx extends SpanBatchTxBase {
  type: 1;
  gasPrice: bigint;
  accessList: SpanBatchAccessTuple[];
}

/** An EIP-1559 transaction: `0x02 ++ rlp_encode(value, tip, feeCap, data, access_list)`. */
export interface SpanBatchDynamicFeeTx extends SpanBatchTxBase {
  type: 2;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  accessList: SpanBatchAccessTuple[];
}

/**
 * An EIP-7702 transaction (isthmus/derivation.md "Span Batch Updates"):
 * `0x04 ++ rlp_encode(value, tip, feeCap, data, access_list, authorization_list)`. Never a contract
 * creation. value and fees are u256.
 */
export interface SpanBatchSetCodeTx extends SpanBatchTxBase {
  type: 4;
  to: Uint8Array;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  accessList: SpanBatchAccessTuple[];
  authorizationList: SpanBatchAuthorization[];
}

/** A transaction in its span batch form (no chain id; v reduced to y-parity and a protected bit). */
export type SpanBatchTx =
  | SpanBatchLegacyTx
  | SpanBatchAccessListTx
  | SpanBatchDynamicFeeTx
  | SpanBatchSetCodeTx;

/** The decoded content of a version-1 batch (span-batches.md "Span batch format"). */
export interface SpanBatch {
  /** `span_start.timestamp - genesis.l2_time` (u64). */
  relTimestamp: bigint;
  /** `span_end.l1_origin.number` (u64). */
  l1OriginNum: bigint;
  /** `span_start.parent_hash[:20]`. */
  parentCheck: Uint8Array;
  /** `span_end.l1_origin.hash[:20]`. */
  l1OriginCheck: Uint8Array;
  /** 1..MAX_SPAN_BATCH_ELEMENT_COUNT. */
  blockCount: number;
  /** One per block: true when the block changed its L1 origin. */
  originBits: boolean[];
  /** One per block: its number of transactions. */
  blockTxCounts: number[];
  /** All transactions of the span, block after block. */
  txs: SpanBatchTx[];
}

/** One block of a span batch as derivation sees it (op-node's SpanBatchElement). */
export interface SpanBatchElement {
  epochNumber: bigint;
  timestamp: bigint;
  /** EIP-2718 encoded signed transactions. */
  transactions: Uint8Array[];
}

/** An L1 block the caller knows (an L1 block reference has these fields). */
export interface SpanBatchL1Origin {
  readonly number: bigint;
  readonly hash: Uint8Array;
}

const U64_LIMIT = 1n << 64n;
const U256_LIMIT = 1n << 256n;
/** Byte sizes of the integer fields: go-ethereum decodes uint64 (8), uint8 (1), uint256 (32) and big.Int (any). */
const U64_BYTES = 8;
const U256_BYTES = 32;
const ANY_BYTES = Infinity;

function invalid(message: string): BaseError {
  return new BaseError("SPAN_BATCH_INVALID", `Cannot decode span batch: ${message}`);
}

function tooBig(message: string): BaseError {
  return new BaseError("SPAN_BATCH_TOO_BIG", `Cannot decode span batch: ${message}`, {
    meta: { limit: MAX_SPAN_BATCH_ELEMENT_COUNT },
  });
}

function encodeError(message: string): BaseError {
  return new BaseError("SPAN_BATCH_INVALID", `Cannot encode span batch: ${message}`);
}

// ---------------------------------------------------------------------------------------------
// Reading

/** A cursor over the batch content. */
class Reader {
  pos = 0;
  constructor(readonly data: Uint8Array) {}

  get remaining(): number {
    return this.data.length - this.pos;
  }

  /**
   * An unsigned Base128 varint (span-batches.md "uvarint", protobuf) read the way Go's
   * `binary.ReadUvarint` reads it, as op-node does: at most 10 bytes and 64 bits; a longer or larger
   * value overflows. Go accepts non-minimal forms (0x80 0x00 is 0), so this does too.
   */
  uvarint(field: string): bigint {
    const data = this.data;
    let low = 0; // bits 0..48, exact in a double
    let high = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= data.length) {
        throw invalid(i === 0 ? `${field} is missing` : `${field} is a truncated uvarint`);
      }
      const b = data[this.pos++];
      if (i === 9 && b > 1) throw invalid(`${field} overflows 64 bits`);
      if (i < 7) low += (b & 0x7f) * 2 ** (7 * i);
      else high |= BigInt(b & 0x7f) << BigInt(7 * i);
      if (b < 0x80) return high | BigInt(low);
    }
    throw invalid(`${field} overflows 64 bits`);
  }

  /** A count limited to MAX_SPAN_BATCH_ELEMENT_COUNT. */
  count(field: string): number {
    const v = this.uvarint(field);
    if (v > BigInt(MAX_SPAN_BATCH_ELEMENT_COUNT)) {
      throw tooBig(`${field} ${v} exceeds ${MAX_SPAN_BATCH_ELEMENT_COUNT}`);
    }
    return Number(v);
  }

  /** A view of the next `n` bytes. */
  take(n: number, field: string): Uint8Array {
    if (n > this.remaining) {
      throw invalid(`${field} needs ${n} bytes, only ${this.remaining} left`);
    }
    const out = this.data.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /**
   * A standard bitlist of `count` bits (span-batches.md: a big-endian integer left-padded with zeros
   * to whole bytes): exactly ceil(count / 8) bytes, and the padding bits must be zero (op-node
   * rejects a bitfield with more than `count` significant bits). Returns one 0/1 byte per bit.
   */
  bits(count: number, field: string): Uint8Array {
    const len = Math.ceil(count / 8);
    const buf = this.take(len, field);
    const used = count % 8;
    if (used !== 0 && buf[0] >> used !== 0) {
      throw invalid(`${field} has bits set beyond its ${count} bits`);
    }
    const out = new Uint8Array(count);
    for (let i = 0; i < count; i++) out[i] = (buf[len - 1 - (i >> 3)] >> (i & 7)) & 1;
    return out;
  }
}

/** One element of `tx_datas`: the type byte (0 for legacy) and the RLP list after it. */
function readTxData(r: Reader, index: number): { type: number; rlp: Uint8Array } {
  const field = `tx_datas[${index}]`;
  const data = r.data;
  if (r.pos >= data.length) throw invalid(`${field} is missing`);
  // EIP-2718: a first byte up to 0x7f is the type; a legacy transaction starts with its RLP list.
  let type = 0;
  if (data[r.pos] <= 0x7f) {
    type = data[r.pos++];
    // op-node reads any type byte here and fails when it builds the transaction (derive); an
    // explicit 0x00 is not a legacy transaction but an unsupported typed one.
    if (type !== 1 && type !== 2 && type !== 4) {
      throw invalid(`transaction ${index} has unsupported type ${type}`);
    }
  }
  if (r.pos >= data.length) throw invalid(`${field} has no RLP list after its type byte`);
  const start = r.pos;
  const b = data[start];
  if (b < 0xc0) throw invalid(`${field} must be an RLP list`);
  let headerLength = 1;
  let payloadLength = b - 0xc0;
  if (b > 0xf7) {
    const n = b - 0xf7;
    if (start + 1 + n > data.length) throw invalid(`${field} list length is truncated`);
    if (data[start + 1] === 0) throw invalid(`${field} list length has leading zeros`);
    payloadLength = 0;
    for (let i = 1; i <= n; i++) payloadLength = payloadLength * 256 + data[start + i];
    if (payloadLength < 56) throw invalid(`${field} uses the long form for a list of ${payloadLength} bytes`);
    headerLength = 1 + n;
  }
  // op-node reads each transaction through an RLP stream limited to MAX_SPAN_BATCH_ELEMENT_COUNT bytes.
  if (headerLength + payloadLength > MAX_SPAN_BATCH_ELEMENT_COUNT) {
    throw tooBig(`${field} is ${headerLength + payloadLength} bytes`);
  }
  return { type, rlp: r.take(headerLength + payloadLength, field) };
}

// ---------------------------------------------------------------------------------------------
// RLP fields, checked as go-ethereum's RLP decoder checks them

function list(v: RlpValue, field: string, length?: number): RlpValue[] {
  if (!Array.isArray(v)) throw invalid(`${field} must be a list`);
  if (length !== undefined && v.length !== length) {
    throw invalid(`${field} must have ${length} elements, has ${v.length}`);
  }
  return v;
}

function byteString(v: RlpValue, field: string): Uint8Array {
  if (!(v instanceof Uint8Array)) throw invalid(`${field} must be a byte string`);
  return v;
}

function fixedBytes(v: RlpValue, length: number, field: string): Uint8Array {
  const b = byteString(v, field);
  if (b.length !== length) throw invalid(`${field} must be ${length} bytes, is ${b.length}`);
  return b.slice();
}

/** A canonical RLP integer (no leading zero byte) of at most `maxBytes` bytes. */
function integer(v: RlpValue, maxBytes: number, field: string): bigint {
  const b = byteString(v, field);
  if (b.length > 0 && b[0] === 0) throw invalid(`${field} has leading zero bytes`);
  if (b.length > maxBytes) throw invalid(`${field} exceeds ${maxBytes * 8} bits`);
  return bytesToBigInt(b);
}

function accessList(v: RlpValue, field: string): SpanBatchAccessTuple[] {
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

function authorizationList(v: RlpValue, field: string): SpanBatchAuthorization[] {
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

/** The per-column values of one transaction, before its type-specific data is attached. */
interface Columns {
  to: Uint8Array | null;
  nonce: bigint;
  gas: bigint;
  yParity: number;
  r: bigint;
  s: bigint;
}

/**
 * Decodes one `tx_datas` element into a span transaction (span-batches.md `tx_datas`; the field lists
 * are those of op-node's spanBatch*TxData, go-ethereum big.Int fields unbounded, uint256 ones 32 bytes).
 */
function spanTxFromData(
  type: number,
  rlp: Uint8Array,
  c: Columns,
  protectedBit: boolean,
  index: number,
): SpanBatchTx {
  const field = `tx_datas[${index}]`;
  let fields: RlpValue;
  try {
    fields = rlpDecode(rlp);
  } catch (e) {
    throw new BaseError("SPAN_BATCH_INVALID", `Cannot decode span batch: ${field}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  switch (type) {
    case 0: {
      const [value, gasPrice, data] = list(fields, field, 3);
      return {
        type: 0,
        ...c,
        protected: protectedBit,
        value: integer(value, ANY_BYTES, `${field} value`),
        gasPrice: integer(gasPrice, ANY_BYTES, `${field} gas price`),
        data: byteString(data, `${field} data`).slice(),
      };
    }
    case 1: {
      const [value, gasPrice, data, al] = list(fields, field, 4);
      return {
        type: 1,
        ...c,
        value: integer(value, ANY_BYTES, `${field} value`),
        gasPrice: integer(gasPrice, ANY_BYTES, `${field} gas price`),
        data: byteString(data, `${field} data`).slice(),
        accessList: accessList(al, `${field} access list`),
      };
    }
    case 2: {
      const [value, tip, feeCap, data, al] = list(fields, field, 5);
      return {
        type: 2,
        ...c,
        value: integer(value, ANY_BYTES, `${field} value`),
        maxPriorityFeePerGas: integer(tip, ANY_BYTES, `${field} max priority fee`),
        maxFeePerGas: integer(feeCap, ANY_BYTES, `${field} max fee`),
        data: byteString(data, `${field} data`).slice(),
        accessList: accessList(al, `${field} access list`),
      };
    }
    case 4: {
      const [value, tip, feeCap, data, al, auths] = list(fields, field, 6);
      // op-node: "to address is required for SetCodeTx" (isthmus/derivation.md, EIP-7702).
      if (c.to === null) throw invalid(`transaction ${index} is a set-code transaction without recipient`);
      return {
        type: 4,
        ...c,
        to: c.to,
        value: integer(value, U256_BYTES, `${field} value`),
        maxPriorityFeePerGas: integer(tip, U256_BYTES, `${field} max priority fee`),
        maxFeePerGas: integer(feeCap, U256_BYTES, `${field} max fee`),
        data: byteString(data, `${field} data`).slice(),
        accessList: accessList(al, `${field} access list`),
        authorizationList: authorizationList(auths, `${field} authorization list`),
      };
    }
    default:
      throw invalid(`transaction ${index} has unsupported type ${type}`);
  }
}

/**
 * Decodes the content of a version-1 batch (the bytes after the batch version byte), in the order
 * of span-batches.md "Span batch format": prefix (rel_timestamp, l1_origin_num, parent_check,
 * l1_origin_check), then payload (block_count, origin_bits, block_tx_counts, and the transaction
 * columns contract_creation_bits, y_parity_bits, tx_sigs, tx_tos, tx_datas, tx_nonces, tx_gases,
 * protected_bits). Bytes after the last column are ignored, as op-node ignores them.
 * Throws BaseError SPAN_BATCH_INVALID, or SPAN_BATCH_TOO_BIG past MAX_SPAN_BATCH_ELEMENT_COUNT
 * ("Span Batch Size Limits"); every limit is checked before the memory it bounds is allocated.
 */
export function decodeSpanBatch(content: Uint8Array): SpanBatch {
  const r = new Reader(content);
  const relTimestamp = r.uvarint("rel_timestamp");
  const l1OriginNum = r.uvarint("l1_origin_num");
  const parentCheck = r.take(20, "parent_check").slice();
  const l1OriginCheck = r.take(20, "l1_origin_check").slice();

  const blockCount = r.count("block_count");
  if (blockCount === 0) throw invalid("block_count is 0 (empty span batches are invalid)");
  const originBits = Array.from(r.bits(blockCount, "origin_bits"), (b) => b === 1);
  const blockTxCounts: number[] = [];
  let total = 0;
  for (let i = 0; i < blockCount; i++) {
    const n = r.count(`block_tx_counts[${i}]`);
    blockTxCounts.push(n);
    total += n;
  }
  if (total > MAX_SPAN_BATCH_ELEMENT_COUNT) {
    throw tooBig(`the span has ${total} transactions, more than ${MAX_SPAN_BATCH_ELEMENT_COUNT}`);
  }

  const creationBits = r.bits(total, "contract_creation_bits");
  const yParityBits = r.bits(total, "y_parity_bits");
  const sigs = r.take(64 * total, "tx_sigs");
  let creations = 0;
  for (let i = 0; i < total; i++) creations += creationBits[i];
  const tos = r.take(20 * (total - creations), "tx_tos");
  const datas: { type: number; rlp: Uint8Array }[] = [];
  let legacyCount = 0;
  for (let i = 0; i < total; i++) {
    const d = readTxData(r, i);
    if (d.type === 0) legacyCount++;
    datas.push(d);
  }
  const nonces: bigint[] = [];
  for (let i = 0; i < total; i++) nonces.push(r.uvarint(`tx_nonces[${i}]`));
  const gases: bigint[] = [];
  for (let i = 0; i < total; i++) gases.push(r.uvarint(`tx_gases[${i}]`));
  const protectedBits = r.bits(legacyCount, "protected_bits");

  const txs: SpanBatchTx[] = [];
  let toIndex = 0;
  let legacyIndex = 0;
  for (let i = 0; i < total; i++) {
    let to: Uint8Array | null = null;
    if (creationBits[i] === 0) {
      to = tos.slice(20 * toIndex, 20 * toIndex + 20);
      toIndex++;
    }
    const columns: Columns = {
      to,
      nonce: nonces[i],
      gas: gases[i],
      yParity: yParityBits[i],
      r: bytesToBigInt(sigs.subarray(64 * i, 64 * i + 32)),
      s: bytesToBigInt(sigs.subarray(64 * i + 32, 64 * i + 64)),
    };
    const { type, rlp } = datas[i];
    const protectedBit = type === 0 && protectedBits[legacyIndex++] === 1;
    txs.push(spanTxFromData(type, rlp, columns, protectedBit, i));
  }
  return {
    relTimestamp,
    l1OriginNum,
    parentCheck,
    l1OriginCheck,
    blockCount,
    originBits,
    blockTxCounts,
    txs,
  };
}

// ---------------------------------------------------------------------------------------------
// Writing

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

function accessListInput(al: SpanBatchAccessTuple[], field: string): RlpInput {
  return al.map((t, i) => [
    checkLength(t.address, 20, `${field}[${i}] address`),
    t.storageKeys.map((k, j) => checkLength(k, 32, `${field}[${i}] storage key ${j}`)),
  ]);
}

function authorizationListInput(auths: SpanBatchAuthorization[], field: string): RlpInput {
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
