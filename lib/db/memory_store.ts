/**
 * In-memory KvStore with the same semantics as SqliteStore (key order, atomic write groups,
 * nesting, hooks), for tests and throwaway chains. Values are copied in and out.
 */
import { bytesToHex } from "../common/bytes.ts";
import { BaseKvStore, compareBytes } from "./kv_store.ts";

interface Entry {
  key: Uint8Array;
  value: Uint8Array;
}

export class MemoryStore extends BaseKvStore {
  #map = new Map<string, Entry>();
  /** Previous entries of keys written in the open group (undefined = key was absent). */
  #undo: Map<string, Entry | undefined> | undefined;

  protected rawGet(key: Uint8Array): Uint8Array | undefined {
    const e = this.#map.get(bytesToHex(key));
    return e === undefined ? undefined : e.value.slice();
  }

  #remember(id: string): void {
    if (this.#undo !== undefined && !this.#undo.has(id)) this.#undo.set(id, this.#map.get(id));
  }

  protected rawPut(key: Uint8Array, value: Uint8Array): void {
    const id = bytesToHex(key);
    this.#remember(id);
    this.#map.set(id, { key: key.slice(), value: value.slice() });
  }

  protected rawDel(key: Uint8Array): void {
    const id = bytesToHex(key);
    this.#remember(id);
    this.#map.delete(id);
  }

  protected *rawIterate(
    low: Uint8Array,
    high: Uint8Array | undefined,
    reverse: boolean,
    limit: number,
  ): IterableIterator<[Uint8Array, Uint8Array]> {
    const hits: Entry[] = [];
    for (const e of this.#map.values()) {
      if (compareBytes(e.key, low) >= 0 && (high === undefined || compareBytes(e.key, high) < 0)) {
        hits.push(e);
      }
    }
    hits.sort((a, b) => compareBytes(a.key, b.key));
    if (reverse) hits.reverse();
    let n = 0;
    for (const e of hits) {
      if (limit >= 0 && n >= limit) return;
      n++;
      yield [e.key.slice(), e.value.slice()];
    }
  }

  protected rawBegin(): void {
    this.#undo = new Map();
  }

  protected rawCommit(): void {
    this.#undo = undefined;
  }

  protected rawRollback(): void {
    const undo = this.#undo;
    this.#undo = undefined;
    if (undo === undefined) return;
    for (const [id, prev] of undo) {
      if (prev === undefined) this.#map.delete(id);
      else this.#map.set(id, prev);
    }
  }

  protected rawClose(): void {
    this.#map.clear();
  }

  /** Number of keys (tests and diagnostics). */
  get size(): number {
    return this.#map.size;
  }
}
