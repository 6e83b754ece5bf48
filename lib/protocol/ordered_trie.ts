/**
 * Root of a Merkle-Patricia trie built in one pass from all its entries (the transactions
 * and receipts tries: key rlp(index), value the encoded tx/receipt). Same result as inserting
 * into @ethereumjs/mpt one by one (yellow paper appendix D), without a node database:
 * the entries are sorted by key and each subtree is hashed once.
 */
import { keccak256 } from "../common/hash.ts";
import { rlpListLength, rlpStringLength, writeRlpListHeader, writeRlpString } from "../common/rlp.ts";
import { hexPrefixRlpLength, nibblesOf, writeHexPrefixRlp } from "./hex_prefix.ts";
import { EMPTY_TRIE_ROOT } from "./block.ts";

interface Entry {
  nibbles: Uint8Array;
  value: Uint8Array;
}

/** A child's reference in its parent: its encoding when under 32 bytes, else the RLP string of its hash. */
function reference(enc: Uint8Array): Uint8Array {
  if (enc.length < 32) return enc;
  const out = new Uint8Array(33);
  out[0] = 0xa0;
  out.set(keccak256(enc), 1);
  return out;
}

/**
 * The encoding of the subtree holding entries[lo, hi) (sorted, distinct) below nibble `depth`, each
 * node written straight into one buffer (no intermediate lists to encode).
 */
function encodeSubtree(entries: Entry[], lo: number, hi: number, depth: number): Uint8Array {
  const first = entries[lo].nibbles;
  if (hi - lo === 1) {
    const value = entries[lo].value;
    const payload = hexPrefixRlpLength(first.length - depth) + rlpStringLength(value);
    const out = new Uint8Array(rlpListLength(payload));
    const pos = writeRlpListHeader(payload, out, 0);
    writeRlpString(value, out, writeHexPrefixRlp(first, depth, first.length, true, out, pos));
    return out;
  }
  // Longest common prefix (entries are sorted: compare the first and the last).
  const last = entries[hi - 1].nibbles;
  let common = depth;
  while (common < first.length && common < last.length && first[common] === last[common]) common++;
  if (common > depth) {
    const child = reference(encodeSubtree(entries, lo, hi, common));
    const payload = hexPrefixRlpLength(common - depth) + child.length;
    const out = new Uint8Array(rlpListLength(payload));
    const pos = writeRlpListHeader(payload, out, 0);
    out.set(child, writeHexPrefixRlp(first, depth, common, false, out, pos));
    return out;
  }
  const children: (Uint8Array | undefined)[] = new Array(16);
  let value: Uint8Array | undefined;
  let i = lo;
  if (first.length === depth) {
    value = entries[lo].value;
    i++;
  }
  while (i < hi) {
    const nib = entries[i].nibbles[depth];
    let j = i + 1;
    while (j < hi && entries[j].nibbles[depth] === nib) j++;
    children[nib] = reference(encodeSubtree(entries, i, j, depth + 1));
    i = j;
  }
  let payload = value === undefined ? 1 : rlpStringLength(value);
  for (let k = 0; k < 16; k++) payload += children[k]?.length ?? 1;
  const out = new Uint8Array(rlpListLength(payload));
  let pos = writeRlpListHeader(payload, out, 0);
  for (let k = 0; k < 16; k++) {
    const c = children[k];
    if (c === undefined) out[pos++] = 0x80;
    else {
      out.set(c, pos);
      pos += c.length;
    }
  }
  if (value === undefined) out[pos] = 0x80;
  else writeRlpString(value, out, pos);
  return out;
}

function compareNibbles(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Root of sorted, distinct, non-empty entries. */
function rootOf(entries: Entry[]): Uint8Array {
  entries.sort((a, b) => compareNibbles(a.nibbles, b.nibbles));
  if (entries.length === 0) return EMPTY_TRIE_ROOT;
  return keccak256(encodeSubtree(entries, 0, entries.length, 0));
}

/** Trie root of arbitrary distinct keys (the last value wins for a repeated key); empty values are absent. */
export function trieRoot(pairs: Iterable<[Uint8Array, Uint8Array]>): Uint8Array {
  const byKey = new Map<string, Entry>();
  for (const [k, v] of pairs) {
    let id = "";
    for (let i = 0; i < k.length; i++) id += String.fromCharCode(k[i]);
    if (v.length === 0) byKey.delete(id);
    else byKey.set(id, { nibbles: nibblesOf(k), value: v });
  }
  return rootOf([...byKey.values()]);
}

/**
 * Writes the nibbles of rlp(i), the key of entry i, at `at`; returns their count. rlp(i) is 0x80 for 0,
 * the byte itself below 0x80, else 0x80 + len followed by the big-endian bytes.
 */
function writeIndexNibbles(i: number, out: Uint8Array, at: number): number {
  if (i === 0) {
    out[at] = 8;
    out[at + 1] = 0;
    return 2;
  }
  if (i < 0x80) {
    out[at] = i >> 4;
    out[at + 1] = i & 15;
    return 2;
  }
  let len = 0;
  for (let n = i; n > 0; n = Math.floor(n / 256)) len++;
  out[at] = 8;
  out[at + 1] = len;
  for (let k = len - 1, n = i; k >= 0; k--, n = Math.floor(n / 256)) {
    out[at + 2 + 2 * k] = (n % 256) >> 4;
    out[at + 3 + 2 * k] = n % 16;
  }
  return 2 + 2 * len;
}

/** rlp(i): the key of entry i of an ordered trie (the transactions and receipts tries). */
export function rlpEncodeIndex(i: number): Uint8Array {
  if (i === 0) return new Uint8Array([0x80]);
  if (i < 0x80) return new Uint8Array([i]);
  let len = 0;
  for (let n = i; n > 0; n = Math.floor(n / 256)) len++;
  const out = new Uint8Array(1 + len);
  out[0] = 0x80 + len;
  for (let k = len, n = i; k >= 1; k--, n = Math.floor(n / 256)) out[k] = n % 256;
  return out;
}

/** Root of the trie mapping rlp(i) to values[i]: the transactions root and the receipts root. */
export function orderedTrieRoot(values: Uint8Array[]): Uint8Array {
  // All keys' nibbles in one buffer (an index below 2^53 takes at most 2 + 2 * 7 nibbles).
  const nibbles = new Uint8Array(values.length * 16);
  const entries: Entry[] = [];
  let at = 0;
  for (let i = 0; i < values.length; i++) {
    if (values[i].length === 0) continue;
    const n = writeIndexNibbles(i, nibbles, at);
    entries.push({ nibbles: nibbles.subarray(at, at + n), value: values[i] });
    at += n;
  }
  return rootOf(entries);
}
