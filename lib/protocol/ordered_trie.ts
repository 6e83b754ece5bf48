/**
 * Root of a Merkle-Patricia trie built in one pass from all its entries (the transactions
 * and receipts tries: key rlp(index), value the encoded tx/receipt). Same result as inserting
 * into @ethereumjs/mpt one by one (yellow paper appendix D), without a node database:
 * the entries are sorted by key and each subtree is hashed once.
 */
import { BaseError } from "../common/errors.ts";
import { keccak256 } from "../common/hash.ts";
import { rlpListLength, rlpStringLength, writeRlpListHeader, writeRlpString } from "../common/rlp.ts";
import { hexPrefixRlpLength, writeHexPrefixRlp } from "./hex_prefix.ts";
import { EMPTY_TRIE_ROOT } from "./block.ts";

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

/** A child's reference in its parent: its encoding when under 32 bytes, else the RLP string of its hash. */
function reference(enc: Uint8Array): Uint8Array {
  if (enc.length < 32) return enc;
  const out = new Uint8Array(33);
  out[0] = 0xa0;
  out.set(keccak256(enc), 1);
  return out;
}

/** The root hash of a trie whose root node has reference `ref` (a root is hashed even under 32 bytes). */
function rootOfReference(ref: Uint8Array): Uint8Array {
  return ref.length === 33 && ref[0] === 0xa0 ? ref.slice(1) : keccak256(ref);
}

/** The encoding of the leaf holding `e` at nibble `depth`. */
function leafEncoding(e: Entry, depth: number): Uint8Array {
  const payload = hexPrefixRlpLength(e.nibbles.length - depth) + rlpStringLength(e.value);
  const out = new Uint8Array(rlpListLength(payload));
  const pos = writeRlpListHeader(payload, out, 0);
  writeRlpString(e.value, out, writeHexPrefixRlp(e.nibbles, depth, e.nibbles.length, true, out, pos));
  return out;
}

/** The reference of the leaf of entries[at] at nibble `depth` (computed now, or earlier: OrderedTrieBuilder). */
type LeafReference = (entries: Entry[], at: number, depth: number) => Uint8Array;

const leafNow: LeafReference = (entries, at, depth) => reference(leafEncoding(entries[at], depth));

/**
 * Walks the shape of the subtree holding entries[lo, hi) (sorted, distinct) below nibble `depth`:
 * `leaf(at, depth)` for each leaf, where it sits. The shape depends on the keys alone.
 */
function walkLeaves(
  entries: Entry[],
  lo: number,
  hi: number,
  depth: number,
  leaf: (at: number, depth: number) => void,
): void {
  if (hi - lo === 1) return leaf(lo, depth);
  const common = commonDepth(entries, lo, hi, depth);
  if (common > depth) return walkLeaves(entries, lo, hi, common, leaf);
  let i = lo;
  if (entries[lo].nibbles.length === depth) i++; // a value in the branch, not a leaf
  while (i < hi) {
    const j = groupEnd(entries, i, hi, depth);
    walkLeaves(entries, i, j, depth + 1, leaf);
    i = j;
  }
}

/** The depth to which entries[lo, hi) (sorted) share their nibbles, from `depth`. */
function commonDepth(entries: Entry[], lo: number, hi: number, depth: number): number {
  // Sorted: the first and the last share what all share.
  const first = entries[lo].nibbles;
  const last = entries[hi - 1].nibbles;
  let common = depth;
  while (common < first.length && common < last.length && first[common] === last[common]) common++;
  return common;
}

/** The end of the run of entries from `i` with the same nibble at `depth`. */
function groupEnd(entries: Entry[], i: number, hi: number, depth: number): number {
  const nib = entries[i].nibbles[depth];
  let j = i + 1;
  while (j < hi && entries[j].nibbles[depth] === nib) j++;
  return j;
}

/**
 * The reference of the subtree holding entries[lo, hi) (sorted, distinct) below nibble `depth`, each
 * node written straight into one buffer (no intermediate lists to encode).
 */
