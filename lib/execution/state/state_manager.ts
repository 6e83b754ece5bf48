/**
 * Builds the MerkleStateManager keel executes on: an archive state trie (keys hashed, nodes never
 * pruned) on TrieDb, with `new Caches()` (PLATFORM.md: without caches it is about 2x slower).
 * It can open at any state root ever committed to the store.
 */
import type { Common } from "@ethereumjs/common";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { bytesToHex, equalBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { KvStore } from "../../db/kv_store.ts";
import { EMPTY_TRIE_ROOT } from "../../protocol/block.ts";
import { TrieDb } from "./trie_db.ts";

export interface StateManagerOptions {
  /** Chain rules for the state manager (defaults to @ethereumjs mainnet). */
  common?: Common;
  /** LRU size of the trie's decoded-node cache (0 = none; the sqlite page cache still applies). */
  trieCacheSize: number;
  /** Give the manager account/storage/code caches. */
  caches: boolean;
}

export const DEFAULT_STATE_MANAGER_OPTIONS: StateManagerOptions = {
  trieCacheSize: 0,
  // PLATFORM.md: `new MerkleStateManager()` has no caches unless given `caches: new Caches()`.
  caches: true,
};

/** A MerkleStateManager over `store`, positioned at `stateRoot` (the empty root when omitted). */
export async function createStateManager(
  store: KvStore,
  stateRoot: Uint8Array = EMPTY_TRIE_ROOT,
  options: Partial<StateManagerOptions> = {},
): Promise<MerkleStateManager> {
  const opts = { ...DEFAULT_STATE_MANAGER_OPTIONS, ...options };
  const trie = new MerklePatriciaTrie({
    db: new TrieDb(store),
    useKeyHashing: true,
    valueEncoding: "view",
    useNodePruning: false,
    useRootPersistence: false,
    cacheSize: opts.trieCacheSize,
    common: opts.common,
  });
  const sm = new MerkleStateManager({
    trie,
    common: opts.common,
    caches: opts.caches ? new Caches() : undefined,
  });
  if (!equalBytes(stateRoot, EMPTY_TRIE_ROOT)) {
    if (!(await trie.checkRoot(stateRoot))) {
      throw new BaseError(
        "STATE_ROOT_MISSING",
        `Cannot open state at root ${bytesToHex(stateRoot)}: not in the database`,
        {
          meta: { stateRoot: bytesToHex(stateRoot) },
        },
      );
    }
    await sm.setStateRoot(stateRoot);
  }
  return sm;
}

/** True when the trie node of `stateRoot` is in the store (the empty root always is). */
export function hasStateRoot(store: KvStore, stateRoot: Uint8Array): boolean {
  if (equalBytes(stateRoot, EMPTY_TRIE_ROOT)) return true;
  const db = new TrieDb(store);
  return store.has(db.dbKey(bytesToHex(stateRoot)));
}
