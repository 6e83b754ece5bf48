/**
 * The safe-head database of `--safedb.path` (op-node node/safedb): for each L1 block the derivation read
 * up to, the safe L2 head that L1 data made, so that optimism_safeHeadAtL1Block can answer which L2 block
 * was safe given L1 up to a block (op-challenger and op-proposer ask it). One sqlite file; each update is
 * its own committed write (op-node syncs each one too).
 *
 * - `updated(safe, l1)`: the safe head moved to `safe` with data from L1 block `l1` (a later head from
 *   the same L1 block replaces the record).
 * - `reset(safe)`: derivation restarts from `safe`: the records from the first one whose safe head is at
 *   or past it are dropped, and, when a record precedes them, `safe` is recorded at that first record's L1
 *   block (before the first record it is not known where `safe` became safe, so nothing is recorded).
 * - `at(n)`: the last record at or before L1 block `n`.
 */
import type { BlockId, L2BlockRef } from "../../protocol/block_ref.ts";
import { type KvStore, prefixedKey, PREFIXES, readU64, SqliteStore, u64Key } from "../../db/mod.ts";

export interface SafeHeadRecord {
  /** The L1 block the safe head was derived up to. */
  l1: BlockId;
  safeHead: BlockId;
}

/** What the driver reports to a safe-head database. */
export interface SafeHeadListener {
  updated(safe: L2BlockRef, l1: BlockId): void;
  reset(safe: L2BlockRef): void;
}

const keyOf = (l1Number: bigint) => prefixedKey(PREFIXES.safeHeadByL1, u64Key(l1Number));
const PREFIX = new Uint8Array([PREFIXES.safeHeadByL1]);

function encode(l1Hash: Uint8Array, safe: BlockId): Uint8Array {
  const out = new Uint8Array(72);
  out.set(l1Hash, 0);
  out.set(safe.hash, 32);
  out.set(u64Key(safe.number), 64);
  return out;
}

function decode(key: Uint8Array, value: Uint8Array): SafeHeadRecord {
  return {
    l1: { hash: value.slice(0, 32), number: readU64(key, 1) },
    safeHead: { hash: value.slice(32, 64), number: readU64(value, 64) },
  };
}

export class SafeDb implements SafeHeadListener {
  readonly #store: KvStore;

  constructor(store: KvStore) {
    this.#store = store;
  }

  /** Opens (creating it if needed) the database file at `path`. */
  static open(path: string): SafeDb {
    return new SafeDb(SqliteStore.open(path));
  }

  updated(safe: L2BlockRef, l1: BlockId): void {
    this.#store.put(keyOf(l1.number), encode(l1.hash, safe));
  }

  reset(safe: L2BlockRef): void {
    let previous: Uint8Array | undefined;
    for (const [key, value] of this.#store.iterate(PREFIX)) {
      const record = decode(key, value);
      if (record.l1.number < safe.l1Origin.number || record.safeHead.number < safe.number) {
        previous = key;
        continue;
      }
      const drop = [...this.#store.iterate(PREFIX, { start: key })].map(([k]) => ({
        type: "del" as const,
        key: k,
      }));
      const keep = previous === undefined
        ? []
        : [{ type: "put" as const, key, value: encode(record.l1.hash, safe) }];
      this.#store.batch([...drop, ...keep]);
      return;
    }
  }

  /** The last record at or before L1 block `l1Number`, if any. */
  at(l1Number: bigint): SafeHeadRecord | undefined {
    for (
      const [key, value] of this.#store.iterate(PREFIX, {
        end: keyOf(l1Number + 1n),
        reverse: true,
        limit: 1,
      })
    ) {
      return decode(key, value);
    }
    return undefined;
  }

  close(): void {
    this.#store.close();
  }
}
