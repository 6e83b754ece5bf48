/**
 * Storage encodings of the chain: header RLP decoding, block bodies, stored receipts (a version
 * byte, then RLP) and the per-block log index (fixed prefix for a cheap bloom check, then RLP).
 */
import { bytesToBigInt } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { rlpDecode, rlpEncode, type RlpInput } from "../../common/rlp.ts";
import { type Block, type Header, headerFields } from "../../protocol/block.ts";
import type { Log } from "../../protocol/receipt.ts";
import { BLOOM_BYTES } from "./bloom.ts";
import type { StoredReceipt } from "./types.ts";

type Nested = Uint8Array | Nested[];

function bytesAt(list: Nested[], i: number, what: string): Uint8Array {
  const v = list[i];
  if (!(v instanceof Uint8Array)) {
    throw new BaseError("CHAIN_CORRUPT", `Cannot decode ${what}: field ${i} is not bytes`);
  }
  return v;
}

function listAt(list: Nested[], i: number, what: string): Nested[] {
  const v = list[i];
  if (!Array.isArray(v)) {
    throw new BaseError("CHAIN_CORRUPT", `Cannot decode ${what}: field ${i} is not a list`);
  }
  return v;
}

function asList(v: Nested, what: string): Nested[] {
  if (!Array.isArray(v)) throw new BaseError("CHAIN_CORRUPT", `Cannot decode ${what}: not a list`);
  return v;
}

/** A small unsigned integer from minimal big-endian bytes. */
function num(b: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < b.length; i++) n = n * 256 + b[i];
  return n;
}

/** Decodes a consensus header RLP (the inverse of encodeHeader). */
export function decodeHeader(rlp: Uint8Array): Header {
  return headerFromFields(asList(rlpDecode(rlp) as Nested, "header"));
}

/** A header from its decoded RLP list. */
function headerFromFields(f: Nested[]): Header {
  if (f.length < 15) throw new BaseError("CHAIN_CORRUPT", `Cannot decode header: ${f.length} fields`);
  const b = (i: number) => bytesAt(f, i, "header");
  const h: Header = {
    parentHash: b(0),
    ommersHash: b(1),
    coinbase: b(2),
    stateRoot: b(3),
    transactionsRoot: b(4),
    receiptsRoot: b(5),
    logsBloom: b(6),
    difficulty: bytesToBigInt(b(7)),
    number: bytesToBigInt(b(8)),
    gasLimit: bytesToBigInt(b(9)),
    gasUsed: bytesToBigInt(b(10)),
    timestamp: bytesToBigInt(b(11)),
    extraData: b(12),
    mixHash: b(13),
    nonce: b(14),
  };
  if (f.length > 15) h.baseFeePerGas = bytesToBigInt(b(15));
  if (f.length > 16) h.withdrawalsRoot = b(16);
  if (f.length > 17) h.blobGasUsed = bytesToBigInt(b(17));
  if (f.length > 18) h.excessBlobGas = bytesToBigInt(b(18));
  if (f.length > 19) h.parentBeaconBlockRoot = b(19);
  if (f.length > 20) h.requestsHash = b(20);
  return h;
}

/** rlp([txs]) or rlp([txs, withdrawals]). */
export function encodeBody(block: Block): Uint8Array {
  return rlpEncode(
    block.withdrawals === undefined ? [block.transactions] : [block.transactions, block.withdrawals],
  );
}

export function decodeBody(rlp: Uint8Array): Pick<Block, "transactions" | "withdrawals"> {
  const f = asList(rlpDecode(rlp) as Nested, "body");
  const transactions = listAt(f, 0, "body").map((t, i) => {
    if (!(t instanceof Uint8Array)) {
      throw new BaseError("CHAIN_CORRUPT", `Cannot decode body: tx ${i} is a list`);
    }
    return t;
  });
  if (f.length < 2) return { transactions };
  const withdrawals = listAt(f, 1, "body").map((w) => asList(w, "withdrawal") as Uint8Array[]);
  return { transactions, withdrawals };
}

/**
 * The consensus RLP of a block (geth types.Block EncodeRLP): rlp([header, transactions, ommers,
 * withdrawals?]) with typed transactions as byte strings and legacy ones as lists.
 */
export function encodeBlock(block: Block): Uint8Array {
  const txs: RlpInput[] = block.transactions.map((t) => (t.length > 0 && t[0] >= 0xc0 ? rlpDecode(t) : t));
  const fields: RlpInput[] = [headerFields(block.header), txs, []];
  if (block.withdrawals !== undefined) fields.push(block.withdrawals);
  return rlpEncode(fields);
}

/**
 * Decodes a block's consensus RLP (encodeBlock's inverse; debug_traceBlock, chain import). Throws
 * INVALID_BLOCK_RLP on anything else: a header that is not one, a transaction that is neither a typed
 * envelope nor a legacy list, uncles (none exist after the Merge).
 */
