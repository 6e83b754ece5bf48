/**
 * Span batches (specs/protocol/delta/span-batches.md, "Span batch format"): the content of a
 * version-1 batch, `prefix ++ payload`, which carries a run of consecutive L2 blocks with their
 * transactions split into columns (signatures, recipients, RLP data, nonces, gas limits, bits).
 *
 * - here: the types and `decodeSpanBatch`, the wire form (without the batch version byte);
 * - span_batch_encode.ts: `encodeSpanBatch`;
 * - span_batch_tx.ts: `spanBatchTxToSigned` / `spanBatchTxFromSigned`, a span transaction and its full
 *   EIP-2718 form;
 * - span_batch_singular.ts: to and from runs of singular batches (the batcher and derivation).
 *
 * Decoding accepts and rejects what op-node does (op-node/rollup/derive span_batch*.go), with one
 * difference in where: op-node reads the transaction columns first and fails later, when it derives
 * the blocks (unknown transaction type, a set-code transaction without recipient); here those fail in
 * `decodeSpanBatch`, since the decoded form is typed per transaction. Either way the batch is invalid.
 */
import { BaseError } from "../common/errors.ts";
import { bytesToBigInt } from "../common/bytes.ts";
import { rlpDecode, type RlpValue } from "../common/rlp.ts";
import {
  accessList,
  ANY_BYTES,
  authorizationList,
  byteString,
  integer,
  invalid,
  list,
  MAX_SPAN_BATCH_ELEMENT_COUNT,
  tooBig,
  U256_BYTES,
} from "./span_batch_fields.ts";

export { MAX_SPAN_BATCH_ELEMENT_COUNT } from "./span_batch_fields.ts";

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
