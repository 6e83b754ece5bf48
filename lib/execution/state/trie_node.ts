/**
 * Trie nodes in memory (batch_trie.ts): leaves, extensions, branches and references by hash not loaded
 * yet, decoded from their RLP (yellow paper appendix D), and the nibble paths of keys.
 */
import { BaseError } from "../../common/errors.ts";
import { nibblesOf } from "../../protocol/hex_prefix.ts";

export type Raw = Uint8Array | Raw[];

/**
 * A node built in memory carries its encoding once computed, and its hash when the encoding is 32
 * bytes or more (a shorter node is inlined in its parent): nodes are never changed in place (a change
 * rebuilds the path as new objects), so the cache stays right.
 */
export interface Cached {
  enc?: Uint8Array;
  hash?: Uint8Array;
  /** Read from the database as it is (its subtree too): nothing under it is written again. */
  stored?: true;
}
export interface Leaf extends Cached {
  t: 0;
  path: Uint8Array;
  value: Uint8Array;
}
export interface Ext extends Cached {
  t: 1;
  path: Uint8Array;
  child: Node;
}
export interface Branch extends Cached {
  t: 2;
  children: (Node | null)[];
}
/** A subtree not loaded (yet): its 32-byte hash. */
export interface Ref {
  t: 3;
  hash: Uint8Array;
}
export type Node = Leaf | Ext | Branch | Ref;

/** The nibbles of interned keys (internKey), by key object. */
const NIBBLES = new WeakMap<Uint8Array, Uint8Array>();

/**
 * Marks `key` as never to change, so that its nibbles are computed once however often it is used
 * (the state-root worker hands the same key object for an account in every prefetch and update).
 */
export function internKey(key: Uint8Array): Uint8Array {
  if (!NIBBLES.has(key)) NIBBLES.set(key, nibblesOf(key));
  return key;
}

export function toNibbles(key: Uint8Array): Uint8Array {
  return NIBBLES.get(key) ?? nibblesOf(key);
}

export function decodePath(encoded: Uint8Array): { nibbles: Uint8Array; leaf: boolean } {
  const flag = encoded[0] >> 4;
  const odd = (flag & 1) === 1;
  const len = (encoded.length - 1) * 2 + (odd ? 1 : 0);
  const out = new Uint8Array(len);
  let j = 0;
  if (odd) out[j++] = encoded[0] & 15;
  for (let i = 1; i < encoded.length; i++) {
    out[j++] = encoded[i] >> 4;
    out[j++] = encoded[i] & 15;
  }
  return { nibbles: out, leaf: flag >= 2 };
}

export function concatNibbles(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export function corrupt(message: string): BaseError {
  return new BaseError("TRIE_CORRUPT", `Cannot update trie: ${message}`);
}

/** A child reference inside a decoded node: a hash, an inlined node, or empty. */
function fromRaw(raw: Raw): Node | null {
  if (raw instanceof Uint8Array) {
    if (raw.length === 0) return null;
    if (raw.length !== 32) throw corrupt(`child reference of ${raw.length} bytes`);
    return { t: 3, hash: raw };
  }
  return decodeNode(raw);
}

export function decodeNode(raw: Raw[]): Node {
  if (raw.length === 17) {
    if ((raw[16] as Uint8Array).length !== 0) {
      throw corrupt("a branch carries a value (keys of unequal length)");
    }
    const children: (Node | null)[] = new Array(16);
    for (let i = 0; i < 16; i++) children[i] = fromRaw(raw[i]);
    return { t: 2, children };
  }
  if (raw.length !== 2 || !(raw[0] instanceof Uint8Array)) throw corrupt("malformed node");
  const { nibbles, leaf } = decodePath(raw[0]);
  if (leaf) {
    if (!(raw[1] instanceof Uint8Array)) throw corrupt("leaf value is a list");
    return { t: 0, path: nibbles, value: raw[1] };
  }
  const child = fromRaw(raw[1]);
  if (child === null) throw corrupt("extension without child");
  return { t: 1, path: nibbles, child };
}
