/**
 * Speculative execution of a block's tail during import: while the importing thread executes the
 * first transactions, a worker (speculation_worker.ts) executes the last ones on the parent state and
 * records what they read and wrote (state/recording_state.ts). When the head is done, the tail is
 * sound if every value it read is the same on the importing thread's state (Block-STM's validation by
 * value: the tail then ran exactly as it would have after the head); its writes, fee credits and
 * receipts are then applied as they are, else the tail runs again here. A tail the worker stopped
 * (a transaction outside the direct paths, a BALANCE of a fee vault, an invalid transaction) merges
 * up to where it stopped and the rest runs here.
 *
 * Correctness does not rest on the records alone: the block's roots are still compared with its
 * header, and an import that used a speculation and fails is run again without one
 * (block_importer.ts) before the block is called invalid.
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { Account, Address } from "@ethereumjs/util";
import { equalBytes, hexToBytes } from "../../common/bytes.ts";
import type { Header } from "../../protocol/block.ts";
import type { ChainConfig } from "../../protocol/chain_config.ts";
import type { ReadAccount, TxRecord } from "../state/mod.ts";
import type { BlockBuilder, RootChanges } from "./block_builder.ts";
import type { TxResult } from "./tx_runner.ts";
import type { StateManagerInterface } from "@ethereumjs/common";

export type SpeculationRequest =
  | { kind: "open"; path: string; cacheSizeKiB: number; config: ChainConfig }
  | {
    kind: "run";
    id: number;
    parent: Header;
    header: Header;
    /** The block's deposits (consensus encoding), executed first and not recorded. */
    prefix: Uint8Array[];
    /** Index in the block of the first transaction of `txs`. */
    start: number;
    txs: Uint8Array[];
    /** Each transaction's sender: public key (64 bytes) and address. */
    senders: { pub: Uint8Array; address: Uint8Array }[];
    /** The coinbase and fee vaults: credited only. */
    creditOnly: Uint8Array[];
    /**
     * How the state moved from the last block's parent (`from`) to this block's parent: that block's
     * packed deltas and new storage roots (speculation_worker.ts keeps its caches across blocks).
     */
    changes?: { from: Uint8Array; deltas: Uint8Array[]; storageRoots: [string, Uint8Array][] };
  };

export type SpeculationResponse =
  | {
    kind: "result";
    id: number;
    /** Each transaction from `start` on: its result and record, or null when left to the importer. */
    txs: ({ result: TxResult; record: TxRecord } | null)[];
    /** Transactions left to the importer, and why the first was. */
    skipped: number;
    reason?: string;
    /** The worker moved its caches along the last block's changes (else it read the parent state cold). */
    warm: boolean;
    ms: number;
  }
  | { kind: "failed"; id: number; error: string };

export type SpeculationResult = Extract<SpeculationResponse, { kind: "result" }>;

export interface SpeculationChannel {
  port: MessagePort;
  onFailure(cb: (message: string) => void): void;
  close(): void;
}

export interface SpeculationTaskOptions {
  /** Share of a block's user transactions the worker takes (the tail). */
  share: number;
  /** Blocks with fewer user transactions are imported on one thread. */
  minTxs: number;
  /** The worker's sqlite page cache in KiB. */
  cacheSizeKiB: number;
}

export const DEFAULT_SPECULATION_TASK_OPTIONS: SpeculationTaskOptions = {
  // Measured (scripts/bench_block.ts, ERC-20 transfers): the importing thread also decodes, sends the
  // state-root worker its deltas and merges the tail, so the worker takes a little less than half.
  share: 0.45,
  minTxs: 32,
  cacheSizeKiB: 32768,
};

export interface SpeculationStats {
  /** Blocks a tail was sent for. */
  blocks: number;
  /** Transactions sent, and merged from the worker. */
  sent: number;
  merged: number;
  /** Transactions executed again here: a value they read differed, or they did not fit the block. */
  conflicts: number;
  /** Transactions the worker left to the importer (outside the direct paths, touching a fee vault...). */
  skipped: number;
  /** Imports run again without a speculation after failing with one. */
  retries: number;
  /** Tails the worker ran on caches moved along the last block's changes. */
  warm: number;
  /** Milliseconds: the worker's runs, and the importing thread's wait for them. */
  workerMs: number;
  waitMs: number;
}

/** The module the worker runs (lib/node/threads.ts, the compile task). */
export const SPECULATION_WORKER_MODULE: URL = new URL("./speculation_worker.ts", import.meta.url);

export class SpeculationTask {
  readonly path: string;
  readonly config: ChainConfig;
  readonly options: SpeculationTaskOptions;
  readonly stats: SpeculationStats = {
    blocks: 0,
    sent: 0,
    merged: 0,
    conflicts: 0,
    skipped: 0,
    retries: 0,
    warm: 0,
    workerMs: 0,
    waitMs: 0,
  };
  #connect: (() => SpeculationChannel) | undefined;
  #worker: { postMessage(m: unknown, transfer: Transferable[]): void; terminate(): void } | undefined;
  #waiting = new Map<number, (r: SpeculationResponse) => void>();
  #next = 0;
  #closed = false;
  #changes: (RootChanges & { from: Uint8Array; to: Uint8Array }) | undefined;

