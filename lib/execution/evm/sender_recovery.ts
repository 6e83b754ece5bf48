/**
 * Parallel sender recovery for block import (PLATFORM.md: ecrecover costs ~0.6 ms per transaction,
 * as much as executing a transfer). Transactions are sent to Web Workers in chunks; the importer awaits
 * each transaction's chunk just before executing it, so recovery overlaps execution. The recovered key
 * is put into the transaction's own cache, exactly where @ethereumjs keeps it after `getSenderPublicKey()`.
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { BaseError } from "../../common/errors.ts";
import type { ChainConfig } from "../../protocol/chain_config.ts";

export interface SenderRecoveryOptions {
  /** Worker count (2-core machines: 1 worker beside the executing thread). */
  workers: number;
  /** Transactions per worker message. */
  chunkSize: number;
}

export const DEFAULT_SENDER_RECOVERY_OPTIONS: SenderRecoveryOptions = {
  workers: 1, // measured on the 2-core reference machine (PLATFORM.md)
  chunkSize: 64,
};

interface Pending {
  resolve(keys: (Uint8Array | string)[]): void;
}

export class SenderRecovery {
  readonly options: SenderRecoveryOptions;
  #workers: Worker[] = [];
  #pending = new Map<number, Pending>();
  #next = 0;
  #closed = false;

  constructor(options: Partial<SenderRecoveryOptions> = {}) {
    this.options = { ...DEFAULT_SENDER_RECOVERY_OPTIONS, ...options };
  }

  #worker(i: number): Worker {
    while (this.#workers.length <= i) {
      const w = new Worker(new URL("./sender_recovery_worker.ts", import.meta.url).href, { type: "module" });
      w.onmessage = (e: MessageEvent<{ id: number; keys: (Uint8Array | string)[] }>) => {
        const p = this.#pending.get(e.data.id);
        this.#pending.delete(e.data.id);
        p?.resolve(e.data.keys);
      };
      this.#workers.push(w);
    }
    return this.#workers[i];
  }

  /**
   * Starts recovering the senders of `txs` (decoded from `raws`, same order) under the rules at
   * `timestamp`. Returns one promise per transaction that resolves once its sender is cached on it, to
   * undefined, or to the error message when the sender cannot be recovered (never rejects, so promises
   * not yet awaited cannot become unhandled rejections).
   */
  start(
    config: ChainConfig,
    timestamp: bigint,
    txs: TypedTransaction[],
    raws: Uint8Array[],
  ): Promise<string | undefined>[] {
    if (this.#closed) throw new BaseError("CLOSED", "Cannot recover senders: recovery is closed");
    const out: Promise<string | undefined>[] = [];
    const size = this.options.chunkSize;
    for (let start = 0, n = 0; start < txs.length; start += size, n++) {
      const id = this.#next++;
      const chunk = txs.slice(start, start + size);
      const done = new Promise<(Uint8Array | string)[]>((resolve) => this.#pending.set(id, { resolve }));
      this.#worker(n % this.options.workers).postMessage({
        id,
        config,
        timestamp,
        txs: raws.slice(start, start + size),
      });
      chunk.forEach((tx, k) => {
        out.push(done.then((keys) => {
          const key = keys[k];
          if (typeof key === "string") return key;
          (tx.cache as { senderPubKey?: Uint8Array }).senderPubKey = key;
          return undefined;
        }));
      });
    }
    return out;
  }

  /** Terminates the workers; pending recoveries never settle. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const w of this.#workers) w.terminate();
    this.#workers = [];
    this.#pending.clear();
  }
}
