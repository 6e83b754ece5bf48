/**
 * Hex-prefix encoding (yellow paper appendix C): a trie node's path of nibbles as bytes, the first
 * carrying the leaf flag and the parity (an odd path puts its first nibble there too).
 */

/** The nibbles of `key`, high half of each byte first (a trie path). */
export function nibblesOf(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 15;
  }
  return out;
}

/** Bytes of the hex-prefix encoding of `count` nibbles. */
export function hexPrefixLength(count: number): number {
  return (count >> 1) + 1;
}

/** Writes the hex-prefix encoding of nibbles[from, to) at `pos`; returns the next position. */
export function writeHexPrefix(
  nibbles: Uint8Array,
  from: number,
  to: number,
  leaf: boolean,
  out: Uint8Array,
  pos: number,
): number {
  const odd = (to - from) & 1;
  const flag = (leaf ? 2 : 0) + odd;
  let i = from;
  out[pos] = odd === 1 ? (flag << 4) | nibbles[i++] : flag << 4;
  let j = pos + 1;
  for (; i < to; j++, i += 2) out[j] = (nibbles[i] << 4) | nibbles[i + 1];
  return j;
}

/** Bytes of the RLP string holding the hex-prefix encoding of `count` nibbles (its first byte is under 0x80). */
export function hexPrefixRlpLength(count: number): number {
  const n = hexPrefixLength(count);
  return n === 1 ? 1 : 1 + n;
}

/** Writes the RLP string of the hex-prefix encoding of nibbles[from, to) at `pos`; returns the next position. */
export function writeHexPrefixRlp(
  nibbles: Uint8Array,
  from: number,
  to: number,
  leaf: boolean,
  out: Uint8Array,
  pos: number,
): number {
  // A one-byte encoding is under 0x80 (flag nibble at most 3): it is its own RLP string.
  const n = hexPrefixLength(to - from);
  if (n > 1) out[pos++] = 0x80 + n; // at most 33 bytes: the short form
  return writeHexPrefix(nibbles, from, to, leaf, out, pos);
}
