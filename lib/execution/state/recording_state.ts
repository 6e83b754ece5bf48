/**
 * A KeelStateManager that records, transaction by transaction, what a run read and wrote
 * (speculative execution, evm/speculation.ts): the value of every account and slot a transaction read
 * before writing it itself, the values it left in the accounts and slots it wrote, and the amounts it
 * credited to accounts that only receive fees (the coinbase and the fee vaults). A transaction's
 * effects carry over to another state when every value it read is the same there; fee credits add up
 * whatever order they come in, so they are carried as amounts instead of values.
 *
 * What a record cannot carry marks the transaction unsafe: any other access to a fee recipient (a
 * BALANCE of a vault, a call into one), code written, an account deleted or its storage cleared.
 */
import { Account, Address } from "@ethereumjs/util";
import { bytesToUnprefixedHex, equalBytes, hexToBytes } from "../../common/bytes.ts";
import { KeelStateManager, type LazyAccountCache, type StateDelta } from "./state_manager.ts";

/** A zero slot as the storage cache holds it (RLP of the empty string). */
const RLP_ZERO = new Uint8Array([0x80]);

/** Drops `key` from an @ethereumjs cache (its LRU or ordered map), so that the next read goes to the trie. */
function evict(cache: unknown, key: string): void {
  const c = cache as {
    _lruCache?: { delete(k: string): void };
    _orderedMapCache?: { eraseElementByKey(k: string): void };
  };
  c._lruCache?.delete(key);
  c._orderedMapCache?.eraseElementByKey(key);
}

/** An account as a transaction read it: absent (null), or the fields execution can observe. */
export type ReadAccount = null | { nonce: bigint; balance: bigint; codeHash: Uint8Array };

/** What one transaction of a run read (before writing it itself) and what it left. */
export interface TxRecord {
  /** Address hex -> the account as first read. */
  accountReads: [string, ReadAccount][];
  /** Address hex, slot, value as first read. */
  slotReads: [string, Uint8Array, Uint8Array][];
  /** Accounts written: address hex, nonce and balance after the transaction. */
  accounts: [string, bigint, bigint][];
  /** Slots written: address hex, slot, value after the transaction. */
  slots: [string, Uint8Array, Uint8Array][];
  /** Fee recipients credited: address hex, amount. */
  credits: [string, bigint][];
}

export class RecordingStateManager extends KeelStateManager {
  /** Addresses (unprefixed hex) that may only be credited: every other access marks the run unsafe. */
  readonly creditOnly: Set<string> = new Set();
  /** Set by the fee code around a credit to a fee recipient (markCredit). */
  crediting = false;
  /** Off while the run's own preparation (system calls, deposits) executes, and between transactions. */
  recording = false;
  /** Why the transaction now executing cannot be carried (undefined: it can). */
  unsafeReason: string | undefined;
  #accountReads = new Map<string, ReadAccount>();
  #slotReads = new Map<string, [string, Uint8Array, Uint8Array]>();
  #accountWrites = new Map<string, Address>();
  #slotWrites = new Map<string, [Address, Uint8Array]>();
  /** Fee recipient -> its balance before this transaction's first credit. */
  #creditStart = new Map<string, [Address, bigint]>();

  /**
   * Moves the cached state to the next block's (`root`) by the block's changes (its packed deltas as
   * the state-root worker got them, delta_codec.ts, and its new storage roots) instead of dropping the
   * caches: the next block's transactions mostly read what the last one changed. Changed values are
   * cached as they are at `root`; accounts the deltas do not describe are dropped, and so is the cached
   * code of every account whose code hash may have changed. Call between runs (no checkpoint open).
   */
  async adoptChanges(
    root: Uint8Array,
    deltas: StateDelta[],
    storageRoots: Map<string, Uint8Array>,
  ): Promise<void> {
    const caches = this._caches!;
    const accounts = caches.account as LazyAccountCache;
    const storage = caches.storage!;
    const dropAccounts: string[] = [];
    const dropCode: string[] = [];
    for (const delta of deltas) {
      for (const a of delta.resets) storage.clearStorage(new Address(hexToBytes(a)));
      for (const d of delta.accounts) {
        const a = d[0];
        const address = new Address(hexToBytes(a));
        if (d.length === 1) {
          dropAccounts.push(a);
          dropCode.push(a);
        } else if (d.length === 2) {
          accounts.put(address, undefined);
          dropCode.push(a);
        } else {
          const before = accounts.peek(a);
          if (before === undefined || before === null || !equalBytes(before.codeHash, d[4])) dropCode.push(a);
          accounts.put(address, new Account(d[1], d[2], d[3], d[4]));
        }
      }
      for (const [a, k, v] of delta.slots) {
        storage.put(new Address(hexToBytes(a)), hexToBytes(k), v ?? RLP_ZERO);
      }
    }
    // The flush of a block whose root came from elsewhere: the puts above are taken as stored.
    this.adoptExternal({ root, storageRoots, nodes: new Uint8Array(0) });
    await this.flush();
    for (const a of dropAccounts) evict(caches.account, a);
    for (const a of dropCode) evict(caches.code, a);
  }

