/**
 * Length of the FastLZ (level 1) compression of some bytes, as the Fjord L1-cost function needs it
 * (specs/protocol/fjord/exec-engine.md "FastLZ Implementation": equivalent to `fastlz_compress` of
 * ariya/FastLZ at 344eb40; op-geth computes it with `FlzCompressLen`, a port of solady's `LibZip.flzCompress`).
 * Only the output length is computed, no output is produced.
 */

const HASH_LOG = 13;
const HASH_SIZE = 1 << HASH_LOG;
const MAX_DISTANCE = 0x1fff;

/** Number of bytes FastLZ level 1 emits for `data`. */
export function flzCompressLen(data: Uint8Array): number {
  const len = data.length;
  const table = new Uint32Array(HASH_SIZE);
  let n = 0;

  const u24 = (i: number) => data[i] | (data[i + 1] << 8) | (data[i + 2] << 16);
  const hash = (v: number) => (Math.imul(2654435769, v) >>> 19) & (HASH_SIZE - 1);
  // A run of literals costs one control byte per up to 32 literals.
  const literals = (r: number) => {
    n += 0x21 * Math.floor(r / 0x20);
    r %= 0x20;
    if (r !== 0) n += r + 1;
  };
  // A match costs 3 bytes per full 262-byte chunk, then 2 (short) or 3 (long) bytes.
  const match = (l: number) => {
    l--;
    n += 3 * Math.floor(l / 262);
    n += l % 262 >= 6 ? 3 : 2;
  };
  // Match length from p and q, bounded by end e. The count includes the first mismatching byte,
  // exactly as the reference loop does (it stops one step after the mismatch).
  const cmp = (p: number, q: number, e: number) => {
    let l = 0;
    for (e -= q; l < e; l++) {
      if (data[p + l] !== data[q + l]) e = 0;
    }
    return l;
  };
  const setNextHash = (ip: number) => {
    table[hash(u24(ip))] = ip;
    return ip + 1;
  };

  let anchor = 0;
  const ipLimit = len < 13 ? 0 : len - 13;
  for (let ip = anchor + 2; ip < ipLimit;) {
    let ref = 0;
    for (;;) {
      const seq = u24(ip);
      const h = hash(seq);
      ref = table[h];
      table[h] = ip;
      const distance = ip - ref;
      if (ip >= ipLimit) break;
      ip++;
      if (distance <= MAX_DISTANCE && seq === u24(ref)) break;
    }
    if (ip >= ipLimit) break;
    ip--;
    if (ip > anchor) literals(ip - anchor);
    const l = cmp(ref + 3, ip + 3, ipLimit + 9);
    match(l);
    ip = setNextHash(setNextHash(ip + l));
    anchor = ip;
  }
  literals(len - anchor);
  return n;
}
