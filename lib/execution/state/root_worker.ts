/**
 * The state-root worker (root_task.ts): keeps a block's state trie and storage tries beside the
 * executing thread and folds each StateDelta in as it arrives (batch_trie.ts PendingTrie: nodes loaded
 * and paths rebuilt in memory); while no delta waits it hashes what is settled below the top two
 * levels; at the end it hashes the rest once and answers the root, the new storage roots and the new
 * nodes, and the root of the block's receipts (sent along with the deltas, hashed ahead the same way).
 *
 * Nodes are read from the database file through its own read-only connection (WAL: it sees the last
 * committed block, which is the parent of the block being imported) and written to one packed buffer;
 * the executing thread stores them in the block's own write group. The tries of the last block stay
 * in memory (`hot`): a block on its root, the usual case, starts from them and reads only the nodes
 * they do not hold.
 */
/// <reference lib="deno.worker" />
import { bytesToBigInt, bytesToHex, equalBytes, hexToBytes } from "../../common/bytes.ts";
import { keccak256 } from "../../common/hash.ts";
import { Lru } from "../../common/lru.ts";
import { rlpDecode, rlpEncode } from "../../common/rlp.ts";
import { SqliteStore } from "../../db/mod.ts";
import { type NodeDb, PendingTrie, type TrieUpdate } from "./batch_trie.ts";
import { internKey } from "./trie_node.ts";
import { keepSnapshots, pruneSnapshots, type TrieSnapshot } from "./trie_snapshot.ts";
import type { DeltaAccount, StateDelta } from "./state_manager.ts";
import { unpackDelta, unpackReceipts } from "./delta_codec.ts";
import { EMPTY_TRIE_ROOT } from "../../protocol/block.ts";
import { rlpEncodeIndex } from "../../protocol/ordered_trie.ts";
import { TrieDb } from "./trie_db.ts";
import type { RootRequest, RootResponse, WorkerStep } from "./root_task.ts";

type Fields = [bigint, bigint, Uint8Array, Uint8Array];

/** Node levels left to the final hashing (the root and its children: changed by nearly every delta). */
const PREHASH_LEVEL = 2;

/**
 * Nodes by hash (hex), read or made in recent blocks: the next block reads most of them again (the
 * paths to the accounts it changes), and a node's hash fixes its content, so a cached node is never
 * stale, whichever blocks were committed meanwhile. Sized by the `open` request.
 */
let recentNodes = new Lru<string, Uint8Array>(0);
/** Bytes an entry of `recentNodes` costs beside the node: its 66-character key, the map entry, the array. */
const NODE_OVERHEAD = 100;

/**
 * The tries of the last block finished, as committed (PendingTrie.snapshot): the state trie and the
 * storage tries it changed, by address. The next block nearly always begins on that root, and then
 * starts from these nodes instead of reading and decoding them again. Its nodes are all reachable from
 * its root, and a block begins only on a committed root, so they are all in the database. Kept to the
 * size of the node cache (pruneSnapshots).
 */
let hot: { state: TrieSnapshot; storage: Map<string, TrieSnapshot> } | undefined;
/** Storage tries kept at most (those the last block changed first, then the most recent before). */
const KEPT_STORAGE_TRIES = 1024;
let hotBudget = 0;

/** keccak256 of addresses and storage slots (the trie keys), for the accounts and slots that recur. */
const hashedKeys = new Lru<string, Uint8Array>(65_536);

/** The trie key of an account or a storage slot given as unprefixed hex. */
function trieKey(hex: string): Uint8Array {
  let key = hashedKeys.get(hex);
  if (key === undefined) hashedKeys.set(hex, key = internKey(keccak256(hexToBytes(`0x${hex}`))));
  return key;
}

/**
 * Where a block's tries read and write: reads go to the recent nodes, then the database; writes are
 * appended to one buffer in packNodes' layout (hash, u32 length, RLP), handed over at the end.
 */
class Overlay implements NodeDb {
  readonly copiesValues = true;
  /** Nodes read (from the recent nodes or the database). */
  reads = 0;
  readonly #db: TrieDb;
  #packed = new Uint8Array(262_144);
  #view = new DataView(this.#packed.buffer);
  #length = 0;

