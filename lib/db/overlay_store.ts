/**
 * A scratch store over another: reads see this store's writes first, then the base store; writes stay
 * in memory and never reach the base. eth_simulateV1 builds whole blocks on it (trie nodes, code) on
 * top of the node's database without changing it. Deletes are refused: the archive trie never
 * deletes, and a tombstone layer would serve no caller.
 */
import { BaseError } from "../common/errors.ts";
import { compareBytes, type KvStore } from "./kv_store.ts";
import { MemoryStore } from "./memory_store.ts";

export class OverlayStore extends MemoryStore {
  readonly base: KvStore;

  constructor(base: KvStore) {
    super();
    this.base = base;
  }

  protected override rawGet(key: Uint8Array): Uint8Array | undefined {
    return super.rawGet(key) ?? this.base.get(key);
  }

  protected override rawDel(_key: Uint8Array): void {
    throw new BaseError("OVERLAY_NO_DELETE", "Cannot delete from an overlay store: it only adds to its base");
  }

  protected override *rawIterate(
    low: Uint8Array,
    high: Uint8Array | undefined,
    reverse: boolean,
    limit: number,
  ): IterableIterator<[Uint8Array, Uint8Array]> {
    // Both sides in order, this store's entry winning on an equal key.
    const mine = [...super.rawIterate(low, high, reverse, -1)];
    const theirs = this.base.iterate(new Uint8Array(0), { start: low, end: high, reverse });
    const before = (a: Uint8Array, b: Uint8Array) =>
      reverse ? compareBytes(a, b) > 0 : compareBytes(a, b) < 0;
    let i = 0;
    let n = 0;
    let next = theirs.next();
    while ((i < mine.length || !next.done) && (limit < 0 || n < limit)) {
      n++;
      if (next.done || (i < mine.length && !before(next.value[0], mine[i][0]))) {
        if (!next.done && compareBytes(next.value[0], mine[i][0]) === 0) next = theirs.next();
        yield mine[i++];
      } else {
        yield next.value;
        next = theirs.next();
      }
    }
  }
}
