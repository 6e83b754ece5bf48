/**
 * The 2048-bit logs bloom (yellow paper, section 4.3.1): for each of a log's address and topics, three
 * bits from the first three byte pairs of keccak256(value). One implementation for the receipts the
 * EVM makes (execution/evm) and the log filters that read them (execution/chain).
 *
 * The bits of the last few values are kept: the logs of a block repeat their contract and event
 * topic (the 500 `Transfer`s of a block of token transfers all name the token and the same topic 0),
 * and comparing 20 or 32 bytes costs a fraction of a keccak256 (a WebAssembly call and a fresh digest).
 */
import { keccak256 } from "../common/hash.ts";
import type { Log } from "./receipt.ts";

export const BLOOM_BYTES = 256;

/** Values whose bits are kept (a ring, the oldest replaced). */
const RECENT = 8;
const recentValues: (Uint8Array | undefined)[] = new Array(RECENT).fill(undefined);
/** Per kept value: three byte indexes, then three masks. */
const recentBits = new Int32Array(RECENT * 6);
let nextSlot = 0;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = a.length - 1; i >= 0; i--) if (a[i] !== b[i]) return false;
  return true;
}

/** The slot of recentBits holding `value`'s bits (computed now when not kept). */
function slotOf(value: Uint8Array): number {
  for (let s = 0; s < RECENT; s++) {
    const kept = recentValues[s];
    if (kept !== undefined && sameBytes(kept, value)) return s;
  }
  const s = nextSlot;
  nextSlot = (nextSlot + 1) % RECENT;
  const h = keccak256(value);
  for (let i = 0; i < 3; i++) {
    const bit = ((h[2 * i] << 8) | h[2 * i + 1]) & 2047;
    recentBits[s * 6 + i] = BLOOM_BYTES - 1 - (bit >> 3);
    recentBits[s * 6 + 3 + i] = 1 << (bit & 7);
  }
  recentValues[s] = value.slice(); // a copy: the caller's array may change later
  return s;
}

/** The three (byte index, mask) pairs `value` sets in a bloom. */
export function bloomBits(value: Uint8Array): [number, number][] {
  const s = slotOf(value) * 6;
  return [0, 1, 2].map((i) => [recentBits[s + i], recentBits[s + 3 + i]]);
}

/** True when all bits are set in `bloom` (read at `offset`). */
export function bloomHas(bloom: Uint8Array, bits: [number, number][], offset = 0): boolean {
  for (const [i, mask] of bits) {
    if ((bloom[offset + i] & mask) === 0) return false;
  }
  return true;
}

/** Sets the three bloom bits of `value` in `bloom`. */
export function bloomAdd(bloom: Uint8Array, value: Uint8Array): void {
  const s = slotOf(value) * 6;
  for (let i = 0; i < 3; i++) bloom[recentBits[s + i]] |= recentBits[s + 3 + i];
}

/** The bloom of a list of logs (a receipt's bloom). */
export function logsBloom(logs: Log[]): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const log of logs) {
    bloomAdd(bloom, log.address);
    for (const t of log.topics) bloomAdd(bloom, t);
  }
  return bloom;
}

/** OR of receipt blooms (the header's bloom). */
export function orBlooms(blooms: Iterable<Uint8Array>): Uint8Array {
  const out = new Uint8Array(BLOOM_BYTES);
  for (const b of blooms) for (let i = 0; i < BLOOM_BYTES; i++) out[i] |= b[i];
  return out;
}
