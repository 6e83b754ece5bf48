/**
 * Sender recovery off the main thread. ecrecover costs 0.6-0.8 ms in pure JS on this kind of
 * machine (PLATFORM.md), more than the pool's own work per transaction (~0.07 ms), so a node that
 * accepts thousands of raw transactions per second recovers senders in Workers while the main
 * thread executes blocks. The recovered public key goes into the transaction's own cache
 * (`tx.cache.senderPubKey`, which @ethereumjs/tx reads first), so `getSenderAddress()` is then
 * cheap for the pool, the builder and the RPC layer alike.
 */
import { Capability, type TypedTransaction } from "@ethereumjs/tx";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";

/** One request to a worker. */
export interface RecoveryRequest {
  id: number;
  msgHash: Uint8Array;
  v: bigint;
  r: Uint8Array;
  s: Uint8Array;
  chainId?: bigint;
}

/** One answer: the uncompressed public key without its 0x04 prefix, or null. */
export interface RecoveryResponse {
  id: number;
  pub: Uint8Array | null;
}

export interface SenderRecoveryOptions {
  /** Number of workers; 0 recovers on the calling thread. */
  workers: number;
  /** Requests sent to a worker in one message. */
  batch: number;
}

export const DEFAULT_SENDER_RECOVERY_OPTIONS: Readonly<SenderRecoveryOptions> = {
  workers: 1, // the machines keel targets have 2 cores: one for blocks, one for signatures
  batch: 64, // amortises the message cost (~20 µs) over many recoveries
};

interface Lane {
  worker: Worker;
  inflight: number;
}

export class SenderRecovery {
  readonly options: Readonly<SenderRecoveryOptions>;
  readonly #lanes: Lane[] = [];
  readonly #waiting = new Map<number, { tx: TypedTransaction; resolve: () => void }>();
  readonly #queue: { req: RecoveryRequest; tx: TypedTransaction; resolve: () => void }[] = [];
  #nextId = 0;
  #flushScheduled = false;
  #closed = false;

  constructor(options: Partial<SenderRecoveryOptions> = {}) {
    this.options = { ...DEFAULT_SENDER_RECOVERY_OPTIONS, ...options };
    for (let i = 0; i < this.options.workers; i++) {
      const worker = new Worker(new URL("./sender_recovery_worker.ts", import.meta.url).href, {
        type: "module",
      });
      const lane: Lane = { worker, inflight: 0 };
      worker.onmessage = (event: MessageEvent<RecoveryResponse[]>) => this.#answer(lane, event.data);
      this.#lanes.push(lane);
    }
  }

  /**
   * Recover the sender of a signed transaction into its cache. Resolves once done; a signature
   * that does not recover leaves the cache empty, so `getSenderAddress()` throws as usual.
   */
  recover(tx: TypedTransaction): Promise<void> {
    if (tx.cache.senderPubKey !== undefined || !tx.isSigned() || !Object.isFrozen(tx)) {
      return Promise.resolve();
    }
    if (this.#lanes.length === 0 || this.#closed) {
      try {
        tx.getSenderPublicKey();
      } catch {
        // Left for the caller's getSenderAddress() to report.
      }
      return Promise.resolve();
    }
    const req: RecoveryRequest = {
      id: this.#nextId++,
      msgHash: tx.getMessageToVerifySignature(),
      v: tx.v!,
      r: bigIntToUnpaddedBytes(tx.r!),
      s: bigIntToUnpaddedBytes(tx.s!),
      chainId: tx.supports(Capability.EIP155ReplayProtection) ? tx.common.chainId() : undefined,
    };
    return new Promise((resolve) => {
      this.#queue.push({ req, tx, resolve });
      if (this.#queue.length >= this.options.batch) this.#flush();
      else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        queueMicrotask(() => this.#flush());
      }
    });
  }

  /** Stop the workers; pending recoveries resolve without a key (the caller recovers itself). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const lane of this.#lanes) lane.worker.terminate();
    for (const item of this.#waiting.values()) item.resolve();
    for (const item of this.#queue) item.resolve();
    this.#waiting.clear();
    this.#queue.length = 0;
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#closed) return;
    while (this.#queue.length > 0) {
      const items = this.#queue.splice(0, this.options.batch);
      let lane = this.#lanes[0];
      for (const l of this.#lanes) if (l.inflight < lane.inflight) lane = l;
      lane.inflight += items.length;
      for (const item of items) this.#waiting.set(item.req.id, { tx: item.tx, resolve: item.resolve });
      lane.worker.postMessage(items.map((i) => i.req));
    }
  }

  #answer(lane: Lane, responses: RecoveryResponse[]): void {
    for (const { id, pub } of responses) {
      const item = this.#waiting.get(id);
      if (item === undefined) continue;
      this.#waiting.delete(id);
      lane.inflight--;
      if (pub !== null) item.tx.cache.senderPubKey = pub;
      item.resolve();
    }
  }
}