  constructor(db: TrieDb) {
    this.#db = db;
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    // Nodes written in this block are never read back: the tries hold what they build as objects.
    this.reads++;
    const hex = bytesToHex(key);
    let node = recentNodes.get(hex);
    if (node === undefined) {
      node = this.#db.getNode(key);
      if (node !== undefined) recentNodes.set(hex, node);
    }
    return Promise.resolve(node);
  }

  put(key: Uint8Array, value: Uint8Array): void {
    const need = this.#length + 36 + value.length;
    if (need > this.#packed.length) {
      const grown = new Uint8Array(Math.max(need, this.#packed.length * 2));
      grown.set(this.#packed.subarray(0, this.#length));
      this.#packed = grown;
      this.#view = new DataView(grown.buffer);
    }
    this.#packed.set(key, this.#length);
    this.#view.setUint32(this.#length + 32, value.length);
    this.#packed.set(value, this.#length + 36);
    this.#length = need;
  }

  /** The nodes written, packed (packNodes' layout), in a buffer of their own. */
  packed(): Uint8Array {
    return this.#packed.slice(0, this.#length);
  }
}

/**
 * One block's tries: changes are applied in memory as they arrive (nodes loaded, paths rebuilt) and
 * hashed once at the end (PendingTrie). An account whose storage changed gets its leaf at the end,
 * when its storage root is known.
 */
class Job {
  readonly overlay: Overlay;
  readonly state: PendingTrie;
  /** Storage tries of the block before (hot), by address: a storage trie on the same root starts from it. */
  readonly #hotStorage: Map<string, TrieSnapshot>;
  /** Account fields last received (null: absent). */
  readonly accounts = new Map<string, Fields | null>();
  /** Storage tries changed in this block, per address. */
  readonly storage = new Map<string, PendingTrie>();
  /** Accounts whose leaf waits for their storage root. */
  readonly deferred = new Set<string>();
  readonly receipts = new ReceiptsTrie();

  constructor(db: TrieDb, root: Uint8Array) {
    this.overlay = new Overlay(db);
    const reuse = hot !== undefined && equalBytes(hot.state.root, root) ? hot : undefined;
    this.state = new PendingTrie(this.overlay, reuse?.state ?? root);
    this.#hotStorage = reuse?.storage ?? new Map();
  }

  async #fields(a: string): Promise<Fields | null> {
    const known = this.accounts.get(a);
    if (known !== undefined) return known;
    // Not sent: unchanged since the parent (the state trie's pending changes never touch it).
    const rlp = await this.state.get(trieKey(a));
    if (rlp === undefined) return null;
    const [nonce, balance, storageRoot, codeHash] = rlpDecode(rlp) as Uint8Array[];
    return [bytesToBigInt(nonce), bytesToBigInt(balance), storageRoot, codeHash];
  }

  #leaf(a: string, fields: Fields | null, storageRoot?: Uint8Array): TrieUpdate {
    const key = trieKey(a);
    if (fields === null) return { key, value: null };
    return {
      key,
      value: rlpEncode([fields[0], fields[1], storageRoot ?? fields[2], fields[3]]),
    };
  }

  /** Storage tries changed by the last delta. */
  #touchedTries = new Set<PendingTrie>();

  /**
   * While no other delta waits: hashes what the deltas so far changed below the top two levels (which
   * nearly every delta changes again), so that little is left to hash once the block ends.
   */
  prehash(): void {
    this.state.prehash(PREHASH_LEVEL);
    for (const t of this.#touchedTries) t.prehash(PREHASH_LEVEL);
    this.#touchedTries.clear();
    this.receipts.trie.prehash(PREHASH_LEVEL);
  }

  /** Loads the paths to these accounts (unprefixed address hex) ahead of their changes. */
  async prefetch(addresses: string[]): Promise<void> {
    await this.state.prefetch(addresses.map(trieKey));
  }

  async apply(delta: StateDelta): Promise<void> {
    for (const a of delta.resets) this.storage.delete(a);
    for (const d of delta.accounts as DeltaAccount[]) {
      if (d.length === 1) continue;
      this.accounts.set(d[0], d[1] === null ? null : [d[1], d[2]!, d[3]!, d[4]!]);
    }
    const slots = new Map<string, TrieUpdate[]>();
    for (const [a, k, v] of delta.slots) {
      let list = slots.get(a);
      if (list === undefined) slots.set(a, list = []);
      list.push({ key: trieKey(k), value: v });
    }
    for (const [a, updates] of slots) {
      const fields = await this.#fields(a);
      if (fields === null) continue; // as the flush: storage of an absent account is not written
      let trie = this.storage.get(a);
      if (trie === undefined) {
        const kept = this.#hotStorage.get(a);
        const from = kept !== undefined && equalBytes(kept.root, fields[2]) ? kept : fields[2];
        this.storage.set(a, trie = new PendingTrie(this.overlay, from));
      }
      await trie.update(updates);
      this.#touchedTries.add(trie);
      this.deferred.add(a);
    }
    const updates: TrieUpdate[] = [];
    for (const d of delta.accounts) {
      if (!this.deferred.has(d[0])) updates.push(this.#leaf(d[0], await this.#fields(d[0])));
    }
    await this.state.update(updates);
  }

  /** Hashes everything: the state root and the storage roots of the accounts whose storage changed. */
  async finish(): Promise<{
    root: Uint8Array;
    storageRoots: [string, Uint8Array][];
    receipts: { root: Uint8Array; count: number };
  }> {
    const storageRoots: [string, Uint8Array][] = [];
    const updates: TrieUpdate[] = [];
    for (const a of this.deferred) {
      const fields = await this.#fields(a);
      const trie = fields === null ? undefined : this.storage.get(a);
      const root = trie === undefined ? undefined : await trie.commit();
      if (root !== undefined) storageRoots.push([a, root]);
      updates.push(this.#leaf(a, fields, root));
    }
    await this.state.update(updates);
    const receipts = { root: await this.receipts.trie.commit(), count: this.receipts.count };
    return { root: await this.state.commit(), storageRoots, receipts };
  }

  /**
   * The tries as committed (after finish), for the next block: the storage tries changed here and those
   * kept from before (a kept one is used only while its root is the account's).
   */
  snapshots(): { state: TrieSnapshot; storage: Map<string, TrieSnapshot> } {
    const changed = new Map<string, TrieSnapshot>();
    for (const [a, trie] of this.storage) changed.set(a, trie.snapshot());
    return {
      state: this.state.snapshot(),
      storage: keepSnapshots(changed, this.#hotStorage, KEPT_STORAGE_TRIES),
    };
  }

  /** The nodes made, packed (packNodes): only committed tries write, so all of them are reachable. */
  newNodes(): Uint8Array {
    return this.overlay.packed();
  }
}

/** The receipts trie keeps no nodes: only its root is wanted. */
const NO_NODES: NodeDb = { get: () => Promise.resolve(undefined), put: () => {}, copiesValues: true };

/**
 * A block's receipts trie (key rlp(index)), built as the receipts arrive and hashed ahead like the state
 * tries, so that its root is ready with the state root (the same root as protocol/ordered_trie.ts).
 */
class ReceiptsTrie {
  readonly trie = new PendingTrie(NO_NODES, EMPTY_TRIE_ROOT);
  count = 0;

  /** Adds receipts `first`, `first + 1`, ...: they must continue the ones before. */
  async add(first: number, receipts: Uint8Array[]): Promise<void> {
    if (first !== this.count) {
      throw new Error(`receipt ${first} arrived after ${this.count} receipts`);
    }
    // The trie takes keys of one length per batch: rlp(i) has one byte below 128, then 2, 3...
    let batch: TrieUpdate[] = [];
    for (let j = 0; j < receipts.length; j++) {
      const key = rlpEncodeIndex(first + j);
      if (batch.length > 0 && batch[0].key.length !== key.length) {
        await this.trie.update(batch);
        batch = [];
      }
      batch.push({ key, value: receipts[j] });
    }
    await this.trie.update(batch);
    this.count += receipts.length;
  }
}

/** Keeps a finished block's tries for the next block, cut to the budget (after answering: off the critical path). */
function keepHot(next: { state: TrieSnapshot; storage: Map<string, TrieSnapshot> }): void {
  hot = next;
  queueMicrotask(() => pruneSnapshots([next.state, ...next.storage.values()], hotBudget));
}

/** Where answers go: the creating thread, or the port it attached (a worker started on its behalf). */
let out: { postMessage(message: unknown, transfer?: Transferable[]): void } = self;
let db: TrieDb | undefined;
let pending: Int32Array | undefined;
let job: { id: number; job: Job; failed?: string } | undefined;
let queue: Promise<void> = Promise.resolve();
/** Milliseconds of the current job: loading paths ahead, applying deltas, hashing ahead, the final hashing. */
const time = { prefetch: 0, apply: 0, prehash: 0, finish: 0 };
/** The current job's messages: when each arrived, started and ended (RootResponse.timeline). */
let timeline: WorkerStep[] = [];

async function handle(msg: RootRequest): Promise<void> {
  if (msg.kind === "open") {
    // Its own node cache (recentNodes) instead of the file's read cache.
    db = new TrieDb(SqliteStore.open(msg.path, { readOnly: true, cacheSizeKiB: msg.cacheSizeKiB }), {
      readCache: false,
    });
    recentNodes = new Lru(msg.nodeCacheKiB * 1024, (node) => node.length + NODE_OVERHEAD);
    hotBudget = msg.nodeCacheKiB * 1024;
    pending = new Int32Array(msg.pending);
    return;
  }
  if (msg.kind === "begin") {
    job = { id: msg.id, job: new Job(db!, msg.root) };
    timeline = [];
    time.prefetch =
      time.apply =
      time.prehash =
      time.finish =
        0;
    return;
  }
  if (job === undefined || job.id !== msg.id) {
    // A cancelled job's messages; a finish still gets an answer, so that nobody waits forever.
    if (msg.kind === "finish") out.postMessage({ id: msg.id, error: "unknown job" } satisfies RootResponse);
    return;
  }
  if (msg.kind === "cancel") {
    job = undefined;
    return;
  }
  if (msg.kind === "prefetch") {
    // A failure here (a missing node) shows again, and is reported, when a change reaches that path.
    if (job.failed === undefined) {
      const t0 = performance.now();
      await job.job.prefetch(msg.addresses).catch(() => {});
      time.prefetch += performance.now() - t0;
    }
    return;
  }
  try {
    if (job.failed === undefined) {
      const t0 = performance.now();
      await job.job.apply(unpackDelta(msg.delta));
      if (msg.receipts !== undefined) {
        const { first, receipts } = unpackReceipts(msg.receipts);
        await job.job.receipts.add(first, receipts);
      }
      const t1 = performance.now();
      time.apply += t1 - t0;
      // Only this message pending: the worker would idle until the next one.
      if (msg.kind === "delta" && Atomics.load(pending!, 0) === 1) {
        job.job.prehash();
        time.prehash += performance.now() - t1;
      }
    }
  } catch (e) {
    job.failed = (e as Error).message;
  }
  if (msg.kind === "finish") {
    const j = job;
    job = undefined;
    let response: RootResponse;
    if (j.failed !== undefined) response = { id: j.id, error: j.failed };
    else {
      try {
        const t0 = performance.now();
        const { root, storageRoots, receipts } = await j.job.finish();
        const nodes = j.job.newNodes();
        time.finish += performance.now() - t0;
        keepHot(j.job.snapshots());
        response = {
          id: j.id,
          root,
          storageRoots,
          nodes,
          receipts,
          ms: { ...time },
          reads: j.job.overlay.reads,
          // The finish itself is not in it yet: it ends with this answer.
          timeline,
        };
        out.postMessage(response, [nodes.buffer as ArrayBuffer]);
        return;
      } catch (e) {
        response = { id: j.id, error: (e as Error).message };
      }
    }
    out.postMessage(response);
  }
}

/** Absolute milliseconds (comparable between threads). */
const now = () => performance.timeOrigin + performance.now();

function receive(msg: RootRequest): void {
  const arrived = now();
  queue = queue.then(async () => {
    const started = now();
    await handle(msg);
    if (msg.kind !== "open" && msg.kind !== "begin") {
      const size = msg.kind === "delta" || msg.kind === "finish"
        ? new DataView(msg.delta.buffer, msg.delta.byteOffset).getUint32(4) // the accounts (delta_codec.ts)
        : msg.kind === "prefetch"
        ? msg.addresses.length
        : 0;
      timeline.push({ kind: msg.kind, size, arrived, started, ended: now() });
    }
  }).finally(() => {
    if (msg.kind === "delta" || msg.kind === "finish") Atomics.sub(pending!, 0, 1);
  });
}

self.onmessage = (e: MessageEvent<RootRequest | { kind: "attach"; port: MessagePort }>) => {
  const msg = e.data;
  if (msg.kind === "attach") {
    // Started by another thread for the node Worker (lib/node/threads.ts): talk over the port.
    out = msg.port;
    msg.port.onmessage = (m: MessageEvent<RootRequest>) => receive(m.data);
    return;
  }
  receive(msg);
};
