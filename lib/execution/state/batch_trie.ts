/**
 * Applies many updates to a Merkle-Patricia trie in one pass (yellow paper appendix D), hashing each
 * touched node once. `MerklePatriciaTrie.put` re-encodes and re-hashes the whole path from the leaf to
 * the root on every call, so flushing a block that changed 1,000 accounts hashed the root branch 1,000
 * times; here the updates are sorted, each subtree is rebuilt once and only new nodes are written.
 *
 * Works on tries with fixed-length keys (the state and storage tries: 32-byte hashed keys), so no
 * branch carries a value. Nodes are read from and written to the trie's own database
 * (`trie.database()`, the checkpointing layer), exactly as `put` would store them; nodes are never
 * deleted (archive semantics, trie_db.ts).
 */
import type { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import { rlpDecode, rlpEncode } from "../../common/rlp.ts";
import { EMPTY_TRIE_ROOT } from "../../protocol/block.ts";

/** One update: a (hashed) key and its new value, or null to delete. */
export interface TrieUpdate {
  key: Uint8Array;
  value: Uint8Array | null;
}

type Raw = Uint8Array | Raw[];

/**
 * A node built in memory may carry its reference once computed (its hash, or itself when its encoding
 * is under 32 bytes) and its encoding: nodes are never changed in place (a change rebuilds the path
 * as new objects), so the cache stays right.
 */
interface Cached {
  ref?: Raw;
  enc?: Uint8Array;
  /** Read from the database as it is (its subtree too): nothing under it is written again. */
  stored?: true;
}
interface Leaf extends Cached {
  t: 0;
  path: Uint8Array;
  value: Uint8Array;
}
interface Ext extends Cached {
  t: 1;
  path: Uint8Array;
  child: Node;
}
interface Branch extends Cached {
  t: 2;
  children: (Node | null)[];
}
/** A subtree not loaded (yet): its 32-byte hash. */
interface Ref {
  t: 3;
  hash: Uint8Array;
}
type Node = Leaf | Ext | Branch | Ref;

interface Item {
  nibbles: Uint8Array;
  value: Uint8Array | null;
}

/** Where the nodes live: read by hash, written under their hash (never deleted). */
export interface NodeDb {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /** May complete synchronously (an in-memory overlay): then the commit does not wait per node. */
  put(key: Uint8Array, value: Uint8Array): Promise<void> | void;
}

const EMPTY = new Uint8Array();

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

function toNibbles(key: Uint8Array): Uint8Array {
  return NIBBLES.get(key) ?? nibblesOf(key);
}

function nibblesOf(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 15;
  }
  return out;
}

/** Hex-prefix encoding (yellow paper appendix C). */
function encodePath(nibbles: Uint8Array, leaf: boolean): Uint8Array {
  const odd = nibbles.length % 2 === 1;
  const out = new Uint8Array((nibbles.length >> 1) + 1);
  const flag = (leaf ? 2 : 0) + (odd ? 1 : 0);
  let i = 0;
  if (odd) out[0] = (flag << 4) | nibbles[i++];
  else out[0] = flag << 4;
  for (let j = 1; i < nibbles.length; j++, i += 2) out[j] = (nibbles[i] << 4) | nibbles[i + 1];
  return out;
}

