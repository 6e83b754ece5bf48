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
 */
import type { BatchDBOp, DB, EncodingOpts } from "@ethereumjs/util";
import { bytesToHex, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { KvStore } from "../../db/kv_store.ts";
import { PREFIXES } from "../../db/prefixes.ts";

type TrieValue = string | Uint8Array;

export interface TrieDbOptions {
  /** Key prefix byte (PREFIXES.trieNode). */
  prefix: number;
  /** Honour deletes (only for a pruning, non-archive trie). */
  allowDelete: boolean;
}

export const DEFAULT_TRIE_DB_OPTIONS: TrieDbOptions = {
  prefix: PREFIXES.trieNode,
  allowDelete: false,
};

export class TrieDb implements DB<string, TrieValue> {
  readonly store: KvStore;
  readonly options: TrieDbOptions;

  constructor(store: KvStore, options: Partial<TrieDbOptions> = {}) {
    this.store = store;
    this.options = { ...DEFAULT_TRIE_DB_OPTIONS, ...options };
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
    const value = this.store.get(this.dbKey(key));
    if (value === undefined) return Promise.resolve(undefined);
    return Promise.resolve(opts?.valueEncoding === "string" ? bytesToHex(value).slice(2) : value);
  }

  put(key: string, value: TrieValue, _opts?: EncodingOpts): Promise<void> {
    this.store.put(this.dbKey(key), toBytes(value));
    return Promise.resolve();
  }

  /** The node stored under `hash` (bytes, no hex round trip). */
  getNode(hash: Uint8Array): Uint8Array | undefined {
    const key = new Uint8Array(hash.length + 1);
    key[0] = this.options.prefix;
    key.set(hash, 1);
    return this.store.get(key);
  }

  /** Stores a node under its hash (bytes, no hex round trip). */
  putNode(hash: Uint8Array, value: Uint8Array): void {
    const out = new Uint8Array(hash.length + 1);
    out[0] = this.options.prefix;
    out.set(hash, 1);
    this.store.put(out, value);
  }

  del(key: string, _opts?: EncodingOpts): Promise<void> {
    if (this.options.allowDelete) this.store.del(this.dbKey(key));
    return Promise.resolve();
  }

  batch(ops: BatchDBOp<string, TrieValue>[]): Promise<void> {
    this.store.transaction(() => {
      for (const op of ops) {
        if (op.type === "put") this.store.put(this.dbKey(op.key), toBytes(op.value));
        else if (this.options.allowDelete) this.store.del(this.dbKey(op.key));
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
