/**
 * The pool's bookkeeping records: one entry per pooled transaction, one account per sender (its
 * transactions by nonce, the executable run from the state nonce), and the helpers that key and
 * order them (geth legacypool list.go, txpool.go priceHeap).
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Hex } from "../../common/bytes.ts";
import { txPoolError } from "./errors.ts";
import { TX_SLOT_SIZE } from "./options.ts";
import { effectiveTip } from "./validation.ts";

export interface PoolEntry {
  tx: TypedTransaction;
  hash: Hex;
  sender: Hex;
  nonce: bigint;
  feeCap: bigint;
  tipCap: bigint;
  /** value + gas * feeCap + L1 cost at admission. */
  cost: bigint;
  slots: number;
  local: boolean;
  seq: number;
  pending: boolean;
}

export interface Account {
  address: Hex;
  bytes: Uint8Array;
  txs: Map<bigint, PoolEntry>;
  stateNonce: bigint;
  balance: bigint;
  /** First nonce after the contiguous run that starts at stateNonce. */
  pendingEnd: bigint;
  pendingCount: number;
  totalCost: bigint;
  lastActivity: number;
}

export function numSlots(size: number): number {
  return Math.ceil(size / TX_SLOT_SIZE);
}

/**
 * Hex with the runtime's native `toHex`: one flat string. (The common bytesToHex builds a rope two
 * characters at a time, which every Map lookup and JSON answer then flattens again.)
 */
export function bytesToHex(bytes: Uint8Array): Hex {
  return `0x${bytes.toHex()}` as Hex;
}

export function hashKey(hash: Uint8Array | Hex): Hex {
  return (typeof hash === "string" ? hash.toLowerCase() : bytesToHex(hash)) as Hex;
}

/** -1, 0, 1: how `a`'s price compares to `b`'s at `baseFee` (geth priceHeap.cmp). */
export function comparePrice(a: PoolEntry, b: PoolEntry, baseFee: bigint): number {
  const ta = effectiveTip(a.tx, baseFee);
  const tb = effectiveTip(b.tx, baseFee);
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (a.feeCap !== b.feeCap) return a.feeCap < b.feeCap ? -1 : 1;
  if (a.tipCap !== b.tipCap) return a.tipCap < b.tipCap ? -1 : 1;
  return 0;
}

/** maxFeePerBlobGas of a blob transaction; undefined for other types. */
export function blobFeeCap(tx: TypedTransaction): bigint | undefined {
  return "maxFeePerBlobGas" in tx ? tx.maxFeePerBlobGas : undefined;
}

/**
 * Whether `entry` may replace `existing` (same sender and nonce): fee cap and tip strictly higher and at
 * least `priceBump` percent higher (geth legacypool list.Add); for blob transactions the blob fee cap
 * too (geth blobpool). Throws REPLACE_UNDERPRICED.
 */
export function checkReplacement(existing: PoolEntry, entry: PoolEntry, priceBump: bigint): void {
  const bump = 100n + priceBump;
  const feeThreshold = (existing.feeCap * bump) / 100n;
  const tipThreshold = (existing.tipCap * bump) / 100n;
  if (
    existing.feeCap >= entry.feeCap || existing.tipCap >= entry.tipCap ||
    entry.feeCap < feeThreshold || entry.tipCap < tipThreshold
  ) {
    throw txPoolError("REPLACE_UNDERPRICED", undefined, {
      feeCap: entry.feeCap,
      tipCap: entry.tipCap,
      minFeeCap: feeThreshold,
      minTipCap: tipThreshold,
    });
  }
  const oldBlobCap = blobFeeCap(existing.tx);
  const newBlobCap = blobFeeCap(entry.tx);
  if (oldBlobCap !== undefined && newBlobCap !== undefined) {
    const blobThreshold = (oldBlobCap * bump) / 100n;
    if (newBlobCap <= oldBlobCap || newBlobCap < blobThreshold) {
      throw txPoolError("REPLACE_UNDERPRICED", "blob fee cap not bumped", {
        blobFeeCap: newBlobCap,
        minBlobFeeCap: blobThreshold,
      });
    }
  }
}
