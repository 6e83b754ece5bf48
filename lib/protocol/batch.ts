/**
 * Sequencer batches (specs/protocol/derivation.md "Batch Format"): `batch_version ++ content`.
 * Version 0 is the singular batch, `rlp([parent_hash, epoch_number, epoch_hash, timestamp,
 * transaction_list])`; version 1 is the span batch (delta/span-batches.md, span_batch.ts). Unknown
 * versions and malformed contents make the batch invalid. Content after a complete RLP item is
 * ignored (derivation.md: "extra content does not invalidate the decoded batch").
 */
import { BaseError } from "../common/errors.ts";
import { bytesToBigInt } from "../common/bytes.ts";
import { rlpDecode, rlpEncodeTyped, type RlpValue } from "../common/rlp.ts";
import { decodeSpanBatch, type SpanBatch } from "./span_batch.ts";

export const SINGULAR_BATCH_TYPE = 0;
export const SPAN_BATCH_TYPE = 1;

/** One L2 block's batch. */
export interface SingularBatch {
  parentHash: Uint8Array;
  epochNumber: bigint;
  epochHash: Uint8Array;
  timestamp: bigint;
  /** EIP-2718 encoded transactions (no deposits). */
  transactions: Uint8Array[];
}

function bad(message: string): BaseError {
  return new BaseError("BATCH_INVALID", `Cannot decode batch: ${message}`);
}

/** Encodes a singular batch with its version byte. */
export function encodeSingularBatch(b: SingularBatch): Uint8Array {
  return rlpEncodeTyped(SINGULAR_BATCH_TYPE, [
    b.parentHash,
    b.epochNumber,
    b.epochHash,
    b.timestamp,
    b.transactions,
  ]);
}

function hash32(v: RlpValue, field: string): Uint8Array {
  if (!(v instanceof Uint8Array) || v.length !== 32) throw bad(`${field} must be 32 bytes`);
  return v.slice();
}

function uint64(v: RlpValue, field: string): bigint {
  if (!(v instanceof Uint8Array)) throw bad(`${field} must be a byte string`);
  if (v.length > 8) throw bad(`${field} exceeds 64 bits`);
  if (v.length > 0 && v[0] === 0) throw bad(`${field} has leading zero bytes`);
  return bytesToBigInt(v);
}

/**
 * Decodes the content of a version-0 batch (without its version byte): the RLP list must be complete;
 * bytes after it are ignored.
 */
export function decodeSingularBatch(content: Uint8Array): SingularBatch {
  let item: RlpValue;
  try {
    item = rlpDecode(content.subarray(0, rlpItemLength(content)));
  } catch (e) {
    throw bad((e as Error).message);
  }
  if (!Array.isArray(item) || item.length !== 5) throw bad("a singular batch is a list of 5 fields");
  const [parentHash, epochNumber, epochHash, timestamp, txs] = item;
  if (!Array.isArray(txs)) throw bad("transaction_list must be a list");
  // Empty and deposit transactions decode; the batch queue drops such batches (derivation.md "Batch Queue").
  const transactions = txs.map((t, i) => {
    if (!(t instanceof Uint8Array)) throw bad(`transaction ${i} must be a byte string`);
    return t.slice();
  });
  return {
    parentHash: hash32(parentHash, "parent_hash"),
    epochNumber: uint64(epochNumber, "epoch_number"),
    epochHash: hash32(epochHash, "epoch_hash"),
    timestamp: uint64(timestamp, "timestamp"),
    transactions,
  };
}

/** A batch read from a channel, by its version. */
export type DecodedBatch =
  | { kind: "singular"; batch: SingularBatch }
  | { kind: "span"; batch: SpanBatch };

/**
 * Decodes one batch of a channel (`batch_version ++ content`): version 0 singular, 1 span
 * (delta/span-batches.md; whether Delta is active is the batch queue's rule). Throws BATCH_INVALID for
 * an empty batch or an unknown version, and the codec's error for malformed content.
 */
export function decodeBatch(data: Uint8Array): DecodedBatch {
  if (data.length === 0) throw bad("empty");
  if (data[0] === SINGULAR_BATCH_TYPE) {
    return { kind: "singular", batch: decodeSingularBatch(data.subarray(1)) };
  }
  if (data[0] === SPAN_BATCH_TYPE) return { kind: "span", batch: decodeSpanBatch(data.subarray(1)) };
  throw bad(`unknown batch version ${data[0]}`);
}

/** The length of the RLP item at the start of `data` (header and payload); throws when truncated. */
export function rlpItemLength(data: Uint8Array): number {
  if (data.length === 0) throw bad("no RLP item");
  const b = data[0];
  let total: number;
  if (b < 0x80) total = 1;
  else if (b <= 0xb7) total = 1 + (b - 0x80);
  else if (b < 0xc0 || b > 0xf7) {
    const n = b < 0xc0 ? b - 0xb7 : b - 0xf7;
    if (data.length < 1 + n) throw bad("truncated RLP length");
    let len = 0;
    for (let i = 1; i <= n; i++) len = len * 256 + data[i];
    total = 1 + n + len;
  } else total = 1 + (b - 0xc0);
  if (total > data.length) throw bad(`RLP item of ${total} bytes, only ${data.length} available`);
  return total;
}
