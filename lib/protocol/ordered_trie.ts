/**
 * Root of a Merkle-Patricia trie built in one pass from all its entries (the transactions
 * and receipts tries: key rlp(index), value the encoded tx/receipt). Same result as inserting
 * into @ethereumjs/mpt one by one (yellow paper appendix D), without a node database:
 * the entries are sorted by key and each subtree is hashed once.
 */
import { keccak256 } from "../common/hash.ts";
import { rlpEncode } from "../common/rlp.ts";
import { EMPTY_TRIE_ROOT } from "./block.ts";

type Raw = Uint8Array | Raw[];

interface Entry {
  nibbles: Uint8Array;
  value: Uint8Array;
}

function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 15;
  }
  return out;
}

/** Hex-prefix encoding (yellow paper appendix C). */
function hexPrefix(nibbles: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const len = to - from;
  const odd = len % 2 === 1;
  const out = new Uint8Array(Math.floor(len / 2) + 1);
  let flag = leaf ? 2 : 0;
  let i = from;
  if (odd) {
    flag += 1;
    out[0] = (flag << 4) | nibbles[i++];
  } else {
    out[0] = flag << 4;
  }
  for (let j = 1; i < to; j++, i += 2) out[j] = (nibbles[i] << 4) | nibbles[i + 1];
  return out;
}

/** A child reference: the node itself when its encoding is shorter than 32 bytes, else its hash. */
function ref(node: Raw): Raw {
  const enc = rlpEncode(node);
  return enc.length < 32 ? node : keccak256(enc);
}

function build(entries: Entry[], lo: number, hi: number, depth: number): Raw {
  if (hi - lo === 1) {
    const e = entries[lo];
    return [hexPrefix(e.nibbles, depth, e.nibbles.length, true), e.value];
  }
  // Longest common prefix (entries are sorted: compare the first and the last).
  const first = entries[lo].nibbles;
  const last = entries[hi - 1].nibbles;
  let common = depth;
  while (common < first.length && common < last.length && first[common] === last[common]) common++;
  if (common > depth) {
    return [hexPrefix(first, depth, common, false), ref(build(entries, lo, hi, common))];
  }
  const branch: Raw[] = new Array(17).fill(new Uint8Array());
  let i = lo;
  if (first.length === depth) {
    branch[16] = entries[lo].value;
    i++;
  }
  while (i < hi) {
    const nib = entries[i].nibbles[depth];
    let j = i + 1;
    while (j < hi && entries[j].nibbles[depth] === nib) j++;
    branch[nib] = ref(build(entries, i, j, depth + 1));
    i = j;
  }
  return branch;
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
  return keccak256(rlpEncode(build(entries, 0, entries.length, 0)));
}

/** Trie root of arbitrary distinct keys (the last value wins for a repeated key); empty values are absent. */
export function trieRoot(pairs: Iterable<[Uint8Array, Uint8Array]>): Uint8Array {
  const byKey = new Map<string, Entry>();
  for (const [k, v] of pairs) {
    let id = "";
    for (let i = 0; i < k.length; i++) id += String.fromCharCode(k[i]);
    if (v.length === 0) byKey.delete(id);
    else byKey.set(id, { nibbles: toNibbles(k), value: v });
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