  /** Starts recording a transaction. */
  beginTx(): void {
    this.#accountReads.clear();
    this.#slotReads.clear();
    this.#accountWrites.clear();
    this.#slotWrites.clear();
    this.#creditStart.clear();
    this.unsafeReason = undefined;
    this.crediting = false;
    this.recording = true;
  }

  /** Stops recording; the transaction's record (its writes as they are now). */
  async endTx(): Promise<TxRecord> {
    this.recording = false;
    const accounts: TxRecord["accounts"] = [];
    for (const [a, address] of this.#accountWrites) {
      const account = await this.getAccount(address);
      accounts.push([a, account!.nonce, account!.balance]);
    }
    const slots: TxRecord["slots"] = [];
    for (const [address, key] of this.#slotWrites.values()) {
      slots.push([bytesToUnprefixedHex(address.bytes), key, await this.getStorage(address, key)]);
    }
    const credits: TxRecord["credits"] = [];
    for (const [a, [address, before]] of this.#creditStart) {
      const delta = ((await this.getAccount(address))?.balance ?? 0n) - before;
      if (delta !== 0n) credits.push([a, delta]);
    }
    return {
      accountReads: [...this.#accountReads],
      slotReads: [...this.#slotReads.values()],
      accounts,
      slots,
      credits,
    };
  }

  /** Marks the transaction now executing as one the merge cannot carry. */
  markUnsafe(reason: string): void {
    this.unsafeReason ??= reason;
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    const account = await super.getAccount(address);
    if (this.recording) {
      const a = bytesToUnprefixedHex(address.bytes);
      if (this.creditOnly.has(a)) {
        if (!this.crediting) this.markUnsafe(`reads fee recipient ${a}`);
        else if (!this.#creditStart.has(a)) {
          if (account === undefined) this.markUnsafe(`credits absent fee recipient ${a}`);
          this.#creditStart.set(a, [address, account?.balance ?? 0n]);
        }
      } else if (!this.#accountWrites.has(a) && !this.#accountReads.has(a)) {
        this.#accountReads.set(
          a,
          account === undefined
            ? null
            : { nonce: account.nonce, balance: account.balance, codeHash: account.codeHash },
        );
      }
    }
    return account;
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    await super.putAccount(address, account);
    if (!this.recording) return;
    const a = bytesToUnprefixedHex(address.bytes);
    if (account === undefined) this.markUnsafe(`deletes ${a}`);
    else if (this.creditOnly.has(a)) {
      if (!this.crediting) this.markUnsafe(`writes fee recipient ${a}`);
    } else if (!this.#accountWrites.has(a)) this.#accountWrites.set(a, address);
  }

  override async deleteAccount(address: Address): Promise<void> {
    await super.deleteAccount(address);
    if (this.recording) this.markUnsafe(`deletes ${bytesToUnprefixedHex(address.bytes)}`);
  }

  override async clearStorage(address: Address): Promise<void> {
    await super.clearStorage(address);
    if (this.recording) this.markUnsafe(`clears the storage of ${bytesToUnprefixedHex(address.bytes)}`);
  }

  override async putCode(address: Address, value: Uint8Array): Promise<void> {
    await super.putCode(address, value);
    if (this.recording) this.markUnsafe(`writes code to ${bytesToUnprefixedHex(address.bytes)}`);
  }

  /** The code follows the account's codeHash: reading it reads the account. */
  override async getCode(address: Address): Promise<Uint8Array> {
    if (this.recording) await this.getAccount(address);
    return await super.getCode(address);
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const value = await super.getStorage(address, key);
    if (this.recording) {
      const a = bytesToUnprefixedHex(address.bytes);
      if (this.creditOnly.has(a)) this.markUnsafe(`reads the storage of fee recipient ${a}`);
      else {
        const k = a + bytesToUnprefixedHex(key);
        if (!this.#slotWrites.has(k) && !this.#slotReads.has(k)) {
          this.#slotReads.set(k, [a, key.slice(), value.slice()]);
        }
      }
    }
    return value;
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    await super.putStorage(address, key, value);
    if (!this.recording) return;
    const a = bytesToUnprefixedHex(address.bytes);
    if (this.creditOnly.has(a)) this.markUnsafe(`writes the storage of fee recipient ${a}`);
    else {
      const k = a + bytesToUnprefixedHex(key);
      if (!this.#slotWrites.has(k)) this.#slotWrites.set(k, [address, key.slice()]);
    }
  }
}

/**
 * Marks (on a RecordingStateManager) that the state accesses until `markCredit(sm, false)` credit a fee
 * recipient: tx_runner.ts, contract_call.ts and plain_transfer.ts around their fee credits.
 */
export function markCredit(sm: unknown, on: boolean): void {
  if (sm instanceof RecordingStateManager) sm.crediting = on;
}
