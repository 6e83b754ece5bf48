/**
 * The key-value store interface of keel and the write-group logic both backends share.
 *
 * Keys and values are bytes; keys sort as unsigned bytes (memcmp), so `iterate` walks a prefix
 * in key order. A write group (`transaction` / `transactionAsync`) commits all of its writes or
 * none. Groups nest: an inner call joins the outer group, and an error escaping an inner group
 * dooms the outer one (it rolls back even if the error was caught).
 *
 * Asynchronous groups: `transactionAsync(fn)` keeps the group open until `fn` settles, so a block
 * can flush the state trie (async in @ethereumjs/mpt) and write its header, receipts and head in
 * one atomic group. The group belongs to the async context that opened it (AsyncLocalStorage):
 * writes from that context join it; a second `transactionAsync` from another context waits its
 * turn; a plain write or a synchronous group from another context while it is open throws
 * DB_BUSY instead of silently joining (and being rolled back with) someone else's group.
 * Reads from other contexts during an open group see its uncommitted writes (one connection).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { BaseError } from "../common/errors.ts";
import { prefixUpperBound } from "./prefixes.ts";

export type KvOp =
  | { type: "put"; key: Uint8Array; value: Uint8Array }
  | { type: "del"; key: Uint8Array };

export interface IterateOptions {
  /** First key (inclusive); defaults to the prefix itself. Must start with the prefix. */
  start?: Uint8Array;
  /** Last key (exclusive); defaults to the end of the prefix range. */
  end?: Uint8Array;
  /** Descending key order. */
  reverse?: boolean;
  /** At most this many entries. */
  limit?: number;
}

export interface KvStore {
  get(key: Uint8Array): Uint8Array | undefined;
  has(key: Uint8Array): boolean;
  put(key: Uint8Array, value: Uint8Array): void;
  del(key: Uint8Array): void;
  /** Applies all ops atomically (its own group, or joins the open one). */
  batch(ops: KvOp[]): void;
  /** Entries whose key starts with `prefix`, in key order, as [key, value]. */
  iterate(prefix: Uint8Array, options?: IterateOptions): IterableIterator<[Uint8Array, Uint8Array]>;
  /** Runs `fn` as one atomic write group (joins an open group of the same context). `fn` must be synchronous. */
  transaction<T>(fn: () => T): T;
  /** Runs async `fn` as one atomic write group that stays open until `fn` settles. */
  transactionAsync<T>(fn: () => Promise<T>): Promise<T>;
  /** True while a write group is open in the calling context. */
  inTransaction(): boolean;
  /** Runs `fn` after the open group commits (immediately when no group is open). */
  onCommit(fn: () => void): void;
  /** Runs `fn` if the open group rolls back (never when no group is open). */
  onRollback(fn: () => void): void;
  /**
   * Calls `fn` with the key of every row put from now on, in a group that commits or not (the online
   * state pruner spares what was written while it walked); `undefined` stops. One observer at a time.
   */
  observePuts(fn: ((key: Uint8Array) => void) | undefined): void;
  close(): void;
}

interface Group {
  doomed: boolean;
  commitHooks: (() => void)[];
  rollbackHooks: (() => void)[];
}

/** Shared write-group machinery; backends implement the raw operations. */
export abstract class BaseKvStore implements KvStore {
  #als = new AsyncLocalStorage<Group>();
  #open: Group | undefined;
  #queue: Promise<void> = Promise.resolve();
  #closed = false;
  #rollbacks = 0;
  #putObserver: ((key: Uint8Array) => void) | undefined;

  /**
   * Write groups rolled back so far: a cache of what was read may hold values that a rolled-back
   * group wrote and read back (reads see the open group's writes), so it starts over when this moves.
   */
  get rollbacks(): number {
    return this.#rollbacks;
  }

  protected abstract rawGet(key: Uint8Array): Uint8Array | undefined;
  protected abstract rawPut(key: Uint8Array, value: Uint8Array): void;
  protected abstract rawDel(key: Uint8Array): void;
  protected abstract rawIterate(
    low: Uint8Array,
    high: Uint8Array | undefined,
    reverse: boolean,
    limit: number,
  ): IterableIterator<[Uint8Array, Uint8Array]>;
  protected abstract rawBegin(): void;
  protected abstract rawCommit(): void;
  protected abstract rawRollback(): void;
  protected abstract rawClose(): void;

