/**
 * Making a state manager over a KvStore: the KeelStateManager (state_manager.ts) on a KeelTrie
 * (keel_trie.ts) over the store's trie nodes, with keel's caches, the store's preimage log when it keeps
 * one (preimages.ts) and one shared Common.
 */
import { Common, Mainnet } from "@ethereumjs/common";
import type { MerkleStateManagerOpts } from "@ethereumjs/statemanager";
import { bytesToHex, equalBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import type { KvStore } from "../../db/kv_store.ts";
import { EMPTY_TRIE_ROOT } from "../../protocol/block.ts";
import { KeelTrie } from "./keel_trie.ts";
import { preimageLogOf } from "./preimages.ts";
import { forkOf } from "./fork_source.ts";
import { keelCaches, KeelStateManager } from "./state_manager.ts";
import { TrieDb } from "./trie_db.ts";

export interface StateManagerOptions {
  /** Chain rules for the state manager (defaults to @ethereumjs mainnet). */
  common?: Common;
  /** LRU size of the trie's decoded-node cache (0 = none; the sqlite page cache still applies). */
  trieCacheSize: number;
  /** Give the manager account/storage/code caches. */
  caches: boolean;
  /** The class to make (a KeelStateManager subclass, e.g. recording_state.ts). */
  manager?: new (opts: MerkleStateManagerOpts) => KeelStateManager;
}

export const DEFAULT_STATE_MANAGER_OPTIONS: StateManagerOptions = {
  trieCacheSize: 0,
  // PLATFORM.md: `new MerkleStateManager()` has no caches unless given `caches: new Caches()`.
  caches: true,
};

let defaultCommon: Common | undefined;

/**
 * The Common of state managers not given one, built once: upstream makes a new mainnet Common per
 * manager (~0.4 ms; the dev chain opens managers for the pool's new-head pass and each changed head,
 * CPU profile), with the pure-JS keccak256 for code hashes and storage-trie addresses; this one has
 * keel's. A manager only reads its Common (shallowCopy copies it).
 */
function stateCommon(): Common {
  return defaultCommon ??= new Common({ chain: Mainnet, customCrypto: { keccak256 } });
}

/** A MerkleStateManager over `store`, positioned at `stateRoot` (the empty root when omitted). */
export async function createStateManager(
  store: KvStore,
  stateRoot: Uint8Array = EMPTY_TRIE_ROOT,
  options: Partial<StateManagerOptions> = {},
): Promise<KeelStateManager> {
  const opts = { ...DEFAULT_STATE_MANAGER_OPTIONS, ...options };
  const common = opts.common ?? stateCommon();
  const trie = new KeelTrie({
    db: new TrieDb(store),
    useKeyHashing: true,
    useKeyHashingFunction: keccak256,
    valueEncoding: "view",
    useNodePruning: false,
    useRootPersistence: false,
    cacheSize: opts.trieCacheSize,
    common,
  });
  const sm = new (opts.manager ?? KeelStateManager)({
    trie,
    common,
    caches: opts.caches ? keelCaches() : undefined,
  });
  sm.nodeDb = new TrieDb(store);
  sm.preimages = preimageLogOf(store);
  sm.fork = forkOf(store);
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