  /** `path`: the sqlite database file the importing thread commits blocks to. */
  constructor(
    path: string,
    config: ChainConfig,
    options: Partial<SpeculationTaskOptions> = {},
    deps: { connect?: () => SpeculationChannel } = {},
  ) {
    this.path = path;
    this.config = config;
    this.options = { ...DEFAULT_SPECULATION_TASK_OPTIONS, ...options };
    this.#connect = deps.connect;
  }

  get closed(): boolean {
    return this.#closed;
  }

  #answer = (e: MessageEvent<SpeculationResponse>) => {
    const done = this.#waiting.get(e.data.id);
    this.#waiting.delete(e.data.id);
    done?.(e.data);
  };

  /** The worker died or could not start: later blocks import on one thread. */
  #failed(message: string): void {
    for (const [id, done] of this.#waiting) done({ kind: "failed", id, error: message });
    this.#waiting.clear();
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#closed = true;
  }

  #post(msg: SpeculationRequest, transfer: Transferable[] = []): void {
    if (this.#worker === undefined) {
      const channel = this.#connect?.();
      if (channel !== undefined) {
        channel.port.onmessage = this.#answer;
        channel.onFailure((message) => this.#failed(message));
        this.#worker = {
          postMessage: (m, transfer) => channel.port.postMessage(m, transfer),
          terminate: () => channel.close(),
        };
      } else {
        const worker = new Worker(SPECULATION_WORKER_MODULE.href, { type: "module" });
        worker.onmessage = this.#answer;
        worker.onerror = (e) => {
          e.preventDefault();
          this.#failed(e.message);
        };
        this.#worker = worker;
      }
      this.#worker.postMessage(
        {
          kind: "open",
          path: this.path,
          cacheSizeKiB: this.options.cacheSizeKiB,
          config: this.config,
        } satisfies SpeculationRequest,
        [],
      );
    }
    this.#worker.postMessage(msg, transfer);
  }

  /** Sends a tail to the worker; the answer comes when it has run (never rejects). */
  run(
    job: Omit<Extract<SpeculationRequest, { kind: "run" }>, "kind" | "id" | "changes">,
  ): Promise<SpeculationResponse> {
    const id = this.#next++;
    if (this.#closed) return Promise.resolve({ kind: "failed", id, error: "speculation worker closed" });
    this.stats.blocks++;
    this.stats.sent += job.txs.length;
    const answer = new Promise<SpeculationResponse>((resolve) => this.#waiting.set(id, resolve));
    const last = this.#changes;
    this.#changes = undefined;
    const changes = last !== undefined && equalBytes(last.to, job.parent.stateRoot)
      ? { from: last.from, deltas: last.deltas, storageRoots: [...last.storageRoots] }
      : undefined;
    this.#post(
      { kind: "run", id, ...job, changes },
      changes?.deltas.map((d) => d.buffer as ArrayBuffer) ?? [],
    );
    return answer;
  }

  /**
   * Records that the block imported on the state at `from` led to the state at `to` by `changes`
   * (BlockBuilder.rootChanges; undefined when unknown): the worker moves its caches along with the next
   * tail on `to` instead of reading everything again.
   */
  advance(from: Uint8Array, to: Uint8Array, changes: RootChanges | undefined): void {
    this.#changes = changes === undefined ? undefined : { from, to, ...changes };
  }

  close(): void {
    this.#closed = true;
    this.#failed("closed");
  }
}

function sameAccount(got: Account | undefined, read: ReadAccount): boolean {
  if (read === null) return got === undefined;
  return got !== undefined && got.nonce === read.nonce && got.balance === read.balance &&
    equalBytes(got.codeHash, read.codeHash);
}

/**
 * Applies one transaction the worker executed, when every value it read is the same on `sm` (the
 * block's state up to it) and it fits the block; returns false when it must run here instead.
 */
export async function mergeSpeculated(
  builder: BlockBuilder,
  sm: StateManagerInterface,
  tx: TypedTransaction,
  entry: { result: TxResult; record: TxRecord } | null,
): Promise<boolean> {
  if (entry === null) return false;
  const { result, record } = entry;
  for (const [a, read] of record.accountReads) {
    if (!sameAccount(await sm.getAccount(new Address(hexToBytes(a))), read)) return false;
  }
  for (const [a, key, value] of record.slotReads) {
    if (!equalBytes(await sm.getStorage(new Address(hexToBytes(a)), key), value)) return false;
  }
  if (!builder.fits([tx], [result])) return false;
  for (const [a, nonce, balance] of record.accounts) {
    const address = new Address(hexToBytes(a));
    const account = (await sm.getAccount(address)) ?? new Account();
    account.nonce = nonce;
    account.balance = balance;
    await sm.putAccount(address, account);
  }
  for (const [a, key, value] of record.slots) await sm.putStorage(new Address(hexToBytes(a)), key, value);
  for (const [a, amount] of record.credits) {
    const address = new Address(hexToBytes(a));
    const account = (await sm.getAccount(address)) ?? new Account();
    account.balance += amount;
    await sm.putAccount(address, account);
  }
  builder.addExecuted(tx, result);
  builder.stepRoot();
  return true;
}