  protected checkOpen(): void {
    if (this.#closed) throw new BaseError("DB_CLOSED", "Cannot use the database: it is closed");
  }

  /** The group the calling context may write into, or undefined; throws if another context holds one. */
  #writeContext(): Group | undefined {
    this.checkOpen();
    const open = this.#open;
    if (open === undefined) return undefined;
    if (this.#als.getStore() === open) return open;
    throw new BaseError("DB_BUSY", "Cannot write: another write group is open in a different async context");
  }

  get(key: Uint8Array): Uint8Array | undefined {
    this.checkOpen();
    return this.rawGet(key);
  }

  has(key: Uint8Array): boolean {
    return this.get(key) !== undefined;
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.#writeContext();
    this.rawPut(key, value);
    this.#putObserver?.(key);
  }

  observePuts(fn: ((key: Uint8Array) => void) | undefined): void {
    this.#putObserver = fn;
  }

  del(key: Uint8Array): void {
    this.#writeContext();
    this.rawDel(key);
  }

  batch(ops: KvOp[]): void {
    this.transaction(() => {
      for (const op of ops) {
        if (op.type === "put") {
          this.rawPut(op.key, op.value);
          this.#putObserver?.(op.key);
        } else this.rawDel(op.key);
      }
    });
  }

  *iterate(prefix: Uint8Array, options: IterateOptions = {}): IterableIterator<[Uint8Array, Uint8Array]> {
    this.checkOpen();
    const low = options.start ?? prefix;
    let high = prefixUpperBound(prefix);
    if (options.end !== undefined && (high === undefined || compareBytes(options.end, high) < 0)) {
      high = options.end;
    }
    if (compareBytes(low, prefix) < 0) {
      throw new BaseError("DB_BAD_RANGE", "Cannot iterate: start key is below the prefix");
    }
    const limit = options.limit ?? -1;
    if (limit === 0) return;
    yield* this.rawIterate(low, high, options.reverse === true, limit);
  }

  inTransaction(): boolean {
    return this.#open !== undefined && this.#als.getStore() === this.#open;
  }

  onCommit(fn: () => void): void {
    const group = this.#writeContext();
    if (group === undefined) fn();
    else group.commitHooks.push(fn);
  }

  onRollback(fn: () => void): void {
    const group = this.#writeContext();
    if (group !== undefined) group.rollbackHooks.push(fn);
  }

  transaction<T>(fn: () => T): T {
    const joined = this.#writeContext();
    if (joined !== undefined) {
      try {
        const result = fn();
        if (isThenable(result)) {
          joined.doomed = true;
          throw new BaseError(
            "DB_ASYNC_IN_SYNC_GROUP",
            "Cannot run an async function in transaction(): use transactionAsync()",
          );
        }
        return result;
      } catch (err) {
        joined.doomed = true;
        throw err;
      }
    }
    const group: Group = { doomed: false, commitHooks: [], rollbackHooks: [] };
    this.rawBegin();
    this.#open = group;
    let result: T;
    try {
      result = this.#als.run(group, fn);
      if (isThenable(result)) {
        throw new BaseError(
          "DB_ASYNC_IN_SYNC_GROUP",
          "Cannot run an async function in transaction(): use transactionAsync()",
        );
      }
    } catch (err) {
      this.#finish(group, false);
      throw err;
    }
    this.#finish(group, true);
    return result;
  }

  async transactionAsync<T>(fn: () => Promise<T>): Promise<T> {
    const current = this.#als.getStore();
    if (current !== undefined && current === this.#open) {
      try {
        return await fn();
      } catch (err) {
        current.doomed = true;
        throw err;
      }
    }
    // Wait for groups of other contexts to settle (one writer at a time).
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      this.checkOpen();
      const group: Group = { doomed: false, commitHooks: [], rollbackHooks: [] };
      this.rawBegin();
      this.#open = group;
      let result: T;
      try {
        result = await this.#als.run(group, fn);
      } catch (err) {
        this.#finish(group, false);
        throw err;
      }
      this.#finish(group, true);
      return result;
    } finally {
      release();
    }
  }

  #finish(group: Group, ok: boolean): void {
    this.#open = undefined;
    if (ok && !group.doomed) {
      try {
        this.rawCommit();
      } catch (err) {
        this.#rollback(group);
        throw err;
      }
      for (const hook of group.commitHooks) hook();
      return;
    }
    this.#rollback(group);
    if (ok) {
      throw new BaseError(
        "DB_TRANSACTION_ABORTED",
        "Cannot commit write group: a nested group failed, so all of its writes were rolled back",
      );
    }
  }

  #rollback(group: Group): void {
    this.#rollbacks++;
    this.rawRollback();
    for (const hook of group.rollbackHooks) hook();
  }

  close(): void {
    if (this.#closed) return;
    if (this.#open !== undefined) {
      throw new BaseError("DB_BUSY", "Cannot close the database while a write group is open");
    }
    this.#closed = true;
    this.rawClose();
  }
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === "object" && v !== null && typeof (v as { then?: unknown }).then === "function";
}

/** memcmp order of two byte strings. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return a.length - b.length;
}
