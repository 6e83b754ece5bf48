/**
 * Builds the state manager keel executes on: an archive state trie (keys hashed, nodes never pruned)
 * on TrieDb, with caches (PLATFORM.md: without caches it is about 2x slower). It can open at any
 * state root ever committed to the store. KeelStateManager is @ethereumjs's MerkleStateManager with
 * three measured fixes: storage writes stay in the cache until the flush, the flush updates each
 * trie in one batch (batch_trie.ts), and the account cache keeps objects instead of RLP.
 */
import type { Common } from "@ethereumjs/common";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import {
  AccountCache,
  Caches,
  CacheType,
  MerkleStateManager,
  type MerkleStateManagerOpts,
} from "@ethereumjs/statemanager";
import { Account, Address, EthereumJSErrorWithoutCode, unpadBytes } from "@ethereumjs/util";
import { bytesToHex, concatBytes, equalBytes, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { KvStore } from "../../db/kv_store.ts";
import { EMPTY_TRIE_ROOT } from "../../protocol/block.ts";
import { keccak256 } from "../../common/hash.ts";
import { applyTrieUpdates, type TrieUpdate } from "./batch_trie.ts";
import { TrieDb } from "./trie_db.ts";

/** A copy that shares nothing mutable (storageRoot and codeHash are replaced, never changed in place). */
function copyAccount(a: Account): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** The account cache's key: unprefixed lowercase hex of the address. */
function addressKey(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]];
  return s;
}

/** A cached account kept as an object; its RLP encoding is made when first read (at the flush). */
interface LazyAccountElement {
  account: Account;
  readonly accountRLP: Uint8Array;
}

/**
 * Account cache that keeps account objects and encodes them only when the flush reads `accountRLP`.
 * The upstream cache stores RLP, so every getAccount decoded and every putAccount encoded (about a
 * fifth of ERC-20 execution time, measured). Checkpoints, reverts and flushes are upstream's.
 */
export class LazyAccountCache extends AccountCache {
  override put(address: Address, account: Account | undefined, couldBePartialAccount = false): void {
    if (account === undefined || couldBePartialAccount) {
      super.put(address, account, couldBePartialAccount);
      return;
    }
    const key = addressKey(address.bytes);
    this._saveCachePreState(key);
    const snapshot = copyAccount(account);
    let rlp: Uint8Array | undefined;
    const elem: LazyAccountElement = {
      account: snapshot,
      get accountRLP() {
        return rlp ??= snapshot.serialize();
      },
    };
    if (this._lruCache !== undefined) this._lruCache.set(key, elem);
    else this._orderedMapCache!.setElement(key, elem);
    this._stats.writes += 1;
  }
}

/** Caches with the lazy account cache. */
export function keelCaches(): Caches {
  const caches = new Caches();
  if (caches.account !== undefined) {
    caches.account = new LazyAccountCache({
      size: caches.settings.account.size,
      type: caches.settings.account.type ?? CacheType.ORDERED_MAP,
    });
  }
  return caches;
}

/** Prefix of contract code rows in the trie database (@ethereumjs/statemanager CODEHASH_PREFIX, "c"). */
const CODE_PREFIX = new Uint8Array([0x63]);

/**
 * MerkleStateManager whose cache flush writes each trie in one batch (batch_trie.ts): all storage
 * slots of an account, then all accounts, each touched trie node hashed once. The upstream flush puts
 * key by key, re-hashing the path to the root every time (~280 ms for the storage of a 500-transfer
 * ERC-20 block, measured). Same tries, same roots (tested against upstream).
 */
export class KeelStateManager extends MerkleStateManager {
  constructor(opts: MerkleStateManagerOpts = {}) {
    super(opts);
  }

  /** From the lazy cache: a copy of the cached object, no RLP decoding. */
  override async getAccount(address: Address): Promise<Account | undefined> {
    const elem = this._caches?.account?.get(address) as Partial<LazyAccountElement> | undefined;
    if (elem?.account !== undefined) return copyAccount(elem.account);
    return await super.getAccount(address);
  }