export function decodeBlock(rlp: Uint8Array): Block {
  try {
    const f = asList(rlpDecode(rlp) as Nested, "block");
    if (f.length !== 3 && f.length !== 4) {
      throw new BaseError("INVALID_BLOCK_RLP", `a block has 3 or 4 fields, not ${f.length}`);
    }
    const header = headerFromFields(listAt(f, 0, "block header"));
    const transactions = listAt(f, 1, "block transactions").map((t, i) => {
      if (Array.isArray(t)) return rlpEncode(t);
      if (t.length === 0 || t[0] >= 0x80) {
        throw new BaseError(
          "INVALID_BLOCK_RLP",
          `transaction ${i} is neither a typed envelope nor a legacy list`,
        );
      }
      return t;
    });
    if (listAt(f, 2, "block uncles").length !== 0) {
      throw new BaseError("INVALID_BLOCK_RLP", "the block has uncles");
    }
    const block: Block = { header, transactions };
    if (f.length === 4) {
      block.withdrawals = listAt(f, 3, "block withdrawals").map((w) => {
        const list = asList(w, "withdrawal");
        if (list.length !== 4 || !list.every((x) => x instanceof Uint8Array)) {
          throw new BaseError("INVALID_BLOCK_RLP", "a withdrawal is a list of 4 byte strings");
        }
        return list as Uint8Array[];
      });
    }
    return block;
  } catch (e) {
    if (e instanceof BaseError && e.code === "INVALID_BLOCK_RLP") {
      throw new BaseError("INVALID_BLOCK_RLP", `Cannot decode block: ${e.message}`, { cause: e });
    }
    const message = (e as Error).message.replace(/^Cannot decode /, "");
    throw new BaseError("INVALID_BLOCK_RLP", `Cannot decode block: ${message}`, { cause: e });
  }
}

const RECEIPTS_VERSION = 1;
/** Order of the optional receipt fields; bit i of the presence mask is OPTIONAL_FIELDS[i]. */
const OPTIONAL_FIELDS = [
  "depositNonce",
  "depositReceiptVersion",
  "l1GasUsed",
  "l1GasPrice",
  "l1Fee",
  "l1FeeScalar",
  "l1BaseFeeScalar",
  "l1BlobBaseFee",
  "l1BlobBaseFeeScalar",
  "operatorFeeScalar",
  "operatorFeeConstant",
  // Appended (older records have these bits clear): Jovian and EIP-4844 receipt fields.
  "daFootprintGasScalar",
  "blobGasUsed",
  "blobGasPrice",
] as const;

const EMPTY = new Uint8Array();
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

function isZero(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}

/** Version byte 1, then rlp of one field list per receipt. A zero bloom is stored empty. */
export function encodeReceipts(receipts: StoredReceipt[]): Uint8Array {
  // Integers go in as bigints: rlpEncode writes their minimal big-endian bytes (0 as empty).
  const list: RlpInput[] = receipts.map((r) => {
    let mask = 0;
    const optional: RlpInput[] = [];
    for (let i = 0; i < OPTIONAL_FIELDS.length; i++) {
      const v = r[OPTIONAL_FIELDS[i]];
      if (v === undefined) continue;
      mask |= 1 << i;
      optional.push(typeof v === "string" ? utf8.encode(v) : v);
    }
    return [
      BigInt(r.type),
      BigInt(r.status),
      r.cumulativeGasUsed,
      isZero(r.logsBloom) ? EMPTY : r.logsBloom,
      r.logs.map((l) => [l.address, l.topics, l.data]),
      r.gasUsed,
      r.contractAddress ?? EMPTY,
      r.from,
      r.to ?? EMPTY,
      r.effectiveGasPrice,
      r.txHash,
      BigInt(r.logIndexStart),
      BigInt(mask),
      optional,
    ];
  });
  const body = rlpEncode(list);
  const out = new Uint8Array(body.length + 1);
  out[0] = RECEIPTS_VERSION;
  out.set(body, 1);
  return out;
}

function decodeLogs(v: Nested[], what: string): Log[] {
  return v.map((l) => {
    const f = asList(l, what);
    return {
      address: bytesAt(f, 0, what),
      topics: listAt(f, 1, what) as Uint8Array[],
      data: bytesAt(f, 2, what),
    };
  });
}

export function decodeReceipts(raw: Uint8Array): StoredReceipt[] {
  if (raw.length === 0 || raw[0] !== RECEIPTS_VERSION) {
    throw new BaseError("CHAIN_CORRUPT", `Cannot decode receipts: unknown version ${raw[0]}`);
  }
  const list = asList(rlpDecode(raw.subarray(1)) as Nested, "receipts");
  return list.map((item) => {
    const f = asList(item, "receipt");
    const b = (i: number) => bytesAt(f, i, "receipt");
    const bloom = b(3);
    const status = num(b(1));
    const contract = b(6);
    const to = b(8);
    const r: StoredReceipt = {
      type: num(b(0)),
      status: status === 1 ? 1 : 0,
      cumulativeGasUsed: bytesToBigInt(b(2)),
      logsBloom: bloom.length === 0 ? new Uint8Array(BLOOM_BYTES) : bloom,
      logs: decodeLogs(listAt(f, 4, "receipt"), "log"),
      gasUsed: bytesToBigInt(b(5)),
      contractAddress: contract.length === 0 ? null : contract,
      from: b(7),
      to: to.length === 0 ? null : to,
      effectiveGasPrice: bytesToBigInt(b(9)),
      txHash: b(10),
      logIndexStart: num(b(11)),
    };
    const mask = num(b(12));
    const optional = listAt(f, 13, "receipt");
    let j = 0;
    OPTIONAL_FIELDS.forEach((name, i) => {
      if ((mask & (1 << i)) === 0) return;
      const v = bytesAt(optional, j++, "receipt");
      if (name === "l1FeeScalar") r.l1FeeScalar = fromUtf8.decode(v);
      else r[name] = bytesToBigInt(v);
    });
    return r;
  });
}

