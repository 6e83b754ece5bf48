/**
 * Sender recovery off the main thread. ecrecover costs 0.6-0.8 ms in pure JS on this kind of
 * machine (PLATFORM.md), more than the pool's own work per transaction (~0.07 ms), so a node that
 * accepts thousands of raw transactions per second recovers senders in Workers while the main
 * thread executes blocks. The recovered public key goes into the transaction's own cache
 * (`tx.cache.senderPubKey`, which @ethereumjs/tx reads first), so `getSenderAddress()` is then
 * cheap for the pool, the builder and the RPC layer alike.
 */
import { Capability, type TypedTransaction } from "@ethereumjs/tx";
import { loadWasmSecp256k1, type Secp256k1Recover } from "./sender_recovery_wasm.ts";

export { loadWasmSecp256k1, type Secp256k1Recover };

/** secp256k1 group order n, and n/2 (EIP-2: higher s values are invalid). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SECP256K1_N_DIV_2 = SECP256K1_N / 2n;

function bigIntTo32(value: bigint, out: Uint8Array, offset: number): void {
  for (let i = 31; i >= 0; i--) {
    out[offset + i] = Number(value & 0xffn);
    value >>= 8n;
  }
}

/** The inputs of libsecp256k1's recovery: r || s (64 bytes) and the recovery id (0 or 1). */
export interface RecoveryInput {
  sig: Uint8Array;
  recovery: number;
}

/**
 * The recovery inputs of a signed, frozen transaction, or undefined unless @ethereumjs would accept
 * its signature: s at most n/2 (EIP-2), r and s in [1, n-1], recovery id 0 or 1, derived from v
 * exactly as @ethereumjs/util `ecrecover` does (EIP-155 for protected legacy transactions).
 */
export function recoveryInput(tx: TypedTransaction): RecoveryInput | undefined {
  if (!Object.isFrozen(tx) || !tx.isSigned()) return undefined;
  const { v, r, s } = tx;
  if (v === undefined || r === undefined || s === undefined) return undefined;
  if (r === 0n || s === 0n || r >= SECP256K1_N || s > SECP256K1_N_DIV_2) return undefined;
  let recovery: bigint;
  if (v === 0n || v === 1n) recovery = v;
  else if (tx.supports(Capability.EIP155ReplayProtection)) recovery = v - (tx.common.chainId() * 2n + 35n);
  else recovery = v - 27n;
  if (recovery !== 0n && recovery !== 1n) return undefined;
  const sig = new Uint8Array(64);
  bigIntTo32(r, sig, 0);
  bigIntTo32(s, sig, 32);
  return { sig, recovery: Number(recovery) };
}

/** Caches a 65-byte uncompressed key (0x04 || x || y) as the sender's; false if it is not one. */
function cacheSenderKey(tx: TypedTransaction, pub: Uint8Array | null | undefined): boolean {
  if (pub === null || pub === undefined || pub.length !== 65 || pub[0] !== 4) return false;
  tx.cache.senderPubKey = pub.slice(1);
  return true;
}

/**
 * Recovers the sender of a signed, frozen transaction with `secp` and stores the 64-byte public key
 * in `tx.cache.senderPubKey`, where @ethereumjs/tx's getSenderPublicKey() reads it first. Only a
 * signature that @ethereumjs would accept is recovered here ({@link recoveryInput}); anything else is
 * left uncached, so getSenderAddress() recovers it itself and throws its usual error.
 * Returns whether the key was cached.
 */
export function recoverSenderInto(secp: Secp256k1Recover, tx: TypedTransaction): boolean {
  if (tx.cache.senderPubKey !== undefined) return true;
  const input = recoveryInput(tx);
  if (input === undefined) return false;
  try {
    return cacheSenderKey(
      tx,
      secp.recover(input.sig, tx.getMessageToVerifySignature(), input.recovery, true),
    );
  } catch {
    return false;
  }
}

/** Recovery through @ethereumjs itself (its checks, its errors); a failure is left for the caller. */
function recoverWithEthereumjs(tx: TypedTransaction): void {
  try {
    tx.getSenderPublicKey();
  } catch {
    // Left for the caller's getSenderAddress() to report.
  }
}

/** One request to a worker: the signing hash and {@link RecoveryInput}. */
export interface RecoveryRequest extends RecoveryInput {
  id: number;
  hash: Uint8Array;
}

/** One answer: the 65-byte uncompressed public key, or null when the signature does not recover. */
export interface RecoveryResponse {
  id: number;
  pub: Uint8Array | null;
}

export interface SenderRecoveryOptions {
  /** Number of workers; 0 recovers on the calling thread. */
  workers: number;
  /** Requests sent to a worker in one message. */
  batch: number;
  /** Without workers: recover with libsecp256k1 (WebAssembly) instead of @noble/curves (workers always do). */
  wasm: boolean;
}

export const DEFAULT_SENDER_RECOVERY_OPTIONS: Readonly<SenderRecoveryOptions> = {
  workers: 1, // the machines keel targets have 2 cores: one for blocks, one for signatures
  batch: 64, // amortises the message cost (~20 µs) over many recoveries
  wasm: true, // ~2x faster than @noble/curves (measured, see loadWasmSecp256k1)
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
  #secp: Secp256k1Recover | undefined;

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
    if (this.#lanes.length === 0 || this.#closed) return this.#recoverInline(tx);
    const input = recoveryInput(tx);
    if (input === undefined) {
      recoverWithEthereumjs(tx);
      return Promise.resolve();
    }
    const req: RecoveryRequest = { id: this.#nextId++, hash: tx.getMessageToVerifySignature(), ...input };
    return new Promise((resolve) => {
      this.#queue.push({ req, tx, resolve });
      if (this.#queue.length >= this.options.batch) this.#flush();
      else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        queueMicrotask(() => this.#flush());
      }
    });
  }

  async #recoverInline(tx: TypedTransaction): Promise<void> {
    if (this.options.wasm) {
      const secp = this.#secp ?? (this.#secp = await loadWasmSecp256k1());
      if (recoverSenderInto(secp, tx)) return;
    }
    recoverWithEthereumjs(tx);
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
      if (!cacheSenderKey(item.tx, pub)) recoverWithEthereumjs(item.tx);
      item.resolve();
    }
  }
}
