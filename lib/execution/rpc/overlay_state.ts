/**
 * A throwaway write layer over a read-only state manager, for eth_call and eth_estimateGas.
 * Reads fall through to the base (whose caches then stay warm across calls: a checkpoint and
 * revert on the base would drop every value read inside it); writes, nested checkpoints and
 * reverts stay in memory here. `reset()` drops everything above the pinned layer (the state
 * overrides of the call: whatever is written before the first reset).
 */
import type { AccountFields, StateManagerInterface } from "@ethereumjs/common";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, type Address } from "@ethereumjs/util";
import { BaseError, bytesToHex, keccak256 } from "../../common/mod.ts";
import { EVM_TIMEOUT } from "../evm/mod.ts";

interface Layer {
  /** Account, or null when deleted. */
  accounts: Map<string, Account | null>;
  code: Map<string, Uint8Array>;
  /** Key: address hex + slot hex. */
  storage: Map<string, Uint8Array>;
  /** Accounts whose storage was cleared in this layer (lower layers and the base are hidden). */
  cleared: Set<string>;
}

function newLayer(): Layer {
  return { accounts: new Map(), code: new Map(), storage: new Map(), cleared: new Set() };
}

/** Emptied layers kept for reuse at most: a call checkpoints at every frame and resets once. */
const SPARE_LAYERS = 64;

const EMPTY = new Uint8Array();

/** Entries kept of base reads before the memo is dropped (the base is immutable: no staleness). */
const BASE_MEMO_LIMIT = 50_000;

function clone(a: Account): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash, a.codeSize, a.version);
}

export class OverlayState implements StateManagerInterface {
  #base: MerkleStateManager;
  /**
   * Date.now() after which every state read throws (rpc.evmtimeout): stops a timed-out call at
   * its next state access instead of letting it run on in the background; the call VM's jumps
   * read it too (installDeadlineCheck), for loops without state access. 0 = none. (Date.now
   * rather than performance.now: the latter is a runtime op, 1% of a balanceOf call, measured.)
   */
  deadline = 0;
  #layers: Layer[] = [newLayer()];
  /** Layers dropped, emptied, for the next checkpoint or reset (four collections fewer to allocate each). */
  #spare: Layer[] = [];
  #pinned = 1;
  readonly #original = new Map<string, Uint8Array>();
  /** Reads of the base, kept across calls: a state root never changes. */
  readonly #baseAccounts = new Map<string, Account | null>();
  readonly #baseCode = new Map<string, Uint8Array>();
  readonly #baseStorage = new Map<string, Uint8Array>();

  readonly originalStorageCache = {
    get: async (address: Address, key: Uint8Array): Promise<Uint8Array> => {
      const k = storageKey(address, key);
      const hit = this.#original.get(k);
      if (hit !== undefined) return hit;
      const value = await this.#readStorage(address, key, this.#pinned);
      this.#original.set(k, value);
      return value;
    },
    clear: (): void => this.#original.clear(),
  };

  constructor(base: MerkleStateManager) {
    this.#base = base;
  }

  /** The state below the overlay. */
  get base(): MerkleStateManager {
    return this.#base;
  }

  /**
   * Moves the overlay onto another state (a call VM kept for the next head, call.ts): every write
   * (state overrides in the pinned layer included) and every read of the old base is dropped.
   */
  rebase(base: MerkleStateManager): void {
    this.#base = base;
    this.#baseAccounts.clear();
    this.#baseCode.clear();
    this.#baseStorage.clear();
    this.#layers = [newLayer()];
    this.reset();
  }

  /** Drops every write above the pinned layer. */
  reset(): void {
    while (this.#layers.length > this.#pinned) this.#recycle(this.#layers.pop()!);
    this.#layers.push(this.#freshLayer());
    this.#original.clear();
  }

  #freshLayer(): Layer {
    return this.#spare.pop() ?? newLayer();
  }

  #recycle(layer: Layer): void {
    if (this.#spare.length >= SPARE_LAYERS) return;
    layer.accounts.clear();
    layer.code.clear();
    layer.storage.clear();
    layer.cleared.clear();
    this.#spare.push(layer);
  }

