/** 256-bit EVM words to and from bytes through DataView 64-bit limbs (no hex strings). */

/** Writes the 256-bit word `w` big-endian at `offset` (the view must hold offset + 32 bytes). */
export function writeWord(view: DataView, offset: number, w: bigint): void {
  view.setBigUint64(offset, w >> 192n);
  view.setBigUint64(offset + 8, w >> 128n);
  view.setBigUint64(offset + 16, w >> 64n);
  view.setBigUint64(offset + 24, w);
}

/** Reads the 256-bit big-endian word at `offset`. */
export function readWord(view: DataView, offset: number): bigint {
  return (view.getBigUint64(offset) << 192n) | (view.getBigUint64(offset + 8) << 128n) |
    (view.getBigUint64(offset + 16) << 64n) | view.getBigUint64(offset + 24);
}

const scratch = new Uint8Array(32);
const scratchView = new DataView(scratch.buffer);

/**
 * The big-endian word of bytes[start, start + 32), bytes outside the array read as 0 (so a
 * negative start left-pads a short value, and a read past the end right-pads call data).
 */
export function bytesWord(bytes: Uint8Array, start: number): bigint {
  for (let i = 0; i < 32; i++) {
    const j = start + i;
    scratch[i] = j >= 0 && j < bytes.length ? bytes[j] : 0;
  }
  return readWord(scratchView, 0);
}

/** A 32-byte big-endian copy of a stack word (a fresh array: callers may keep it). */
export function wordBytes(w: bigint): Uint8Array {
  writeWord(scratchView, 0, w);
  return scratch.slice();
}

/** The shortest big-endian bytes of `w` (a fresh array); as @ethereumjs `bigIntToBytes`, except 0 is empty. */
export function minimalBytes(w: bigint): Uint8Array {
  if (w === 0n) return new Uint8Array(0);
  writeWord(scratchView, 0, w);
  let i = 0;
  while (scratch[i] === 0) i++;
  return scratch.slice(i);
}
