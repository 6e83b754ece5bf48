/**
 * The engine's side of online state pruning (state/online_prune.ts): the kept states named, and the
 * pruner's steps run one at a time in the engine's write queue between blocks, each on a fresh timer
 * turn so that blocks and RPC calls waiting in the queue go first.
 */
import type { Logger } from "../../common/logger.ts";
import type { KvStore } from "../../db/mod.ts";
import { type OnlinePruneOptions, OnlinePruner, type OnlinePruneStats } from "../state/mod.ts";

export interface StatePruningDeps {
  /** Runs `fn` in the engine's write queue. */
  serial(fn: () => Promise<void>): Promise<void>;
  keptRoots(recent: number): Uint8Array[];
  logger?: Logger;
}

export class StatePruning {
  readonly pruner: OnlinePruner;
  readonly #serial: StatePruningDeps["serial"];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(store: KvStore, options: Partial<OnlinePruneOptions>, deps: StatePruningDeps) {
    this.pruner = new OnlinePruner(store, options, { keptRoots: deps.keptRoots, logger: deps.logger });
    this.#serial = deps.serial;
  }

  get stats(): Readonly<OnlinePruneStats> {
    return this.pruner.stats;
  }

  /** Before a block executes on `root`, or the head moves to a block on it. */
  using(root: Uint8Array): void {
    this.pruner.using(root);
  }

  /** After a block's state on `root` committed. */
  stored(root: Uint8Array): void {
    this.pruner.stored(root);
    this.#schedule();
  }

  /** The chain's state changed outside blocks (dev methods, a rewind): a running pass stops. */
  stop(reason: string): void {
    this.pruner.stop(reason);
  }

  #schedule(): void {
    if (this.#closed || this.#timer !== undefined || !this.pruner.pending) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#serial(() => {
        if (!this.#closed) this.pruner.step();
        return Promise.resolve();
      }).then(() => this.#schedule(), () => {});
    }, 0);
  }

  /** No more steps (a running pass stops where it is). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.pruner.stop("the engine closed");
  }
}