function referenceOf(
  entries: Entry[],
  lo: number,
  hi: number,
  depth: number,
  leaf: LeafReference,
): Uint8Array {
  if (hi - lo === 1) return leaf(entries, lo, depth);
  const first = entries[lo].nibbles;
  const common = commonDepth(entries, lo, hi, depth);
  if (common > depth) {
    const child = referenceOf(entries, lo, hi, common, leaf);
    const payload = hexPrefixRlpLength(common - depth) + child.length;
    const out = new Uint8Array(rlpListLength(payload));
    const pos = writeRlpListHeader(payload, out, 0);
    out.set(child, writeHexPrefixRlp(first, depth, common, false, out, pos));
    return reference(out);
  }
  const children: (Uint8Array | undefined)[] = new Array(16);
  let value: Uint8Array | undefined;
  let i = lo;
  if (first.length === depth) {
    value = entries[lo].value;
    i++;
  }
  while (i < hi) {
    const j = groupEnd(entries, i, hi, depth);
    children[entries[i].nibbles[depth]] = referenceOf(entries, i, j, depth + 1, leaf);
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
  return reference(out);
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
  return rootOfReference(referenceOf(entries, 0, entries.length, 0, leafNow));
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

/** The keys rlp(0) .. rlp(size - 1) as entries (values empty), sorted, with their indexes. */
function indexEntries(size: number): { entries: Entry[]; index: number[] } {
  const nibbles = new Uint8Array(size * 16);
  const keyed: { e: Entry; i: number }[] = new Array(size);
  let at = 0;
  for (let i = 0; i < size; i++) {
    const n = writeIndexNibbles(i, nibbles, at);
    keyed[i] = { e: { nibbles: nibbles.subarray(at, at + n), value: EMPTY }, i };
    at += n;
  }
  keyed.sort((a, b) => compareNibbles(a.e.nibbles, b.e.nibbles));
  return { entries: keyed.map((k) => k.e), index: keyed.map((k) => k.i) };
}

const EMPTY = new Uint8Array();

/**
 * The root of an ordered trie (keys rlp(0) .. rlp(size - 1), as the transactions and receipts tries)
 * whose size is known before its values: the trie's shape depends on the keys alone, so each value's
 * leaf is encoded and hashed as it is set, and `root()` only joins the leaves (block import: the
 * receipts arrive one by one while the block executes). Same root as orderedTrieRoot.
 */
export class OrderedTrieBuilder {
  readonly size: number;
  readonly #entries: Entry[];
  /** Sorted position of each index, and the depth of its leaf. */
  readonly #position: Uint32Array;
  readonly #depth: Uint8Array;
  /** The reference of each leaf by sorted position, once set. */
  readonly #refs: (Uint8Array | undefined)[];
  #missing: number;

  constructor(size: number) {
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new BaseError("ORDERED_TRIE_SIZE", `Cannot build an ordered trie of ${size} entries`);
    }
    this.size = size;
    const { entries, index } = indexEntries(size);
    this.#entries = entries;
    this.#position = new Uint32Array(size);
    for (let p = 0; p < size; p++) this.#position[index[p]] = p;
    this.#depth = new Uint8Array(size);
    if (size > 0) walkLeaves(entries, 0, size, 0, (at, depth) => (this.#depth[at] = depth));
    this.#refs = new Array(size);
    this.#missing = size;
  }

  /** Sets the value of entry `index` (not empty), encoding and hashing its leaf now. */
  set(index: number, value: Uint8Array): void {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) {
      throw new BaseError(
        "ORDERED_TRIE_INDEX",
        `Cannot set entry ${index} of an ordered trie of ${this.size}`,
      );
    }
    if (value.length === 0) {
      throw new BaseError(
        "ORDERED_TRIE_EMPTY",
        `Cannot set entry ${index} of an ordered trie to an empty value`,
      );
    }
    const p = this.#position[index];
    if (this.#refs[p] === undefined) this.#missing--;
    this.#refs[p] = reference(leafEncoding({ nibbles: this.#entries[p].nibbles, value }, this.#depth[p]));
  }

  /** True once every entry is set. */
  get complete(): boolean {
    return this.#missing === 0;
  }

  /** The root; throws while an entry is not set. */
  root(): Uint8Array {
    if (this.#missing > 0) {
      throw new BaseError(
        "ORDERED_TRIE_INCOMPLETE",
        `Cannot compute the root: ${this.#missing} of ${this.size} entries not set`,
      );
    }
    if (this.size === 0) return EMPTY_TRIE_ROOT;
    const refs = this.#refs;
    return rootOfReference(referenceOf(this.#entries, 0, this.size, 0, (_, at) => refs[at]!));
  }
}