function decodePath(encoded: Uint8Array): { nibbles: Uint8Array; leaf: boolean } {
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

function concatNibbles(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function corrupt(message: string): BaseError {
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

function decodeNode(raw: Raw[]): Node {
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

class Batch {
  readonly #db: NodeDb;

  constructor(db: NodeDb) {
    this.#db = db;
  }

  async load(node: Node): Promise<Exclude<Node, Ref>> {
    if (node.t !== 3) return node;
    const value = await this.#db.get(node.hash);
    if (value === undefined) throw corrupt("missing node in database");
    const raw = rlpDecode(value) as Raw;
    if (raw instanceof Uint8Array) throw corrupt("node is not a list");
    const decoded = decodeNode(raw) as Exclude<Node, Ref>;
    // Its hash and encoding are known: an unchanged node is neither hashed nor written again. (A root
    // under 32 bytes is stored under its hash but referenced inline: left to `ref`.)
    if (value.length >= 32) decoded.ref = node.hash;
    decoded.enc = value;
    decoded.stored = true;
    return decoded;
  }

  /** Applies items[lo, hi) (sorted, distinct, all sharing nibbles [0, depth)) under `node`. */
  async apply(node: Node | null, depth: number, items: Item[], lo: number, hi: number): Promise<Node | null> {
    if (lo === hi) return node;
    if (node === null) return build(items, lo, hi, depth);
    const n = await this.load(node);
    if (n.t === 0) {
      // A leaf holds one entry: merge it with the updates and rebuild.
      const key = concatNibbles(items[lo].nibbles.subarray(0, depth), n.path);
      return build(mergeOne(items, lo, hi, { nibbles: key, value: n.value }), 0, -1, depth);
    }
    if (n.t === 1) {
      // An extension is a chain of one-child branches: expand its first step, apply, normalise.
      const first = n.path[0];
      const rest: Node = n.path.length === 1 ? n.child : { t: 1, path: n.path.subarray(1), child: n.child };
      const children: (Node | null)[] = new Array(16).fill(null);
      children[first] = rest;
      return await this.#branch(children, depth, items, lo, hi);
    }
    return await this.#branch(n.children.slice(), depth, items, lo, hi);
  }

  async #branch(
    children: (Node | null)[],
    depth: number,
    items: Item[],
    lo: number,
    hi: number,
  ): Promise<Node | null> {
    for (let i = lo; i < hi;) {
      const nib = items[i].nibbles[depth];
      let j = i + 1;
      while (j < hi && items[j].nibbles[depth] === nib) j++;
      children[nib] = await this.apply(children[nib], depth + 1, items, i, j);
      i = j;
    }
    let only = -1;
    let count = 0;
    for (let i = 0; i < 16; i++) {
      if (children[i] !== null) {
        count++;
        only = i;
      }
    }
    if (count === 0) return null;
    if (count > 1) return { t: 2, children };
    // One child left: the branch collapses into the child's path.
    const child = await this.load(children[only]!);
    const step = Uint8Array.of(only);
    if (child.t === 0) return { t: 0, path: concatNibbles(step, child.path), value: child.value };
    if (child.t === 1) return { t: 1, path: concatNibbles(step, child.path), child: child.child };
    return { t: 1, path: step, child };
  }

  /** The reference of `node` in its parent (its hash, or the node itself under 32 bytes), cached on it. */
  ref(node: Node): Raw {
    if (node.t === 3) return node.hash;
    if (node.ref !== undefined) return node.ref;
    let raw: Raw;
    if (node.t === 0) raw = [encodePath(node.path, true), node.value];
    else if (node.t === 1) raw = [encodePath(node.path, false), this.ref(node.child)];
    else {
      const list: Raw[] = new Array(17);
      for (let i = 0; i < 16; i++) {
        const c = node.children[i];
        list[i] = c === null ? EMPTY : this.ref(c);
      }
      list[16] = EMPTY;
      raw = list;
    }
    const encoded = rlpEncode(raw);
    node.enc = encoded;
    node.ref = encoded.length < 32 ? raw : keccak256(encoded);
    return node.ref;
  }

  /** Every node built in memory under `node` that is referenced by hash, children first. */
  #collect(node: Node, out: Exclude<Node, Ref>[]): void {
    if (node.t === 3 || node.stored === true) return;
    if (node.t === 1) this.#collect(node.child, out);
    else if (node.t === 2) {
      for (const c of node.children) if (c !== null) this.#collect(c, out);
    }
    if (node.ref instanceof Uint8Array) out.push(node);
  }

  /** Stores every node built in memory under `node` that is referenced by hash. */
  async #write(node: Node): Promise<void> {
    const nodes: Exclude<Node, Ref>[] = [];
    this.#collect(node, nodes);
    for (const n of nodes) {
      const done = this.#db.put(n.ref as Uint8Array, n.enc!);
      if (done !== undefined) await done;
    }
  }

  /** Encodes `node`, storing every node of 32 bytes or more (and the root) under its hash. */
  async commit(node: Node, root: boolean): Promise<Raw> {
    const ref = this.ref(node);
    await this.#write(node);
    if (!root || ref instanceof Uint8Array || node.t === 3) return ref;
    // A root under 32 bytes is still stored under its hash.
    const hash = keccak256(node.enc!);
    await this.#db.put(hash, node.enc!);
    return hash;
  }
}

/** Items [lo, hi) with `extra` merged in (an update of the same key wins). */
function mergeOne(items: Item[], lo: number, hi: number, extra: Item): Item[] {
  const out: Item[] = [];
  let placed = false;
  for (let i = lo; i < hi; i++) {
    const c = compare(items[i].nibbles, extra.nibbles);
    if (!placed && c >= 0) {
      placed = true;
      if (c > 0) out.push(extra);
    }
    out.push(items[i]);
  }
  if (!placed) out.push(extra);
  return out;
}

/** A subtree holding the non-deleted items of items[lo, hi) (hi < 0: to the end). */
function build(items: Item[], lo: number, hi: number, depth: number): Node | null {
  const live: Item[] = [];
  for (let i = lo; i < (hi < 0 ? items.length : hi); i++) if (items[i].value !== null) live.push(items[i]);
  return live.length === 0 ? null : buildLive(live, 0, live.length, depth);
}

function buildLive(items: Item[], lo: number, hi: number, depth: number): Node {
  if (hi - lo === 1) return { t: 0, path: items[lo].nibbles.subarray(depth), value: items[lo].value! };
  const first = items[lo].nibbles;
  const last = items[hi - 1].nibbles;
  let common = depth;
  while (common < first.length && first[common] === last[common]) common++;
  if (common > depth) {
    return { t: 1, path: first.subarray(depth, common), child: buildLive(items, lo, hi, common) };
  }
  const children: (Node | null)[] = new Array(16).fill(null);
  for (let i = lo; i < hi;) {
    const nib = items[i].nibbles[depth];
    let j = i + 1;
    while (j < hi && items[j].nibbles[depth] === nib) j++;
    children[nib] = buildLive(items, i, j, depth + 1);
    i = j;
  }
  return { t: 2, children };
}

function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/**
 * Applies `updates` (keys already hashed if the trie hashes keys; all the same length; a later update
 * of the same key wins) to `trie` and sets its new root. Returns the root.
 */
export async function applyTrieUpdates(trie: MerklePatriciaTrie, updates: TrieUpdate[]): Promise<Uint8Array> {
  if (updates.length === 0) return trie.root();
  if ((trie as unknown as { _opts: { keyPrefix?: Uint8Array } })._opts.keyPrefix !== undefined) {
    throw new BaseError("TRIE_KEY_PREFIX", "Cannot update trie in a batch: its database keys are prefixed");
  }
  const root = await applyUpdatesAt(trie.database() as unknown as NodeDb, trie.root(), updates);
  trie.root(root);
  return root;
}

/**
 * Applies `updates` (as applyTrieUpdates) to the trie whose root is `root`, reading and writing nodes
 * in `db`. Returns the new root (EMPTY_TRIE_ROOT when nothing is left).
 */
export async function applyUpdatesAt(
  db: NodeDb,
  root: Uint8Array,
  updates: TrieUpdate[],
): Promise<Uint8Array> {
  const trie = new PendingTrie(db, root);
  await trie.update(updates);
  return await trie.commit();
}

/**
 * A trie updated in several batches and hashed once: `update` loads the touched nodes and rebuilds the
 * touched paths in memory without encoding or hashing anything; `commit` hashes each changed node once
 * and writes it. Between the two, a node changed by several batches costs one hash, not one per batch.
 */
export class PendingTrie {
  readonly #batch: Batch;
  #node: Node | null;
  #root: Uint8Array | undefined;

  constructor(db: NodeDb, root: Uint8Array) {
    this.#batch = new Batch(db);
    this.#node = equal(root, EMPTY_TRIE_ROOT) ? null : { t: 3, hash: root };
    this.#root = root;
  }

  /** Applies `updates` (sorted here; a later update of the same key wins) in memory. */
  async update(updates: TrieUpdate[]): Promise<void> {
    if (updates.length === 0) return;
    const keyLen = updates[0].key.length;
    const all: (Item & { at: number })[] = new Array(updates.length);
    for (let i = 0; i < updates.length; i++) {
      const u = updates[i];
      if (u.key.length !== keyLen) {
        throw new BaseError("TRIE_BAD_KEY", "Cannot update trie: keys of different lengths in one batch");
      }
      all[i] = {
        nibbles: toNibbles(u.key),
        value: u.value === null || u.value.length === 0 ? null : u.value,
        at: i,
      };
    }
    // By key, and of the updates of one key the last (sorted after the others by position).
    all.sort((a, b) => compare(a.nibbles, b.nibbles) || a.at - b.at);
    const items: Item[] = [];
    for (let i = 0; i < all.length; i++) {
      if (i + 1 < all.length && compare(all[i].nibbles, all[i + 1].nibbles) === 0) continue;
      items.push(all[i]);
    }
    this.#node = await this.#batch.apply(this.#node, 0, items, 0, items.length);
    this.#root = undefined;
  }

  /**
   * Loads the nodes on the paths to `keys` (hashed, full length) into the trie in memory, so that later
   * updates of those keys find them at hand (the state-root worker reads a block's accounts while the
   * block is still being decoded). Changes nothing: a loaded node keeps its hash.
   */
  async prefetch(keys: Uint8Array[]): Promise<void> {
    if (this.#node === null) return;
    if (this.#node.t === 3) this.#node = await this.#batch.load(this.#node);
    for (const key of keys) {
      const nibbles = toNibbles(key);
      let node: Node = this.#node;
      let depth = 0;
      while (depth < nibbles.length) {
        let next: Node | null;
        if (node.t === 2) {
          const i = nibbles[depth++];
          next = node.children[i];
          if (next?.t === 3) node.children[i] = next = await this.#batch.load(next);
        } else if (node.t === 1) {
          if (compare(node.path, nibbles.subarray(depth, depth + node.path.length)) !== 0) break;
          depth += node.path.length;
          next = node.child;
          if (next.t === 3) node.child = next = await this.#batch.load(next);
        } else break;
        if (next === null) break;
        node = next;
      }
    }
  }

  /**
   * Hashes the changed subtrees from `level` node levels below the root down (no writes), so that a
   * later commit only hashes what changed since plus the levels above (which most updates touch).
   */
  prehash(level: number): void {
    const visit = (node: Node | null, depth: number) => {
      if (node === null || node.t === 3 || node.ref !== undefined) return;
      if (depth >= level) {
        this.#batch.ref(node);
        return;
      }
      if (node.t === 1) visit(node.child, depth + 1);
      else if (node.t === 2) { for (const c of node.children) visit(c, depth + 1); }
    };
    visit(this.#node, 0);
  }

  /** Hashes and writes the changed nodes; returns the root. */
  async commit(): Promise<Uint8Array> {
    if (this.#root !== undefined) return this.#root;
    const next = this.#node;
    let root: Uint8Array;
    if (next === null) root = EMPTY_TRIE_ROOT;
    else if (next.t === 3) root = next.hash;
    else {
      root = (await this.#batch.commit(next, true)) as Uint8Array;
      this.#node = { t: 3, hash: root };
    }
    this.#root = root;
    return root;
  }
}

/** The value under `key` (full length, as stored) in the trie whose root is `root`; undefined if absent. */
export async function lookupAt(
  db: NodeDb,
  root: Uint8Array,
  key: Uint8Array,
): Promise<Uint8Array | undefined> {
  if (equal(root, EMPTY_TRIE_ROOT)) return undefined;
  const nibbles = toNibbles(key);
  const batch = new Batch(db);
  let node: Node | null = { t: 3, hash: root };
  let depth = 0;
  while (node !== null) {
    const n = await batch.load(node);
    if (n.t === 2) {
      if (depth >= nibbles.length) return undefined;
      node = n.children[nibbles[depth++]];
      continue;
    }
    if (depth + n.path.length > nibbles.length) return undefined;
    if (compare(n.path, nibbles.subarray(depth, depth + n.path.length)) !== 0) return undefined;
    depth += n.path.length;
    if (n.t === 0) return depth === nibbles.length ? n.value : undefined;
    node = n.child;
  }
  return undefined;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
