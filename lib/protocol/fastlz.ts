/**
 * Length of the FastLZ (level 1) compression of some bytes, as the Fjord L1-cost function needs it
 * (specs/protocol/fjord/exec-engine.md "FastLZ Implementation": equivalent to `fastlz_compress` of
 * ariya/FastLZ at 344eb40; op-geth computes it with `FlzCompressLen`, a port of solady's `LibZip.flzCompress`).
 * Only the output length is computed, no output is produced.
 *
 * The 32 KiB hash table is allocated once and cleared per call (allocating it per call cost
 * 0.2-0.36 ms per transaction in block building, most of it garbage collection). JS runs one call at
 * a time per thread, so sharing it is safe.
 */

const HASH_LOG = 13;
const HASH_SIZE = 1 << HASH_LOG;
const MAX_DISTANCE = 0x1fff;

const TABLE = new Uint32Array(HASH_SIZE);

function u24(data: Uint8Array, i: number): number {
  return data[i] | (data[i + 1] << 8) | (data[i + 2] << 16);
}

function hash(v: number): number {
  return (Math.imul(2654435769, v) >>> 19) & (HASH_SIZE - 1);
}

/** Bytes for a run of `r` literals: one control byte per up to 32 literals. */
function literalsLen(r: number): number {
  let n = 0x21 * Math.floor(r / 0x20);
  r %= 0x20;
  if (r !== 0) n += r + 1;
  return n;
}

/** Bytes for a match of length `l`: 3 per full 262-byte chunk, then 2 (short) or 3 (long). */
function matchLen(l: number): number {
  l--;
  return 3 * Math.floor(l / 262) + (l % 262 >= 6 ? 3 : 2);
}

/**
 * Match length from p and q, bounded by end e. The count includes the first mismatching byte,
 * exactly as the reference loop does (it stops one step after the mismatch).
 */
function cmp(data: Uint8Array, p: number, q: number, e: number): number {
  let l = 0;
  for (e -= q; l < e; l++) {
    if (data[p + l] !== data[q + l]) e = 0;
  }
  return l;
}

/** Number of bytes FastLZ level 1 emits for `data`. */
export function flzCompressLen(data: Uint8Array): number {
  const len = data.length;
  const table = TABLE;
  table.fill(0);
  let n = 0;
  let anchor = 0;
  const ipLimit = len < 13 ? 0 : len - 13;
  for (let ip = anchor + 2; ip < ipLimit;) {
    let ref = 0;
    for (;;) {
      const seq = u24(data, ip);
      const h = hash(seq);
      ref = table[h];
      table[h] = ip;
      const distance = ip - ref;
      if (ip >= ipLimit) break;
      ip++;
      if (distance <= MAX_DISTANCE && seq === u24(data, ref)) break;
    }
    if (ip >= ipLimit) break;
    ip--;
    if (ip > anchor) n += literalsLen(ip - anchor);
    const l = cmp(data, ref + 3, ip + 3, ipLimit + 9);
    n += matchLen(l);
    ip += l;
    table[hash(u24(data, ip))] = ip;
    ip++;
    table[hash(u24(data, ip))] = ip;
    ip++;
    anchor = ip;
  }
  n += literalsLen(len - anchor);
  return n;
}