/** One canonical block's logs for eth_getLogs: fixed header (hash, timestamp, bloom) then the logs. */
export interface LogIndexEntry {
  blockHash: Uint8Array;
  timestamp: bigint;
  bloom: Uint8Array;
  /** Per transaction with logs: index, hash, first log index, logs. */
  txs: { index: number; hash: Uint8Array; logIndexStart: number; logs: Log[] }[];
}

/** Offset of the bloom inside an encoded log-index entry. */
export const LOG_INDEX_BLOOM_OFFSET = 40;
const LOG_INDEX_BODY_OFFSET = LOG_INDEX_BLOOM_OFFSET + BLOOM_BYTES;

/**
 * Binary layout (decoded with subarrays, no RLP: eth_getLogs reads thousands per call):
 * blockHash(32) timestamp(u64) bloom(256) txCount(u32), then per tx: index(u32) hash(32)
 * logIndexStart(u32) logCount(u32), then per log: address(20) topicCount(u8) topics(32 each)
 * dataLength(u32) data.
 */
export function encodeLogIndex(e: LogIndexEntry): Uint8Array {
  let size = LOG_INDEX_BODY_OFFSET + 4;
  for (const tx of e.txs) {
    size += 44;
    for (const l of tx.logs) size += 25 + 32 * l.topics.length + l.data.length;
  }
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  out.set(e.blockHash, 0);
  dv.setBigUint64(32, e.timestamp);
  out.set(e.bloom, LOG_INDEX_BLOOM_OFFSET);
  let o = LOG_INDEX_BODY_OFFSET;
  dv.setUint32(o, e.txs.length);
  o += 4;
  for (const tx of e.txs) {
    dv.setUint32(o, tx.index);
    out.set(tx.hash, o + 4);
    dv.setUint32(o + 36, tx.logIndexStart);
    dv.setUint32(o + 40, tx.logs.length);
    o += 44;
    for (const l of tx.logs) {
      if (l.address.length !== 20 || l.topics.length > 255 || l.topics.some((t) => t.length !== 32)) {
        throw new BaseError(
          "CHAIN_BAD_BLOCK",
          "Cannot index log: address must be 20 bytes and topics 32 bytes",
        );
      }
      out.set(l.address, o);
      out[o + 20] = l.topics.length;
      o += 21;
      for (const t of l.topics) {
        out.set(t, o);
        o += 32;
      }
      dv.setUint32(o, l.data.length);
      out.set(l.data, o + 4);
      o += 4 + l.data.length;
    }
  }
  return out;
}

export function decodeLogIndex(raw: Uint8Array): LogIndexEntry {
  const corrupt = () => new BaseError("CHAIN_CORRUPT", `Cannot decode log index: length is ${raw.length}`);
  if (raw.length < LOG_INDEX_BODY_OFFSET + 4) throw corrupt();
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  let o = LOG_INDEX_BODY_OFFSET;
  const txCount = dv.getUint32(o);
  o += 4;
  const txs: LogIndexEntry["txs"] = [];
  for (let t = 0; t < txCount; t++) {
    if (o + 44 > raw.length) throw corrupt();
    const index = dv.getUint32(o);
    const hash = raw.subarray(o + 4, o + 36);
    const logIndexStart = dv.getUint32(o + 36);
    const logCount = dv.getUint32(o + 40);
    o += 44;
    const logs: Log[] = [];
    for (let i = 0; i < logCount; i++) {
      if (o + 21 > raw.length) throw corrupt();
      const address = raw.subarray(o, o + 20);
      const topicCount = raw[o + 20];
      o += 21;
      const topics: Uint8Array[] = [];
      for (let k = 0; k < topicCount; k++) {
        topics.push(raw.subarray(o, o + 32));
        o += 32;
      }
      if (o + 4 > raw.length) throw corrupt();
      const len = dv.getUint32(o);
      if (o + 4 + len > raw.length) throw corrupt();
      logs.push({ address, topics, data: raw.subarray(o + 4, o + 4 + len) });
      o += 4 + len;
    }
    txs.push({ index, hash, logIndexStart, logs });
  }
  return {
    blockHash: raw.subarray(0, 32),
    timestamp: dv.getBigUint64(32),
    bloom: raw.subarray(LOG_INDEX_BLOOM_OFFSET, LOG_INDEX_BODY_OFFSET),
    txs,
  };
}
