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
import {
  rlpDecode,
  rlpListLength,
  rlpStringLength,
  writeRlpListHeader,
  writeRlpString,
} from "../../common/rlp.ts";
import { hexPrefixRlpLength, writeHexPrefixRlp } from "../../protocol/hex_prefix.ts";
import { EMPTY_TRIE_ROOT } from "../../protocol/block.ts";
import { equalBytes } from "../../common/bytes.ts";
import { concatNibbles, corrupt, decodeNode, type Node, type Raw, type Ref, toNibbles } from "./trie_node.ts";
import type { TrieSnapshot } from "./trie_snapshot.ts";

/** One update: a (hashed) key and its new value, or null to delete. */
export interface TrieUpdate {
  key: Uint8Array;
  value: Uint8Array | null;
}

interface Item {
  nibbles: Uint8Array;
  value: Uint8Array | null;
}

/** Where the nodes live: read by hash, written under their hash (never deleted). */
export interface NodeDb {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /** May complete synchronously (an in-memory overlay): then the commit does not wait per node. */
  put(key: Uint8Array, value: Uint8Array): Promise<void> | void;
  /** True when `put` copies the value and keeps no reference to it (encodings may then share memory). */
  readonly copiesValues?: boolean;
}

/** The chunk encodings are cut from (Batch #alloc), and how much of it is used. */
const SCRATCH_SIZE = 65_536;
let scratch = new Uint8Array(SCRATCH_SIZE);
let scratchUsed = 0;

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
    // Its hash is known: an unchanged node is neither hashed nor written again. (A root under 32 bytes
    // is stored under its hash but would be inlined: it keeps its encoding instead.)
    if (value.length >= 32) decoded.hash = node.hash;
    else decoded.enc = value;
    decoded.stored = true;
    return decoded;
  }

  /** Applies items[lo, hi) (sorted, distinct, all sharing nibbles [0, depth)) under `node`. */
  async apply(node: Node | null, depth: number, items: Item[], lo: number, hi: number): Promise<Node | null> {
    if (lo === hi) return node;
    if (node === null) return build(items, lo, hi, depth);
    const n = await this.load(node);
    if (n.t === 0) {
      // The leaf's own key alone changes (the common case: an account updated): a new leaf on its path.
      if (hi - lo === 1 && sameSuffix(items[lo].nibbles, depth, n.path)) {
        const value = items[lo].value;
        return value === null ? null : { t: 0, path: n.path, value };
      }
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

  /**
   * Encodes `node` unless done (its children first): a node of 32 bytes or more gets its hash (and its
   * encoding until written), a shorter one keeps its encoding, which its parent inlines. Written
   * straight into one buffer: the child references are the 32-byte hashes or, for a child under 32
   * bytes, its encoding itself (yellow paper appendix D, the node composition c).
   */
  encode(node: Exclude<Node, Ref>): void {
    if (node.hash !== undefined || node.enc !== undefined) return;
    let out: Uint8Array;
    if (node.t === 2) {
      let payload = 1; // the empty value
      for (let i = 0; i < 16; i++) payload += this.#refLength(node.children[i]);
      out = this.#alloc(rlpListLength(payload));
      let pos = writeRlpListHeader(payload, out, 0);
      for (let i = 0; i < 16; i++) pos = this.#writeRef(node.children[i], out, pos);
      out[pos] = 0x80;
    } else {
      const path = node.path;
      const second = node.t === 0 ? rlpStringLength(node.value) : this.#refLength(node.child);
      const payload = hexPrefixRlpLength(path.length) + second;
      out = this.#alloc(rlpListLength(payload));
      let pos = writeRlpListHeader(payload, out, 0);
      pos = writeHexPrefixRlp(path, 0, path.length, node.t === 0, out, pos);
      if (node.t === 0) writeRlpString(node.value, out, pos);
      else this.#writeRef(node.child, out, pos);
    }
    node.enc = out;
    if (out.length >= 32) node.hash = keccak256(out);
  }

  /**
   * Room for an encoding: cut from a shared chunk when the database copies what it is given and the
   * node is hashed (its encoding is dropped once written, so nothing keeps the chunk), else its own
   * array. One ArrayBuffer per node cost the state-root worker most of its garbage collection.
   */
  #alloc(length: number): Uint8Array {
    if (length < 32 || this.#db.copiesValues !== true || length > SCRATCH_SIZE >> 4) {
      return new Uint8Array(length);
    }
    if (scratchUsed + length > scratch.length) {
      scratch = new Uint8Array(SCRATCH_SIZE);
      scratchUsed = 0;
    }
    const out = scratch.subarray(scratchUsed, scratchUsed + length);
    scratchUsed += length;
    return out;
  }

  /** Bytes of a child's reference inside its parent's encoding. */
  #refLength(c: Node | null): number {
    if (c === null) return 1;
    if (c.t === 3) return 33;
    this.encode(c);
    return c.hash !== undefined ? 33 : c.enc!.length;
  }

  #writeRef(c: Node | null, out: Uint8Array, pos: number): number {
    if (c === null) {
      out[pos] = 0x80;
      return pos + 1;
    }
    const hash = c.hash;
    if (hash !== undefined) {
      out[pos] = 0xa0;
      out.set(hash, pos + 1);
      return pos + 33;
    }
    const enc = (c as Exclude<Node, Ref>).enc!;
    out.set(enc, pos);
    return pos + enc.length;
  }

  /** Every node built in memory under `node` that is referenced by hash, children first. */
  #collect(node: Node, out: Exclude<Node, Ref>[]): void {
    if (node.t === 3 || node.stored === true) return;
    if (node.t === 1) this.#collect(node.child, out);
    else if (node.t === 2) {
      for (const c of node.children) if (c !== null) this.#collect(c, out);
    }
    if (node.hash !== undefined) out.push(node);
  }

  /** Stores every node built in memory under `node` that is referenced by hash. */
  async #write(node: Node): Promise<void> {
    const nodes: Exclude<Node, Ref>[] = [];
    this.#collect(node, nodes);
    for (const n of nodes) {
      const done = this.#db.put(n.hash!, n.enc!);
      if (done !== undefined) await done;
      // Written with its subtree (children come first): a later commit of a trie still holding it
      // (a snapshot's) does not write it again, and its parents need only its hash.
      n.stored = true;
      n.enc = undefined;
    }
  }

  /** Encodes the root `node`, storing every node of 32 bytes or more and the root under their hashes. */
  async commit(node: Node): Promise<Uint8Array> {
    if (node.t === 3) return node.hash;
    this.encode(node);
    await this.#write(node);
    if (node.hash !== undefined) return node.hash;
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

/** True when `key` from nibble `depth` on is `path`. */
function sameSuffix(key: Uint8Array, depth: number, path: Uint8Array): boolean {
  if (key.length - depth !== path.length) return false;
  for (let i = 0; i < path.length; i++) if (key[depth + i] !== path[i]) return false;
  return true;
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

  /** `from`: the root to start on, or a snapshot of that root kept in memory (its nodes then need no reading). */
  constructor(db: NodeDb, from: Uint8Array | TrieSnapshot) {
    this.#batch = new Batch(db);
    if (from instanceof Uint8Array) {
      this.#node = equalBytes(from, EMPTY_TRIE_ROOT) ? null : { t: 3, hash: from };
      this.#root = from;
    } else {
      this.#node = from.node;
      this.#root = from.root;
    }
  }

  /**
   * The trie as committed, with every node loaded or built so far, to start a later PendingTrie on the
   * same root from (its nodes must then be in that trie's database: the root was committed there).
   * Throws when changes are not committed.
   */
  snapshot(): TrieSnapshot {
    if (this.#root === undefined) {
      throw new BaseError("TRIE_NOT_COMMITTED", "Cannot snapshot trie: it has changes not committed");
    }
    return { root: this.#root, node: this.#node };
  }

  /**
   * The value under `key` (hashed, full length) in the trie as it stands (pending changes included);
   * undefined when absent. The nodes read on the way stay loaded.
   */
  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const nibbles = toNibbles(key);
    if (this.#node === null) return undefined;
    if (this.#node.t === 3) this.#node = await this.#batch.load(this.#node);
    let node: Node = this.#node;
    let depth = 0;
    for (;;) {
      if (node.t === 2) {
        if (depth >= nibbles.length) return undefined;
        const i = nibbles[depth++];
        let next: Node | null = node.children[i];
        if (next === null) return undefined;
        if (next.t === 3) node.children[i] = next = await this.#batch.load(next);
        node = next;
        continue;
      }
      if (depth + node.path.length > nibbles.length) return undefined;
      if (compare(node.path, nibbles.subarray(depth, depth + node.path.length)) !== 0) return undefined;
      depth += node.path.length;
      if (node.t === 0) return depth === nibbles.length ? node.value : undefined;
      let next: Node = node.child;
      if (next.t === 3) node.child = next = await this.#batch.load(next);
      node = next;
    }
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
      if (node === null || node.t === 3 || node.hash !== undefined || node.enc !== undefined) return;
      if (depth >= level) {
        this.#batch.encode(node);
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
      // The tree stays: its nodes now carry their hashes (snapshot).
      root = await this.#batch.commit(next);
    }
    this.#root = root;
    return root;
  }
}
