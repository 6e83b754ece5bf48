/**
 * The state manager keel executes on (made by create_state.ts): an archive state trie (keys hashed,
 * nodes never pruned) on TrieDb, with caches (PLATFORM.md: without caches it is about 2x slower). It can open at any
 * state root ever committed to the store. KeelStateManager is @ethereumjs's MerkleStateManager with
 * three measured fixes: storage writes stay in the cache until the flush, the flush updates each
 * trie in one batch (batch_trie.ts), and the account cache keeps objects instead of RLP.
 */
import type { MerklePatriciaTrie } from "@ethereumjs/mpt";
import {
  AccountCache,
  Caches,
  CacheType,
  MerkleStateManager,
  type MerkleStateManagerOpts,
} from "@ethereumjs/statemanager";
import {
  Account,
  Address,
  createAccountFromRLP,
  EthereumJSErrorWithoutCode,
  unpadBytes,
} from "@ethereumjs/util";
import { bytesToHex, bytesToUnprefixedHex, concatBytes, equalBytes, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import { rlpDecode, rlpEncode } from "../../common/rlp.ts";
import { applyTrieUpdates, type TrieUpdate } from "./batch_trie.ts";
import type { TrieDb } from "./trie_db.ts";
import type { PreimageLog } from "./preimages.ts";
import { ACCOUNT_TOMBSTONE, type ForkRemote, isTombstone } from "./fork_source.ts";

/** A copy that shares nothing mutable (storageRoot and codeHash are replaced, never changed in place). */
function copyAccount(a: Account): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
}

/**
 * A cached account kept as an object; its RLP encoding is made when first read (at the flush). A class,
 * so that each put allocates one object (an object literal with a getter also allocates the getter's
 * closure and context every time).
 */
class LazyAccountElement {
  readonly account: Account;
  #rlp: Uint8Array | undefined;

  constructor(account: Account) {
    this.account = account;
  }

  get accountRLP(): Uint8Array {
    return this.#rlp ??= this.account.serialize();
  }
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
    const key = bytesToUnprefixedHex(address.bytes);
    this._saveCachePreState(key);
    this.#set(key, new LazyAccountElement(copyAccount(account)));
    this._stats.writes += 1;
  }

  /** The cached account of `key` (unprefixed lowercase hex): undefined when not cached, null when absent. */
  peek(key: string): Account | null | undefined {
    const elem =
      (this._lruCache !== undefined
        ? this._lruCache.get(key)
        : this._orderedMapCache!.getElementByKey(key)) as
          | Partial<LazyAccountElement>
          | undefined;
    if (elem === undefined) return undefined;
    if (elem.account !== undefined) return elem.account;
    return elem.accountRLP === undefined ? null : createAccountFromRLP(elem.accountRLP);
  }

  /** Replaces a cached account's storage root outside the checkpoint bookkeeping (the root is final). */
  setStorageRoot(key: string, storageRoot: Uint8Array): void {
    const account = this.peek(key);
    if (account === undefined || account === null) return;
    this.#set(
      key,
      new LazyAccountElement(new Account(account.nonce, account.balance, storageRoot, account.codeHash)),
    );
  }

  #set(key: string, elem: LazyAccountElement): void {
    if (this._lruCache !== undefined) this._lruCache.set(key, elem);
    else this._orderedMapCache!.setElement(key, elem);
  }
}

/**
 * An account as a state delta carries it: [address hex, nonce, balance, storageRoot, codeHash]; [address
 * hex, null] when the account is absent (deleted); [address hex] when the manager holds no newer value
 * than the trie (the receiver reads it there).
 */
export type DeltaAccount =
  | [string, bigint, bigint, Uint8Array, Uint8Array]
  | [string, null]
  | [string];

/**
 * The state changes of a block since the last drain (KeelStateManager.drainDelta), for a state root
 * computed elsewhere (root_task.ts). Values are the current ones, not a log.
 */
export interface StateDelta {
  /** Storage restarts from the account's storageRoot (storage cleared, account deleted or re-created). */
  resets: string[];
  accounts: DeltaAccount[];
  /** [address hex, slot hex, the slot's trie value (RLP) or null when deleted]. */
  slots: [string, string, Uint8Array | null][];
}

/** A state root computed outside the manager, with the nodes to store and the new storage roots. */
export interface ExternalState {
  root: Uint8Array;
  /** Address hex -> storage root, for every account whose storage changed. */
  storageRoots: Map<string, Uint8Array>;
  /** Trie nodes, packed (packNodes). */
  nodes: Uint8Array;
  /** The root of the receipts trie of the `count` receipts handed to the job (StateRootJob.addReceipt), all the block's. */
  receipts?: { root: Uint8Array; count: number };
}

