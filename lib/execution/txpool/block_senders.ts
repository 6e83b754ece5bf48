/**
 * The senders of a block being imported, recovered by two threads at once. A verifier has usually
 * never seen a block's transactions (derived from L1, or built by another sequencer), so every sender
 * must be recovered: with libsecp256k1 about 0.3 ms each, twice the cost of executing a transfer.
 * The importing thread recovers from the first transaction as it executes them; a helper thread
 * recovers from the last one backwards; each claims a transaction in a shared array before recovering
 * it (compare-and-swap), so no sender is recovered twice and neither waits for the other, except for
 * the one transaction they may reach at the same moment.
 *
 * The signing hash and the signature checks are the importing thread's (@ethereumjs's
 * getMessageToVerifySignature and recoveryInput, as the pool does); the helper only runs libsecp256k1.
 * A signature that does not recover is left uncached, so executing the transaction reports
 * @ethereumjs's own error.
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { BaseError } from "../../common/errors.ts";
import { type BlockSendersRequest, SLOT } from "./block_senders_protocol.ts";
import {
  loadWasmSecp256k1,
  recoverSenderInto,
  recoveryInput,
  type Secp256k1Recover,
} from "./sender_recovery.ts";

export { type BlockSendersRequest, SLOT };

/** The module the helper runs (for whoever starts one: lib/node/threads.ts, the compile task). */
export const BLOCK_SENDERS_WORKER_MODULE: URL = new URL("./block_senders_worker.ts", import.meta.url);

/** A helper started elsewhere and attached to a port (lib/node/threads.ts). */
export interface SendersWorkerChannel {
  port: MessagePort;
  close(): void;
}

export interface BlockSenderRecoveryOptions {
  /** Blocks with fewer unknown senders are recovered on the importing thread alone. */
  minTxs: number;
}

export const DEFAULT_BLOCK_SENDER_RECOVERY_OPTIONS: BlockSenderRecoveryOptions = { minTxs: 8 };

/** Counters since the recovery was made. */
export interface BlockSendersStats {
  /** Senders recovered through a job. */
  taken: number;
  /** Of which the helper thread recovered. */
  helped: number;
}

export class BlockSenderRecovery {
  readonly options: BlockSenderRecoveryOptions;
  readonly stats: BlockSendersStats = { taken: 0, helped: 0 };
  #post: ((msg: BlockSendersRequest) => void) | undefined;
  #stop: (() => void) | undefined;
  #connect: (() => SendersWorkerChannel) | undefined;
  #secp: Secp256k1Recover | undefined;
  #closed = false;

  /** `connect`: gets a helper started elsewhere (lib/node/threads.ts) instead of starting one. */
  constructor(
    options: Partial<BlockSenderRecoveryOptions> = {},
    deps: { connect?: () => SendersWorkerChannel } = {},
  ) {
    this.options = { ...DEFAULT_BLOCK_SENDER_RECOVERY_OPTIONS, ...options };
    this.#connect = deps.connect;
  }

  #helper(): ((msg: BlockSendersRequest) => void) | undefined {
    if (this.#post !== undefined || this.#closed) return this.#post;
    try {
      const channel = this.#connect?.();
      if (channel !== undefined) {
        this.#post = (m) => channel.port.postMessage(m);
        this.#stop = () => channel.close();
      } else {
        const worker = new Worker(BLOCK_SENDERS_WORKER_MODULE.href, { type: "module" });
        worker.onerror = (e) => {
          // Without the helper, the importing thread recovers every sender (claims all slots first).
          e.preventDefault();
          this.close();
        };
        this.#post = (m) => worker.postMessage(m);
        this.#stop = () => worker.terminate();
      }
    } catch {
      this.#closed = true;
    }
    return this.#post;
  }

  /**
   * Starts recovering the senders of `txs` (decoded, frozen, senders not cached): the helper begins at
   * the last one. Call `take(k)` before executing `txs[k]`.
   */
  async start(txs: TypedTransaction[]): Promise<BlockSendersJob> {
    const secp = this.#secp ??= await loadWasmSecp256k1();
    const n = txs.length;
    const state = new Int32Array(new SharedArrayBuffer(4 * Math.max(n, 1)));
    const keys = new Uint8Array(new SharedArrayBuffer(64 * Math.max(n, 1)));
    const job = new BlockSendersJob(secp, txs, state, keys, this.stats);
    const post = n >= this.options.minTxs ? this.#helper() : undefined;
    if (post === undefined) return job;
    const hashes = new Uint8Array(32 * n);
    const sigs = new Uint8Array(64 * n);
    const recovery = new Uint8Array(n);
    for (let k = 0; k < n; k++) {
      const input = recoveryInput(txs[k]);
      if (input === undefined) {
        // Not one libsecp256k1 may answer for @ethereumjs: this thread's path reports it.
        state[k] = SLOT.SKIP;
        continue;
      }
      hashes.set(txs[k].getMessageToVerifySignature(), 32 * k);
      sigs.set(input.sig, 64 * k);
      recovery[k] = input.recovery;
    }
    post({
      kind: "job",
      state: state.buffer as SharedArrayBuffer,
      keys: keys.buffer as SharedArrayBuffer,
      hashes,
      sigs,
      recovery,
    });
    return job;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stop?.();
    this.#post = undefined;
  }
}

/** One block's senders: `take(k)` before executing transaction k. */
export class BlockSendersJob {
  readonly #secp: Secp256k1Recover;
  readonly #txs: TypedTransaction[];
  readonly #state: Int32Array;
  readonly #keys: Uint8Array;
  readonly #stats: BlockSendersStats;
  /** Senders that came from the helper thread. */
  helped = 0;

  constructor(
    secp: Secp256k1Recover,
    txs: TypedTransaction[],
    state: Int32Array,
    keys: Uint8Array,
    stats: BlockSendersStats,
  ) {
    this.#stats = stats;
    this.#secp = secp;
    this.#txs = txs;
    this.#state = state;
    this.#keys = keys;
  }

  /** Puts transaction k's sender key in its cache: the helper's, or recovered here. */
  take(k: number): void {
    const tx = this.#txs[k];
    if (k < 0 || k >= this.#txs.length) {
      throw new BaseError("SENDERS_BAD_INDEX", `Cannot take sender ${k}: the block has ${this.#txs.length}`);
    }
    const state = this.#state;
    this.#stats.taken++;
    const was = Atomics.compareExchange(state, k, SLOT.FREE, SLOT.MAIN);
    if (was === SLOT.FREE || was === SLOT.MAIN || was === SLOT.SKIP) {
      recoverSenderInto(this.#secp, tx);
      return;
    }
    // The helper has it or is on it (one recovery: well under a millisecond). A helper that died on
    // it is not waited for long: this thread recovers the sender itself.
    for (let i = 0; i < 20 && Atomics.load(state, k) === SLOT.WORKER; i++) {
      Atomics.wait(state, k, SLOT.WORKER, 50);
    }
    if (Atomics.load(state, k) === SLOT.WORKER) {
      recoverSenderInto(this.#secp, tx);
      return;
    }
    if (Atomics.load(state, k) === SLOT.DONE && tx.cache.senderPubKey === undefined) {
      tx.cache.senderPubKey = this.#keys.slice(64 * k, 64 * k + 64);
      this.helped++;
      this.#stats.helped++;
    }
  }

  /** Stops the helper's work on this block (an import that failed part way). */
  cancel(): void {
    for (let k = 0; k < this.#txs.length; k++) Atomics.compareExchange(this.#state, k, SLOT.FREE, SLOT.MAIN);
  }
}
