/**
 * The @ethereumjs/mpt `DB` interface over keel's KvStore. The trie's CheckpointDB calls it with
 * unprefixed hex-string keys (node hashes, and `c` + code hash for contract code) and values as
 * bytes (`valueEncoding: "view"`) or unprefixed hex (`"string"`); rows live under
 * PREFIXES.trieNode as prefix ‖ raw key bytes.
 *
 * Archive semantics: trie nodes are content-addressed and shared between state roots, so this
 * adapter never deletes (`del` is a no-op unless `allowDelete`). With `useNodePruning: false`
 * the trie only issues deletes for keys it looked up and did not find (checkpoint bookkeeping),
 * which must not remove a node another trie wrote in the meantime.
 *
 * Atomicity: CheckpointDB calls `batch()` only at the final checkpoint commit, while storage-trie
 * and cache flushes call `put()` one by one (PLATFORM.md). Run the whole block inside one
 * `store.transactionAsync` so all of them land in one sqlite transaction with the block and head.
 *
 * Reads from a sqlite file go through one cache per file, shared by every TrieDb on it (READ_CACHE_BYTES):
 * each block, eth_call and dev block re-reads the same top of the state trie and the same hot
 * accounts from a fresh state manager, and a sqlite lookup costs tens of microseconds where the cache
 * costs one Map lookup. A key fixes its value (a node's hash, a code hash), so an entry never goes
 * stale; it is filled by reads and by the trie's writes, and emptied when a write group rolls back (an
 * entry may hold a node that group wrote).
 */
