/**
 * The state root of a block computed beside its execution, on a second thread (reth's state root
 * task: crates/engine/tree, payload_processor/sparse_trie.rs). While transactions execute, the state
 * manager records what they change (KeelStateManager.startStream); after each transaction the job
 * sends the accumulated changes to a worker whenever the worker is idle (or too much piled up), and
 * the worker folds them into its copy of the tries (root_worker.ts). At the end only the last changes
 * remain to apply: the root is ready shortly after the last transaction instead of after a full
 * flush on the executing thread. The block's receipts go along with the deltas (StateRootJob.addReceipt)
 * and the worker builds the receipts trie too: measured (bench_block, 500 ERC-20 transfers a block), the
 * executing thread otherwise spent ~4 ms hashing it after the last transaction while the worker had
 * already finished, and the root arrived 15-18 ms after the last transaction instead of 4-9 ms.
 *
 * Block import uses it (engine_newPayload: the block is known whole and its latency is what a
 * verifier waits on); the worker reads the parent state from the database file through its own
 * read-only connection, so the store must be a file (SqliteStore) and the parent state committed.
 * The result is adopted by the state manager at the block's commit (adoptExternal).
 */
import { bytesToUnprefixedHex, equalBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { ExternalState, KeelStateManager, StateDelta } from "./state_manager.ts";
import { packDelta, packReceipts } from "./delta_codec.ts";

export interface StateRootTaskOptions {
  /** Send changes as soon as the worker is idle once this many addresses changed. */
  minChanges: number;
  /** Send changes even while the worker is busy once this many addresses changed. */
  maxChanges: number;
  /** The worker's sqlite page cache (KiB). */
  cacheSizeKiB: number;
  /** The worker's cache of trie nodes read or made in recent blocks (KiB, with ~100 bytes per node of overhead). */
  nodeCacheKiB: number;
}

export const DEFAULT_STATE_ROOT_TASK_OPTIONS: StateRootTaskOptions = {
  // Measured (scripts/bench_block.ts, 1,000 transfers a block, 2 cores): 16 sends ~50 small deltas
  // a block and the sends cost the executing thread; 128 is ~8, with a short wait at the end.
  minChanges: 128,
  maxChanges: 1024,
  cacheSizeKiB: 16384,
  // Measured (bench_block, 500 ERC-20 transfers a block): the worker applied a block's changes in 14
  // instead of 27 ms once the nodes of the blocks before were at hand.
  nodeCacheKiB: 16384,
};

/** Messages to the worker. */
export type RootRequest =
  | { kind: "open"; path: string; cacheSizeKiB: number; nodeCacheKiB: number; pending: SharedArrayBuffer }
  | { kind: "begin"; id: number; root: Uint8Array }
  /**
   * `delta`: a StateDelta packed (delta_codec.ts), transferred; `receipts`: the receipts of the
   * transactions executed since the last message (packReceipts), transferred.
   */
  | { kind: "delta" | "finish"; id: number; delta: Uint8Array; receipts?: Uint8Array }
  /** The accounts (unprefixed address hex) the block will change, to load their paths ahead. */
  | { kind: "prefetch"; id: number; addresses: string[] }
  | { kind: "cancel"; id: number };

/** The worker's answer to "finish". */
export type RootResponse =
  | {
    id: number;
    root: Uint8Array;
    storageRoots: [string, Uint8Array][];
    /** packNodes */
    nodes: Uint8Array;
    /** The root of the receipts trie of the `count` receipts received. */
    receipts: { root: Uint8Array; count: number };
    /** The worker's milliseconds on this block. */
    ms: { prefetch: number; apply: number; prehash: number; finish: number };
    /** Trie nodes the worker read (from its cache or the database) for this block. */
    reads: number;
    /** The messages of the job before "finish" as the worker handled them. */
    timeline: WorkerStep[];
  }
  | { id: number; error: string };

/** One message as the worker handled it: its kind, its size (accounts, addresses, items) and when (absolute ms). */
export interface WorkerStep {
  kind: RootRequest["kind"];
  size: number;
  arrived: number;
  started: number;
  ended: number;
}

/**
 * The last block's exchange with the worker, in milliseconds from its "begin" (for benchmarks: where
 * the executing thread and the worker wait on each other).
 */
export interface StateRootTimeline {
  /** What this thread sent, and when. */
  sent: { kind: RootRequest["kind"]; at: number }[];
  /** What the worker did, and when (the finish: from its arrival to the answer). */
  worker: WorkerStep[];
  /** When the answer arrived here. */
  answered: number;
}

/** Counters since the task was made. */
export interface StateRootTaskStats {
  /** Blocks whose root the worker computed. */
  roots: number;
  /** Changes sent while the block executed (the final ones not counted). */
  deltas: number;
  /** Blocks the worker could not do (the importer computed those roots itself). */
  failures: number;
  /** The worker's milliseconds: loading paths ahead, applying changes, hashing ahead while idle, hashing at the end. */
  prefetchMs: number;
  applyMs: number;
  prehashMs: number;
  finishMs: number;
  /** Milliseconds the executing thread waited for roots after its last transaction. */
  waitMs: number;
  /**
   * Trie nodes the worker read: those of the paths a block changes that it did not keep from the
   * block before (a block on the last root starts from that block's tries, held in memory).
   */
  reads: number;
  /** Blocks whose receipts root came from the worker (every receipt of the block handed over). */
  receiptsRoots: number;
}

/**
 * A worker started elsewhere and attached to a port (the node Worker cannot start one itself:
 * lib/node/threads.ts): its messages go over `port`; `onFailure` reports that it died.
 */
export interface RootWorkerChannel {
  port: MessagePort;
  onFailure(cb: (message: string) => void): void;
  close(): void;
}

export interface StateRootTaskDeps {
  /** Gets a worker started elsewhere instead of starting one (called when the first block begins). */
  connect?: () => RootWorkerChannel;
}

/** The module a state-root worker runs (for whoever starts one: lib/node/threads.ts, the compile task). */
export const ROOT_WORKER_MODULE: URL = new URL("./root_worker.ts", import.meta.url);

export class StateRootTask {
  readonly path: string;
  readonly options: StateRootTaskOptions;
  readonly stats: StateRootTaskStats = {
    roots: 0,
    deltas: 0,
    failures: 0,
    prefetchMs: 0,
    applyMs: 0,
    prehashMs: 0,
    finishMs: 0,
    waitMs: 0,
    reads: 0,
    receiptsRoots: 0,
  };
  #worker: { postMessage(m: unknown, transfer: Transferable[]): void; terminate(): void } | undefined;
  #connect: (() => RootWorkerChannel) | undefined;
  #channel: RootWorkerChannel | undefined;
  /** Deltas sent and not yet applied by the worker (shared with it). */
  #pending = new Int32Array(new SharedArrayBuffer(4));
  #waiting = new Map<number, (r: RootResponse) => void>();
  #next = 0;
  #closed = false;
  /** Bumped when the worker fails: jobs begun on an earlier one can only fail. */
  #generation = 0;
  /** What was sent for the current job, and when (absolute ms). */
  #sent: { kind: RootRequest["kind"]; at: number }[] = [];
  /** The last finished job's exchange (timeline). */
  #timeline: StateRootTimeline | undefined;
  /**
   * The state root of the last block the worker computed, and the accounts (unprefixed address hex)
   * that block named: the worker keeps that block's tries, so a block on this root need not have
   * their paths loaded ahead again.
   */
  #kept: { root: Uint8Array; addresses: Set<string> } | undefined;

  /** `path`: the sqlite database file the executing thread commits blocks to. */
  constructor(path: string, options: Partial<StateRootTaskOptions> = {}, deps: StateRootTaskDeps = {}) {
    this.path = path;
    this.options = { ...DEFAULT_STATE_ROOT_TASK_OPTIONS, ...options };
    this.#connect = deps.connect;
  }

  #answer = (e: MessageEvent<RootResponse>) => {
    const done = this.#waiting.get(e.data.id);
    this.#waiting.delete(e.data.id);
    done?.(e.data);
  };

  #failed(message: string): void {
    const error = `state root worker failed: ${message}`;
    for (const [id, done] of this.#waiting) done({ id, error });
    this.#waiting.clear();
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#generation++;
    // A given worker is not restarted: later blocks compute their roots on the executing thread.
    if (this.#channel !== undefined) this.#closed = true;
    Atomics.store(this.#pending, 0, 0);
  }

  #post(msg: RootRequest): void {
    if (this.#worker === undefined) {
      let w: { postMessage(m: unknown, transfer: Transferable[]): void; terminate(): void };
      const channel = this.#channel = this.#connect?.();
      if (channel !== undefined) {
        channel.port.onmessage = this.#answer;
        channel.onFailure((message) => this.#failed(message));
        w = {
          postMessage: (m, transfer) => channel.port.postMessage(m, transfer),
          terminate: () => channel.close(),
        };
      } else {
        const worker = new Worker(ROOT_WORKER_MODULE.href, { type: "module" });
        worker.onmessage = this.#answer;
        worker.onerror = (e) => {
          e.preventDefault();
          this.#failed(e.message);
        };
        w = worker;
      }
      w.postMessage(
        {
          kind: "open",
          path: this.path,
          cacheSizeKiB: this.options.cacheSizeKiB,
          nodeCacheKiB: this.options.nodeCacheKiB,
          pending: this.#pending.buffer as SharedArrayBuffer,
        } satisfies RootRequest,
        [],
      );
      this.#worker = w;
    }
    if (msg.kind === "delta" || msg.kind === "finish") Atomics.add(this.#pending, 0, 1);
    if (msg.kind === "begin") this.#sent = [];
    if (msg.kind !== "open") {
      this.#sent.push({ kind: msg.kind, at: performance.timeOrigin + performance.now() });
    }
    const transfer: Transferable[] = [];
    if (msg.kind === "delta" || msg.kind === "finish") {
      transfer.push(msg.delta.buffer as ArrayBuffer);
      if (msg.receipts !== undefined) transfer.push(msg.receipts.buffer as ArrayBuffer);
    }
    this.#worker.postMessage(msg, transfer);
  }

  /** The last block's exchange with the worker (undefined before the first root). */
  get timeline(): StateRootTimeline | undefined {
    return this.#timeline;
  }

  /** @internal Records the exchange of the job just answered. */
  answered(worker: WorkerStep[]): void {
    const answered = performance.timeOrigin + performance.now();
    const base = this.#sent[0]?.at ?? answered;
    const last = this.#sent.at(-1);
    const steps = worker.map((w) => ({
      ...w,
      arrived: w.arrived - base,
      started: w.started - base,
      ended: w.ended - base,
    }));
    if (last?.kind === "finish") {
      steps.push({ kind: "finish", size: 0, arrived: last.at - base, started: NaN, ended: answered - base });
    }
    this.#timeline = {
      sent: this.#sent.map((s) => ({ kind: s.kind, at: s.at - base })),
      worker: steps,
      answered: answered - base,
    };
  }

  /** True while the worker has no delta to apply. */
  get idle(): boolean {
    return Atomics.load(this.#pending, 0) === 0;
  }

  /**
   * Starts a block on the state at `root` (the parent's, committed): `sm` begins recording changes.
   * Undefined when the task is closed or its worker cannot start (the block then computes its root
   * on the executing thread).
   */
  /**
   * Starts a block's job on the state at `root`. `keepDeltas`: the job keeps a copy of every packed
   * delta it sends (StateRootJob.deltas: the block's changes, for the speculation worker).
   */
  begin(root: Uint8Array, sm: KeelStateManager, keepDeltas = false): StateRootJob | undefined {
    if (this.#closed) return undefined;
    const id = this.#next++;
    try {
      this.#post({ kind: "begin", id, root });
    } catch (e) {
      this.#failed((e as Error).message);
      this.#closed = true;
      return undefined;
    }
    sm.startStream();
    const kept = this.#kept !== undefined && equalBytes(this.#kept.root, root)
      ? this.#kept.addresses
      : undefined;
    this.#kept = undefined;
    return new StateRootJob(this, id, sm, this.#generation, kept, keepDeltas ? [] : undefined);
  }

  /** @internal The job on `root` named `addresses` and the worker keeps its tries. */
  keep(root: Uint8Array, addresses: Set<string>): void {
    this.#kept = { root, addresses };
  }

  /** @internal */
  send(
    id: number,
    generation: number,
    kind: "delta" | "finish",
    delta: StateDelta,
    copies?: Uint8Array[],
    receipts?: Uint8Array,
  ): Promise<RootResponse> | undefined {
    if (this.#closed || generation !== this.#generation) {
      return kind === "finish"
        ? Promise.resolve({ id, error: "the worker stopped during the block" })
        : undefined;
    }
    const packed = packDelta(delta);
    copies?.push(packed.slice());
    if (kind === "delta") {
      this.stats.deltas++;
      this.#post({ kind, id, delta: packed, receipts });
      return undefined;
    }
    const result = new Promise<RootResponse>((resolve) => this.#waiting.set(id, resolve));
    this.#post({ kind, id, delta: packed, receipts });
    return result;
  }

  /** @internal */
  prefetch(id: number, generation: number, addresses: string[]): void {
    if (this.#closed || generation !== this.#generation || addresses.length === 0) return;
    this.#post({ kind: "prefetch", id, addresses });
  }

  /** @internal */
  cancel(id: number): void {
    this.#worker?.postMessage({ kind: "cancel", id } satisfies RootRequest, []);
  }

  /** Terminates the worker; jobs not finished fail. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#worker?.terminate();
    this.#worker = undefined;
    for (const [id, done] of this.#waiting) done({ id, error: "the state root task was closed" });
    this.#waiting.clear();
  }
}

/** One block's state root in the making. */
export class StateRootJob {
  readonly #task: StateRootTask;
  readonly #id: number;
  readonly #sm: KeelStateManager;
  readonly #generation: number;
  /** Accounts whose paths the worker holds from the block before (named by it): not loaded ahead again. */
  readonly #kept: Set<string> | undefined;
  /** Accounts this block named. */
  readonly #named = new Set<string>();
  /** Copies of the packed deltas sent, in order (when begun with keepDeltas). */
  readonly deltas: Uint8Array[] | undefined;
  /** Receipts handed over (addReceipt) and not sent yet, and how many were sent before them. */
  #receipts: Uint8Array[] = [];
  #receiptsSent = 0;
  #done = false;

  constructor(
    task: StateRootTask,
    id: number,
    sm: KeelStateManager,
    generation: number,
    kept?: Set<string>,
    deltas?: Uint8Array[],
  ) {
    this.deltas = deltas;
    this.#task = task;
    this.#generation = generation;
    this.#id = id;
    this.#sm = sm;
    this.#kept = kept;
  }

  /**
   * Names accounts the block is about to change (senders, recipients, fee vaults): the worker loads
   * their trie paths while the block is still being decoded, instead of when their changes arrive;
   * those the block before named are skipped (the worker holds them).
   */
  prefetch(addresses: Iterable<Uint8Array>): void {
    if (this.#done) return;
    const hex: string[] = [];
    for (const a of addresses) {
      const h = bytesToUnprefixedHex(a);
      if (this.#named.has(h)) continue;
      this.#named.add(h);
      if (this.#kept?.has(h) !== true) hex.push(h);
    }
    this.#task.prefetch(this.#id, this.#generation, hex);
  }

  /**
   * Hands over the encoding of the block's next receipt: the worker builds the receipts trie beside the
   * state tries (the root arrives with the state root: ExternalState.receipts), so that the executing
   * thread does not hash it after the last transaction. Sent with the next delta.
   */
  addReceipt(encoded: Uint8Array): void {
    if (!this.#done) this.#receipts.push(encoded);
  }

  /** The receipts not sent yet, packed (undefined when none). */
  #takeReceipts(): Uint8Array | undefined {
    if (this.#receipts.length === 0) return undefined;
    const packed = packReceipts(this.#receiptsSent, this.#receipts);
    this.#receiptsSent += this.#receipts.length;
    this.#receipts = [];
    return packed;
  }

  /** After a transaction: hands the changes so far to the worker when it is idle (or they piled up). */
  step(): void {
    if (this.#done) return;
    const n = this.#sm.pendingChanges;
    const { minChanges, maxChanges } = this.#task.options;
    if (n >= maxChanges || (n >= minChanges && this.#task.idle)) {
      this.#task.send(
        this.#id,
        this.#generation,
        "delta",
        this.#sm.drainDelta(),
        this.deltas,
        this.#takeReceipts(),
      );
    }
  }

  /**
   * Sends the last changes and waits for the root. Rejects with STATE_ROOT_TASK_FAILED when the worker
   * could not compute it (the caller then computes the root itself: the manager's caches are intact).
   */
  /**
   * `receipts`: how many the block has; the worker's receipts root is answered only when it got each of
   * them (else the caller computes the root itself).
   */
  async finish(receipts?: number): Promise<ExternalState> {
    if (this.#done) throw new BaseError("STATE_ROOT_TASK_DONE", "Cannot finish a state root job twice");
    this.#done = true;
    const delta = this.#sm.drainDelta();
    this.#sm.stopStream();
    const t0 = performance.now();
    const r = await this.#task.send(
      this.#id,
      this.#generation,
      "finish",
      delta,
      this.deltas,
      this.#takeReceipts(),
    )!;
    const stats = this.#task.stats;
    stats.waitMs += performance.now() - t0;
    if ("error" in r) {
      stats.failures++;
      throw new BaseError(
        "STATE_ROOT_TASK_FAILED",
        `Cannot compute the state root beside execution: ${r.error}`,
      );
    }
    stats.roots++;
    this.#task.answered(r.timeline);
    this.#task.keep(r.root, this.#named);
    stats.prefetchMs += r.ms.prefetch;
    stats.applyMs += r.ms.apply;
    stats.prehashMs += r.ms.prehash;
    stats.finishMs += r.ms.finish;
    stats.reads += r.reads;
    const complete = receipts !== undefined && r.receipts.count === receipts;
    if (complete) stats.receiptsRoots++;
    return {
      root: r.root,
      storageRoots: new Map(r.storageRoots),
      nodes: r.nodes,
      receipts: complete ? r.receipts : undefined,
    };
  }

  /** Drops the job (the block is abandoned). */
  cancel(): void {
    if (this.#done) return;
    this.#done = true;
    this.#sm.stopStream();
    this.#task.cancel(this.#id);
  }
}