/** Trie nodes in one buffer (one transfer between threads): per node its 32-byte hash, u32 length, RLP. */
export function packNodes(nodes: Iterable<[Uint8Array, Uint8Array]>): Uint8Array {
  const list = [...nodes];
  let size = 0;
  for (const [, enc] of list) size += 36 + enc.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const [hash, enc] of list) {
    out.set(hash, at);
    view.setUint32(at + 32, enc.length);
    out.set(enc, at + 36);
    at += 36 + enc.length;
  }
  return out;
}

/** Calls `fn(hash, rlp)` for each node of a packNodes buffer (views into it). */
export function forEachNode(packed: Uint8Array, fn: (hash: Uint8Array, rlp: Uint8Array) => void): void {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  for (let at = 0; at < packed.length;) {
    const len = view.getUint32(at + 32);
    fn(packed.subarray(at, at + 32), packed.subarray(at + 36, at + 36 + len));
    at += 36 + len;
  }
}

interface Stream {
  accounts: Set<string>;
  /** Slots written since the last drain, and since the block began, per address. */
  slots: Map<string, Set<string>>;
  blockSlots: Map<string, Set<string>>;
  /** Slots in `slots`. */
  slotCount: number;
  resets: Set<string>;
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
  /** Where external trie nodes are written (createStateManager sets it). */
  nodeDb?: TrieDb;
  /** Where the addresses and slots flushed are recorded (a database with preimages: createStateManager). */
  preimages?: PreimageLog;
  /** Fork mode: what the local tries never held is the remote's (fork_source.ts; createStateManager). */
  fork?: ForkRemote;
  #stream: Stream | undefined;
  #external: ExternalState | undefined;

  constructor(opts: MerkleStateManagerOpts = {}) {
    super(opts);
  }