  /**
   * The account's storage trie, at the account's storage root. (The tries are kept per address across
   * blocks; the account is the truth when it was deleted and re-created, or its storage cleared.)
   */
  protected override _getStorageTrie(
    addressOrHash: Address | { bytes: Uint8Array } | Uint8Array,
    rootAccount?: Account,
  ): MerklePatriciaTrie {
    const trie = super._getStorageTrie(addressOrHash, rootAccount);
    if (rootAccount !== undefined && !equalBytes(trie.root(), rootAccount.storageRoot)) {
      trie.root(rootAccount.storageRoot);
    }
    return trie;
  }

  /**
   * With caches, a storage write goes to the storage cache only. (Upstream writes through to the
   * storage trie as well, since `cache.put(...) ?? write()` always takes the right side: one trie
   * put, path re-hash and account re-encoding per SSTORE; the flush then writes it again.)
   */
  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const storage = this._caches?.storage;
    if (storage === undefined) return await super.putStorage(address, key, value);
    if (key.length !== 32) throw EthereumJSErrorWithoutCode("Storage key must be 32 bytes long");
    if (value.length > 32) throw EthereumJSErrorWithoutCode("Storage value cannot be longer than 32 bytes");
    if ((await this.getAccount(address)) === undefined) {
      throw EthereumJSErrorWithoutCode("putStorage() called on non-existing account");
    }
    storage.put(address, key, RLP.encode(unpadBytes(value)));
  }

  override async flush(): Promise<void> {
    const caches = this._caches;
    const trieOpts = (this._trie as unknown as { _opts: { useKeyHashing?: boolean; keyPrefix?: Uint8Array } })
      ._opts;
    if (
      caches === undefined || this._prefixStorageTrieKeys || trieOpts.useKeyHashing !== true ||
      trieOpts.keyPrefix !== undefined
    ) {
      return await super.flush();
    }
    for (const [addressHex, elem] of caches.code?.flush() ?? []) {
      const code = elem.code;
      if (code === undefined) continue;
      const address = new Address(hexToBytes(`0x${addressHex}`));
      const codeHash = keccak256(code);
      await this._getCodeDB().put(
        this._prefixCodeHashes ? concatBytes(CODE_PREFIX, codeHash) : codeHash,
        code,
      );
      const account = (await this.getAccount(address)) ?? new Account();
      account.codeHash = codeHash;
      await this.putAccount(address, account);
    }
    const slots = new Map<string, TrieUpdate[]>();
    for (const [addressHex, keyHex, value] of caches.storage?.flush() ?? []) {
      const decoded = RLP.decode(value ?? new Uint8Array()) as Uint8Array;
      let list = slots.get(addressHex);
      if (list === undefined) slots.set(addressHex, list = []);
      list.push({
        key: keccak256(hexToBytes(`0x${keyHex}`)),
        value: decoded.length === 0 ? null : RLP.encode(decoded),
      });
    }
    for (const [addressHex, updates] of slots) {
      const address = new Address(hexToBytes(`0x${addressHex}`));
      const account = await this.getAccount(address);
      if (account === undefined) continue;
      const trie = this._getStorageTrie(address, account);
      account.storageRoot = await applyTrieUpdates(trie, updates);
      await this.putAccount(address, account);
    }
    const accounts: TrieUpdate[] = [];
    for (const [addressHex, elem] of caches.account?.flush() ?? []) {
      accounts.push({ key: keccak256(hexToBytes(`0x${addressHex}`)), value: elem.accountRLP ?? null });
    }
    await applyTrieUpdates(this._trie, accounts);
  }
}

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
): Promise<KeelStateManager> {
  const opts = { ...DEFAULT_STATE_MANAGER_OPTIONS, ...options };
  const trie = new MerklePatriciaTrie({
    db: new TrieDb(store),
    useKeyHashing: true,
    useKeyHashingFunction: keccak256,
    valueEncoding: "view",
    useNodePruning: false,
    useRootPersistence: false,
    cacheSize: opts.trieCacheSize,
    common: opts.common,
  });
  const sm = new KeelStateManager({
    trie,
    common: opts.common,
    caches: opts.caches ? keelCaches() : undefined,
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
