/**
 * Senders this node has already recovered, by transaction hash, so that importing a block whose
 * transactions were seen before (built here, or recovered by the pool) skips ecrecover, which costs
 * ~0.6-1 ms per transaction in pure JS (PLATFORM.md) and dominated import time.
 *
 * Sound because the hash is keccak256 of the whole signed encoding: the same hash means the same
 * signed bytes (chain id, signature and all), hence the same sender. A transaction whose signature
 * was changed has another hash, misses the cache and is recovered (and checked) as usual.
 * Only keys that came out of a real recovery are stored (`tx.cache.senderPubKey`, which
 * @ethereumjs/tx fills itself, or keel's workers after the same checks).
 */
import { bytesToUnprefixedHex } from "../../common/bytes.ts";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Address } from "@ethereumjs/util";
import { keccak256 } from "../../common/hash.ts";
import { Lru } from "../../common/lru.ts";
import { knownSenderAddress, rememberSenderAddress } from "./sender_address.ts";

export interface SenderCacheOptions {
  /** Entries kept (the least recently used dropped first); ~300 bytes each. */
  capacity: number;
}

export const DEFAULT_SENDER_CACHE_OPTIONS: SenderCacheOptions = {
  // A few blocks of small transactions (a 60 Mgas block holds at most ~2,900 transfers).
  capacity: 16_384,
};

export class SenderCache {
  readonly options: SenderCacheOptions;
  /** Hash -> the public key, and the sender address when it was derived (which spares its keccak256). */
  #map: Lru<string, { pub: Uint8Array; address?: Address }>;

  constructor(options: Partial<SenderCacheOptions> = {}) {
    this.options = { ...DEFAULT_SENDER_CACHE_OPTIONS, ...options };
    // An Lru, not a Map dropping its first key: at capacity that walked the deleted slots at the front
    // of V8's table on every insert (up to ~10 ms per 1,000 transactions, measured).
    this.#map = new Lru(Math.max(0, this.options.capacity));
  }

  get size(): number {
    return this.#map.size;
  }

  /** The recovered public key (64 bytes, no 0x04 prefix) of the transaction with `hash`, if known. */
  get(hash: Uint8Array): Uint8Array | undefined {
    return this.#map.get(bytesToUnprefixedHex(hash))?.pub;
  }

  /** Stores the sender of a transaction whose public key was recovered (no-op otherwise). */
  remember(tx: TypedTransaction): void {
    const pub = tx.cache.senderPubKey;
    if (pub === undefined || this.options.capacity <= 0) return;
    const key = bytesToUnprefixedHex(txHash(tx));
    const map = this.#map;
    if (map.has(key)) return;
    map.set(key, { pub, address: knownSenderAddress(tx) ?? tx.getSenderAddress() });
  }

  /**
   * Puts the known sender into a decoded transaction's cache. `raw` is its consensus encoding (the
   * hash is computed from it and also cached on the transaction). Returns whether the sender was known.
   */
  apply(tx: TypedTransaction, raw?: Uint8Array): boolean {
    if (!Object.isFrozen(tx)) return false;
    const cache = tx.cache as { hash?: Uint8Array; senderPubKey?: Uint8Array };
    if (cache.senderPubKey !== undefined) return true;
    if (raw !== undefined && cache.hash === undefined) cache.hash = keccak256(raw);
    const known = this.#map.get(bytesToUnprefixedHex(txHash(tx)));
    if (known === undefined) return false;
    cache.senderPubKey = known.pub;
    if (known.address !== undefined) rememberSenderAddress(tx, known.address);
    return true;
  }

  clear(): void {
    this.#map.clear();
  }
}

/** tx.hash(), computed once per (frozen) transaction. */
function txHash(tx: TypedTransaction): Uint8Array {
  return tx.cache.hash ?? tx.hash();
}

/** The cache block builders and importers use unless given their own. */
export const sharedSenderCache: SenderCache = new SenderCache();
