/**
 * The 2048-bit logs bloom (yellow paper, section 4.3.1): for each of the log's address and
 * topics, three bits from the first three byte pairs of keccak256(value).
 */
import { keccak256 } from "../../common/hash.ts";
import type { Log } from "../../protocol/receipt.ts";

export const BLOOM_BYTES = 256;

/** The three (byte index, mask) pairs `value` sets in a bloom. */
export function bloomBits(value: Uint8Array): [number, number][] {
  const h = keccak256(value);
  const out: [number, number][] = [];
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i] << 8) | h[i + 1]) & 2047;
    out.push([BLOOM_BYTES - 1 - (bit >> 3), 1 << (bit & 7)]);
  }
  return out;
}

/** True when all bits are set in `bloom` (read at `offset`). */
export function bloomHas(bloom: Uint8Array, bits: [number, number][], offset = 0): boolean {
  for (const [i, mask] of bits) {
    if ((bloom[offset + i] & mask) === 0) return false;
  }
  return true;
}

/** Adds `value` to `bloom` in place. */
export function bloomAdd(bloom: Uint8Array, value: Uint8Array): void {
  for (const [i, mask] of bloomBits(value)) bloom[i] |= mask;
}

/** The bloom of a list of logs. */
export function logsBloom(logs: Log[]): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const log of logs) {
    bloomAdd(bloom, log.address);
    for (const t of log.topics) bloomAdd(bloom, t);
  }
  return bloom;
}