  /**
   * Starts recording which accounts and slots change, for drainDelta (at a block's start, with caches:
   * every write then stays in the caches until the flush).
   */
  startStream(): void {
    if (this._caches?.account === undefined || this._caches.storage === undefined) {
      throw new BaseError("STATE_NO_CACHES", "Cannot stream state changes: the state manager has no caches");
    }
    this.#stream = {
      accounts: new Set(),
      slots: new Map(),
      blockSlots: new Map(),
      slotCount: 0,
      resets: new Set(),
    };
  }

  stopStream(): void {
    this.#stream = undefined;
  }

  get streaming(): boolean {
    return this.#stream !== undefined;
  }

  /** Accounts and storage slots changed since the last drain. */
  get pendingChanges(): number {
    const s = this.#stream;
    return s === undefined ? 0 : s.accounts.size + s.slotCount + s.resets.size;
  }

  /** The current values of everything changed since the last drain (see StateDelta). */
  drainDelta(): StateDelta {
    const s = this.#stream;
    if (s === undefined) {
      throw new BaseError("STATE_NOT_STREAMING", "Cannot drain state changes: not streaming");
    }
    const accountCache = this._caches!.account as LazyAccountCache;
    const storage = this._caches!.storage! as unknown as {
      _lruCache?: { get(k: string): Map<string, Uint8Array> | undefined };
      _orderedMapCache?: { getElementByKey(k: string): Map<string, Uint8Array> | undefined };
    };
    const slotsOf = (a: string) => storage._lruCache?.get(a) ?? storage._orderedMapCache?.getElementByKey(a);
    const addresses = new Set(s.accounts);
    for (const a of s.slots.keys()) addresses.add(a);
    for (const a of s.resets) addresses.add(a);
    const accounts: DeltaAccount[] = [];
    for (const a of addresses) {
      const account = accountCache.peek(a);
      if (account === undefined) accounts.push([a]);
      else if (account === null) accounts.push([a, null]);
      else accounts.push([a, account.nonce, account.balance, account.storageRoot, account.codeHash]);
    }
    const slots: StateDelta["slots"] = [];
    for (const [a, keys] of s.slots) {
      // After a reset the storage is rebuilt from the account's root with every slot of the block.
      const map = slotsOf(a);
      for (const k of s.resets.has(a) ? s.blockSlots.get(a)! : keys) {
        const v = map?.get(k);
        slots.push([a, k, v === undefined || (v.length === 1 && v[0] === 0x80) ? null : v]);
      }
    }
    for (const a of s.resets) {
      if (s.slots.has(a)) continue;
      const map = slotsOf(a);
      for (const k of s.blockSlots.get(a) ?? []) {
        const v = map?.get(k);
        slots.push([a, k, v === undefined || (v.length === 1 && v[0] === 0x80) ? null : v]);
      }
    }
    const delta: StateDelta = { resets: [...s.resets], accounts, slots };
    s.accounts = new Set();
    s.slots = new Map();
    s.slotCount = 0;
    s.resets = new Set();
    return delta;
  }

  /**
   * Takes a state root computed elsewhere for the changes of this block: at the next flush (the block's
   * commit) its nodes are written, the trie moves to its root, cached accounts get their new storage
   * roots and the cached changes are dropped instead of being written again.
   */
  adoptExternal(state: ExternalState): void {
    this.#external = state;
  }

  #track(address: Address): string {
    const a = bytesToUnprefixedHex(address.bytes);
    this.#stream!.accounts.add(a);
    return a;
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    await super.putAccount(address, account);
    if (this.#stream !== undefined) {
      const a = this.#track(address);
      if (account === undefined) this.#stream.resets.add(a);
    }
  }

  override async deleteAccount(address: Address): Promise<void> {
    await super.deleteAccount(address);
    if (this.#stream !== undefined) this.#stream.resets.add(this.#track(address));
  }

  override async clearStorage(address: Address): Promise<void> {
    await super.clearStorage(address);
    if (this.#stream !== undefined) this.#stream.resets.add(this.#track(address));
  }

  /** From the lazy cache: a copy of the cached object, no RLP decoding. */
  override async getAccount(address: Address): Promise<Account | undefined> {
    const elem = this._caches?.account?.get(address) as Partial<LazyAccountElement> | undefined;
    if (elem?.account !== undefined) return copyAccount(elem.account);
    if (elem === undefined && this.fork !== undefined) return await this.#forkAccount(address);
    return await super.getAccount(address);
  }

  /** Fork mode: the local trie's account (none for a tombstone), else the remote's. */
  async #forkAccount(address: Address): Promise<Account | undefined> {
    const rlp = await this._trie.get(address.bytes);
    let account: Account | undefined;
    if (rlp !== null) {
      const local = createAccountFromRLP(rlp);
      account = isTombstone(local) ? undefined : local;
    } else {
      const remote = await this.fork!.account(address.bytes);
      // Its storage is the remote's until written: the local storage trie starts empty.
      account = remote === null
        ? undefined
        : new Account(remote.nonce, remote.balance, undefined, remote.codeHash);
    }
    this._caches?.account?.put(address, account);
    return account === undefined ? undefined : copyAccount(account);
  }

  /** Fork mode: a slot the local storage trie does not hold is the remote's. (No await of its own otherwise.) */
  override getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    return this.fork === undefined
      ? super.getStorage(address, key)
      : this.#forkStorage(address, key, this.fork);
  }

  async #forkStorage(address: Address, key: Uint8Array, fork: ForkRemote): Promise<Uint8Array> {
    if (key.length !== 32) throw EthereumJSErrorWithoutCode("Storage key must be 32 bytes long");
    const cached = this._caches?.storage?.get(address, key);
    if (cached !== undefined) return rlpDecode(cached) as Uint8Array;
    const account = await this.getAccount(address);
    if (account === undefined) return new Uint8Array();
    const local = await this._getStorageTrie(address, account).get(key);
    let value: Uint8Array;
    if (local !== null) value = rlpDecode(local) as Uint8Array;
    else {
      const remote = await fork.account(address.bytes);
      value = remote === null || remote.code.length === 0
        ? new Uint8Array()
        : unpadBytes(await fork.storage(address.bytes, key));
    }
    this._caches?.storage?.put(address, key, rlpEncode(value));
    return value;
  }

  /** Fork mode: code not in the local database is the remote account's (checked against the code hash). */
  override getCode(address: Address): Promise<Uint8Array> {
    return this.fork === undefined ? super.getCode(address) : this.#forkCode(address, this.fork);
  }

  async #forkCode(address: Address, fork: ForkRemote): Promise<Uint8Array> {
    const elem = this._caches?.code?.get(address);
    if (elem !== undefined) return elem.code ?? new Uint8Array();
    const account = await this.getAccount(address);
    if (account === undefined || !account.isContract()) return new Uint8Array();
    let code = await this._getCodeDB().get(
      this._prefixCodeHashes ? concatBytes(CODE_PREFIX, account.codeHash) : account.codeHash,
    );
    if (code === undefined || code === null) {
      const remote = await fork.account(address.bytes);
      if (remote === null || !equalBytes(remote.codeHash, account.codeHash)) {
        throw new BaseError(
          "STATE_CODE_MISSING",
          `Cannot read the code of ${address}: hash ${
            bytesToHex(account.codeHash)
          } is neither local nor the remote's`,
        );
      }
      code = remote.code;
    }
    this._caches?.code?.put(address, code);
    return code;
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
    storage.put(address, key, rlpEncode(unpadBytes(value)));
    const stream = this.#stream;
    if (stream !== undefined) {
      const a = bytesToUnprefixedHex(address.bytes);
      const k = bytesToUnprefixedHex(key);
      let set = stream.slots.get(a);
      if (set === undefined) stream.slots.set(a, set = new Set());
      if (!set.has(k)) {
        set.add(k);
        stream.slotCount++;
      }
      let all = stream.blockSlots.get(a);
      if (all === undefined) stream.blockSlots.set(a, all = new Set());
      all.add(k);
    }
  }

  override async flush(): Promise<void> {
    if (this.#external !== undefined && this._checkpointCount === 0) return await this.#flushExternal();
    const caches = this._caches;
    const trieOpts = (this._trie as unknown as { _opts: { useKeyHashing?: boolean; keyPrefix?: Uint8Array } })
      ._opts;
    if (
      caches === undefined || this._prefixStorageTrieKeys || trieOpts.useKeyHashing !== true ||
      trieOpts.keyPrefix !== undefined
    ) {
      return await super.flush();
    }
    const preimages = this.preimages;
    for (const [addressHex, elem] of caches.code?.flush() ?? []) {
      preimages?.record(addressHex);
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
      preimages?.record(addressHex, keyHex);
      const decoded = rlpDecode(value ?? new Uint8Array()) as Uint8Array;
      let list = slots.get(addressHex);
      if (list === undefined) slots.set(addressHex, list = []);
      const zero = decoded.length === 0;
      list.push({
        key: keccak256(hexToBytes(`0x${keyHex}`)),
        // Fork mode: a zero over a remote non-zero stays in the trie as the RLP of zero (fork_source.ts).
        value: !zero || (this.fork !== undefined && await this.#remoteSlotSet(addressHex, keyHex))
          ? rlpEncode(decoded)
          : null,
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
      preimages?.record(addressHex);
      let value = elem.accountRLP ?? null;
      // Fork mode: an account the remote has stays deleted as an empty account (fork_source.ts).
      if (value === null && this.fork !== undefined) {
        if ((await this.fork.account(hexToBytes(`0x${addressHex}`))) !== null) value = ACCOUNT_TOMBSTONE;
      }
      accounts.push({ key: keccak256(hexToBytes(`0x${addressHex}`)), value });
    }
    await applyTrieUpdates(this._trie, accounts);
  }

  /** Fork mode: whether the remote holds a non-zero value in the slot (its account with code). */
  async #remoteSlotSet(addressHex: string, keyHex: string): Promise<boolean> {
    const address = hexToBytes(`0x${addressHex}`);
    const remote = await this.fork!.account(address);
    if (remote === null || remote.code.length === 0) return false;
    return (await this.fork!.storage(address, hexToBytes(`0x${keyHex}`))).some((b) => b !== 0);
  }

  /** The flush of a block whose root was computed elsewhere (adoptExternal). */
  async #flushExternal(): Promise<void> {
    const state = this.#external!;
    this.#external = undefined;
    const caches = this._caches!;
    const preimages = this.preimages;
    for (const [addressHex, elem] of caches.code?.flush() ?? []) {
      preimages?.record(addressHex);
      // The account's codeHash was set by putCode; only the code row is missing.
      if (elem.code === undefined) continue;
      const codeHash = keccak256(elem.code);
      await this._getCodeDB().put(
        this._prefixCodeHashes ? concatBytes(CODE_PREFIX, codeHash) : codeHash,
        elem.code,
      );
    }
    for (const [addressHex, keyHex] of caches.storage?.flush() ?? []) preimages?.record(addressHex, keyHex);
    for (const [addressHex] of caches.account?.flush() ?? []) preimages?.record(addressHex);
    const db = this.nodeDb;
    if (db === undefined) {
      throw new BaseError("STATE_NO_NODE_DB", "Cannot store external trie nodes: no node database");
    }
    forEachNode(state.nodes, (hash, rlp) => db.putNode(hash, rlp));
    const accountCache = caches.account as LazyAccountCache;
    for (const [a, root] of state.storageRoots) accountCache.setStorageRoot(a, root);
    this._trie.root(state.root);
  }
}