  get #top(): Layer {
    return this.#layers[this.#layers.length - 1];
  }

  #checkDeadline(): void {
    if (this.deadline !== 0 && Date.now() > this.deadline) {
      throw new BaseError(EVM_TIMEOUT, "execution aborted (timeout)");
    }
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    this.#checkDeadline();
    const k = address.toString();
    for (let i = this.#layers.length - 1; i >= 0; i--) {
      const v = this.#layers[i].accounts.get(k);
      if (v !== undefined) return v === null ? undefined : clone(v);
    }
    let base = this.#baseAccounts.get(k);
    if (base === undefined) {
      base = (await this.base.getAccount(address)) ?? null;
      this.#memo(this.#baseAccounts, k, base);
    }
    return base === null ? undefined : clone(base);
  }

  #memo<V>(map: Map<string, V>, key: string, value: V): void {
    if (map.size >= BASE_MEMO_LIMIT) map.clear();
    map.set(key, value);
  }

  putAccount(address: Address, account?: Account): Promise<void> {
    this.#top.accounts.set(address.toString(), account === undefined ? null : clone(account));
    return Promise.resolve();
  }

  deleteAccount(address: Address): Promise<void> {
    const k = address.toString();
    const top = this.#top;
    top.accounts.set(k, null);
    top.code.set(k, EMPTY);
    top.cleared.add(k);
    for (const key of top.storage.keys()) if (key.startsWith(k)) top.storage.delete(key);
    return Promise.resolve();
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account();
    if (fields.nonce !== undefined) account.nonce = fields.nonce;
    if (fields.balance !== undefined) account.balance = fields.balance;
    if (fields.storageRoot !== undefined) account.storageRoot = fields.storageRoot;
    if (fields.codeHash !== undefined) account.codeHash = fields.codeHash;
    if (fields.codeSize !== undefined) account.codeSize = fields.codeSize;
    await this.putAccount(address, account);
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.#top.code.set(address.toString(), value);
    await this.modifyAccountFields(address, { codeHash: keccak256(value), codeSize: value.length });
  }

  async getCode(address: Address): Promise<Uint8Array> {
    this.#checkDeadline();
    const k = address.toString();
    for (let i = this.#layers.length - 1; i >= 0; i--) {
      const v = this.#layers[i].code.get(k);
      if (v !== undefined) return v;
    }
    let code = this.#baseCode.get(k);
    if (code === undefined) {
      code = await this.base.getCode(address);
      this.#memo(this.#baseCode, k, code);
    }
    return code;
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    this.#checkDeadline();
    return this.#readStorage(address, key, this.#layers.length);
  }

  /** Storage as seen through the lowest `depth` layers and the base. */
  async #readStorage(address: Address, key: Uint8Array, depth: number): Promise<Uint8Array> {
    const a = address.toString();
    const k = a + bytesToHex(key).slice(2);
    for (let i = depth - 1; i >= 0; i--) {
      const layer = this.#layers[i];
      const v = layer.storage.get(k);
      if (v !== undefined) return v;
      if (layer.cleared.has(a)) return EMPTY;
    }
    let value = this.#baseStorage.get(k);
    if (value === undefined) {
      value = await this.base.getStorage(address, key);
      this.#memo(this.#baseStorage, k, value);
    }
    return value;
  }

  putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    let i = 0;
    while (i < value.length && value[i] === 0) i++;
    this.#top.storage.set(storageKey(address, key), value.subarray(i));
    return Promise.resolve();
  }

  clearStorage(address: Address): Promise<void> {
    const a = address.toString();
    const top = this.#top;
    top.cleared.add(a);
    for (const key of top.storage.keys()) if (key.startsWith(a)) top.storage.delete(key);
    return Promise.resolve();
  }

  checkpoint(): Promise<void> {
    this.#layers.push(this.#freshLayer());
    return Promise.resolve();
  }

  commit(): Promise<void> {
    this.#mergeTop();
    return Promise.resolve();
  }

  revert(): Promise<void> {
    if (this.#layers.length > 1) this.#recycle(this.#layers.pop()!);
    return Promise.resolve();
  }

  #mergeTop(): void {
    if (this.#layers.length < 2) return;
    const top = this.#layers.pop()!;
    const below = this.#top;
    for (const a of top.cleared) {
      below.cleared.add(a);
      for (const key of below.storage.keys()) if (key.startsWith(a)) below.storage.delete(key);
    }
    for (const [k, v] of top.accounts) below.accounts.set(k, v);
    for (const [k, v] of top.code) below.code.set(k, v);
    for (const [k, v] of top.storage) below.storage.set(k, v);
    this.#recycle(top);
  }

  getStateRoot(): Promise<Uint8Array> {
    return Promise.reject(new BaseError("STATE_OVERLAY", "Cannot compute a state root of a call overlay"));
  }

  setStateRoot(): Promise<void> {
    return Promise.reject(new BaseError("STATE_OVERLAY", "Cannot set the state root of a call overlay"));
  }

  hasStateRoot(root: Uint8Array): Promise<boolean> {
    return this.base.hasStateRoot(root);
  }

  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    return new OverlayState(this.base);
  }
}

function storageKey(address: Address, key: Uint8Array): string {
  return address.toString() + bytesToHex(key).slice(2);
}
