/**
 * The keys the state was written under (what geth keeps with `--cache.preimages`). The state trie is
 * keyed by keccak256(address) and each storage trie by keccak256(slot), so the tries alone cannot say
 * which accounts and slots they hold. A database created with preimages on (`keel execution --dev`)
 * records every account address and storage slot a state manager on it flushes (KeelStateManager.flush),
 * in the same write group as the state itself, so that anvil_dumpState can list the whole state.
 *
 * Rows under PREFIXES.statePreimage, with empty values: prefix ‖ address (20 bytes) for an account,
 * prefix ‖ address ‖ slot (32 bytes) for a storage slot. An account or slot deleted later keeps its
 * row (the dump reads the current state and leaves out what is absent or zero).
 */
import { equalBytes, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { type KvStore, prefixedKey, PREFIXES } from "../../db/mod.ts";

/** Present (one byte, 1) in a database that records preimages since its genesis. */
const ENABLED_KEY = prefixedKey(PREFIXES.meta, new TextEncoder().encode("state_preimages"));
/** Keys remembered as written, at most; then the memory starts again (a write again is harmless). */
const KNOWN_MAX = 1_000_000;

const logs = new WeakMap<KvStore, PreimageLog | null>();

/** One store's preimage rows. */
export class PreimageLog {
  readonly store: KvStore;
  /** Rows written (unprefixed hex of address, or address ‖ slot), so that a row is written once. */
  #known = new Set<string>();
  /** Whether the open write group has this log's rollback hook. */
  #hooked = false;

  constructor(store: KvStore) {
    this.store = store;
  }

  /** Records an account's address, or with `slotHex` one of its storage slots (unprefixed hex). */
  record(addressHex: string, slotHex?: string): void {
    const id = slotHex === undefined ? addressHex : addressHex + slotHex;
    if (this.#known.has(id)) return;
    if (id.length !== 40 && id.length !== 104) {
      throw new BaseError(
        "PREIMAGE_BAD_KEY",
        `Cannot record preimage ${id}: not an address or address and slot`,
      );
    }
    this.store.put(prefixedKey(PREFIXES.statePreimage, hexToBytes(`0x${id}`)), new Uint8Array());
    if (this.#known.size >= KNOWN_MAX) this.#known.clear();
    this.#known.add(id);
    // The rows of a group that rolls back are gone: written again next time (one hook per group).
    if (!this.#hooked && this.store.inTransaction()) {
      this.#hooked = true;
      this.store.onRollback(() => {
        this.#known.clear();
        this.#hooked = false;
      });
      this.store.onCommit(() => this.#hooked = false);
    }
  }

  /** The storage slots recorded for `address` (debug_storageRangeAt's keys). */
  *slotsOf(address: Uint8Array): Generator<Uint8Array> {
    const prefix = new Uint8Array(21);
    prefix[0] = PREFIXES.statePreimage;
    prefix.set(address, 1);
    for (const [key] of this.store.iterate(prefix)) if (key.length === 53) yield key.slice(21);
  }

  /** Every account recorded, in address order, with the storage slots recorded for it. */
  *accounts(): Generator<{ address: Uint8Array; slots: Uint8Array[] }> {
    let current: { address: Uint8Array; slots: Uint8Array[] } | undefined;
    for (const [key] of this.store.iterate(Uint8Array.of(PREFIXES.statePreimage))) {
      const address = key.subarray(1, 21);
      if (current !== undefined && !equalBytes(current.address, address)) {
        yield current;
        current = undefined;
      }
      current ??= { address: address.slice(), slots: [] };
      if (key.length === 53) current.slots.push(key.slice(21));
    }
    if (current !== undefined) yield current;
  }
}

/**
 * Turns preimage recording on for `store` (a database whose state is still empty: the genesis is then
 * recorded too) and returns its log.
 */
export function enablePreimages(store: KvStore): PreimageLog {
  store.put(ENABLED_KEY, Uint8Array.of(1));
  const log = new PreimageLog(store);
  logs.set(store, log);
  return log;
}

/** The preimage log of `store`, when the database records preimages. */
export function preimageLogOf(store: KvStore): PreimageLog | undefined {
  let log = logs.get(store);
  if (log === undefined) {
    log = store.get(ENABLED_KEY) === undefined ? null : new PreimageLog(store);
    logs.set(store, log);
  }
  return log ?? undefined;
}
