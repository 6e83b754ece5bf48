/** The 2048-bit logs bloom of the yellow paper (section 4.3.1): three bits per address and topic. */
import { keccak256 } from "../../common/hash.ts";
import type { Log } from "../../protocol/receipt.ts";

export const BLOOM_BYTES = 256;

/** Sets the three bloom bits of `item` in `bloom`. */
export function bloomAdd(bloom: Uint8Array, item: Uint8Array): void {
  const h = keccak256(item);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i] << 8) | h[i + 1]) & 2047;
    bloom[BLOOM_BYTES - 1 - (bit >> 3)] |= 1 << (bit & 7);
  }
}

/** Bloom of a list of logs (a receipt's bloom). */
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