import type { BatchDBOp, DB, EncodingOpts } from "@ethereumjs/util";
import { bytesToHex, bytesToUnprefixedHex, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { Lru } from "../../common/lru.ts";
import type { KvStore } from "../../db/kv_store.ts";
import { SqliteStore } from "../../db/sqlite_store.ts";
import { PREFIXES } from "../../db/prefixes.ts";

/**
 * Bytes the read cache of one sqlite file may hold, counted as READ_CACHE_OVERHEAD plus the value per
 * entry. Measured (anvil_mine on keel --dev): a dev block (the L1-info deposit alone) read ~100 nodes
 * from sqlite, ~1.5 of its ~10 ms. Larger costs more than it counts: at 16 MiB with 160 bytes of
 * overhead, 100,000 transfers (each sender's account read once) ended at 319 instead of 242 MiB RSS.
 */
export const READ_CACHE_BYTES = 8 * 1024 * 1024;
/**
 * What an entry costs beside its value: the 64-character key, the map entry and the list links, and
 * the value's own ArrayBuffer (sqlite hands each row out in one: V8's buffer and backing-store records).
 */
const READ_CACHE_OVERHEAD = 480;

interface ReadCache {
  lru: Lru<string, Uint8Array>;
  /** The store's rollback count when the entries were read. */
  rollbacks: number;
}

const readCaches = new WeakMap<SqliteStore, ReadCache>();

/** The read cache of `store`'s file, emptied if a write group rolled back since it was last used. */
function readCacheOf(store: SqliteStore): ReadCache {
  let cache = readCaches.get(store);
  if (cache === undefined) {
    cache = {
      lru: new Lru(READ_CACHE_BYTES, (v) => v.length + READ_CACHE_OVERHEAD),
      rollbacks: store.rollbacks,
    };
    readCaches.set(store, cache);
  } else if (cache.rollbacks !== store.rollbacks) {
    cache.lru.clear();
    cache.rollbacks = store.rollbacks;
  }
  return cache;
}

/**
 * Drops the rows `keys` (trie keys, unprefixed hex) from the read cache of `store`'s file: rows a pruning
 * deleted, so that a read of a pruned state fails as a whole instead of finding some nodes still cached.
 */
export function evictCachedRows(store: KvStore, keys: Iterable<string>): void {
  const cache = store instanceof SqliteStore ? readCaches.get(store) : undefined;
  if (cache === undefined) return;
  for (const key of keys) cache.lru.delete(key);
}

type TrieValue = string | Uint8Array;

export interface TrieDbOptions {
  /** Key prefix byte (PREFIXES.trieNode). */
  prefix: number;
  /** Honour deletes (only for a pruning, non-archive trie). */
  allowDelete: boolean;
  /** Read through the file's shared read cache (archive layout on sqlite only). */
  readCache: boolean;
}

export const DEFAULT_TRIE_DB_OPTIONS: TrieDbOptions = {
  prefix: PREFIXES.trieNode,
  allowDelete: false,
  readCache: true,
};

export class TrieDb implements DB<string, TrieValue> {
  readonly store: KvStore;
  readonly options: TrieDbOptions;

  /** The store's read cache, for the default (archive) layout on a sqlite file. */
  readonly #cached: SqliteStore | undefined;

  constructor(store: KvStore, options: Partial<TrieDbOptions> = {}) {
    this.store = store;
    this.options = { ...DEFAULT_TRIE_DB_OPTIONS, ...options };
    const archive = this.options.prefix === PREFIXES.trieNode && !this.options.allowDelete;
    this.#cached = archive && this.options.readCache && store instanceof SqliteStore ? store : undefined;
  }

  /** The value under `hex` (a trie key, unprefixed lower-case hex), through the read cache. */
  #read(hex: string, dbKey: () => Uint8Array): Uint8Array | undefined {
    if (this.#cached === undefined) return this.store.get(dbKey());
    const cache = readCacheOf(this.#cached).lru;
    let value = cache.get(hex);
    if (value === undefined) {
      value = this.store.get(dbKey());
      if (value !== undefined) cache.set(hex, value);
    }
    return value;
  }

  /** The KvStore key of a trie key given as (unprefixed or 0x) hex. */
  dbKey(key: string): Uint8Array {
    if (typeof key !== "string") {
      throw new BaseError(
        "TRIE_DB_BAD_KEY",
        `Cannot use trie key of type ${typeof key}: expected a hex string`,
      );
    }
    const raw = hexToBytes(key);
    const out = new Uint8Array(raw.length + 1);
    out[0] = this.options.prefix;
    out.set(raw, 1);
    return out;
  }

  get(key: string, opts?: EncodingOpts): Promise<TrieValue | undefined> {
    const hex = typeof key === "string" && key.startsWith("0x") ? key.slice(2) : key;
    const value = this.#read(hex, () => this.dbKey(key));
    if (value === undefined) return Promise.resolve(undefined);
    return Promise.resolve(opts?.valueEncoding === "string" ? bytesToHex(value).slice(2) : value);
  }

  put(key: string, value: TrieValue, _opts?: EncodingOpts): Promise<void> {
    this.#write(key, toBytes(value));
    return Promise.resolve();
  }

  /**
   * Stores a row and keeps it in the read cache: a block's new nodes are what the next block and the
   * RPC reads at the new head look up first. (A rollback of the group empties the cache, as for reads.)
   * Only a value that owns its buffer is kept: a view would hold a larger buffer alive.
   */
  #write(key: string, value: Uint8Array): void {
    this.store.put(this.dbKey(key), value);
    if (
      this.#cached !== undefined && value.byteOffset === 0 && value.byteLength === value.buffer.byteLength
    ) {
      readCacheOf(this.#cached).lru.set(key.startsWith("0x") ? key.slice(2) : key, value);
    }
  }

  /** The node stored under `hash` (bytes, no hex round trip). */
  getNode(hash: Uint8Array): Uint8Array | undefined {
    return this.#read(bytesToUnprefixedHex(hash), () => {
      const key = new Uint8Array(hash.length + 1);
      key[0] = this.options.prefix;
      key.set(hash, 1);
      return key;
    });
  }

  /** Stores a node under its hash (bytes, no hex round trip). */
  putNode(hash: Uint8Array, value: Uint8Array): void {
    const out = new Uint8Array(hash.length + 1);
    out[0] = this.options.prefix;
    out.set(hash, 1);
    this.store.put(out, value);
  }

  del(key: string, _opts?: EncodingOpts): Promise<void> {
    if (this.options.allowDelete) this.#delete(key);
    return Promise.resolve();
  }

  /** Deletes a row (a pruning trie), also from the read cache other TrieDbs on the file share. */
  #delete(key: string): void {
    this.store.del(this.dbKey(key));
    if (this.store instanceof SqliteStore && this.options.prefix === PREFIXES.trieNode) {
      readCacheOf(this.store).lru.delete(key.startsWith("0x") ? key.slice(2) : key);
    }
  }

  batch(ops: BatchDBOp<string, TrieValue>[]): Promise<void> {
    this.store.transaction(() => {
      for (const op of ops) {
        if (op.type === "put") this.#write(op.key, toBytes(op.value));
        else if (this.options.allowDelete) this.#delete(op.key);
      }
    });
    return Promise.resolve();
  }

  shallowCopy(): TrieDb {
    return new TrieDb(this.store, this.options);
  }

  open(): Promise<void> {
    return Promise.resolve();
  }
}

function toBytes(value: TrieValue): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === "string") return hexToBytes(value);
  throw new BaseError("TRIE_DB_BAD_VALUE", `Cannot store trie value of type ${typeof value}`);
}
