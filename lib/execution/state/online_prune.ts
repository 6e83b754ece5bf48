/**
 * Online state pruning (`--gcmode full`, geth's default): the state of the recent blocks is kept, the
 * trie nodes only older states reach are deleted while the node runs, so that the database stops
 * growing by every block's rewritten paths (~40 KB a block on an OP chain: ~1.7 GB a day at 2 s blocks).
 *
 * A pass, every `every` stored blocks, between blocks and in small steps (the engine runs each step in
 * its write queue, so none overlaps a block's write group):
 * 1. mark: walk everything the kept states reach (prune.ts ReachableWalk), the last `recent` canonical
 *    blocks', the safe and finalized blocks' and those of the last `recent` blocks stored (canonical or
 *    not: a payload built and not yet chosen);
 * 2. sweep: read the trie-node rows page by page and delete those neither reached nor written since the
 *    pass began.
 *
 * Why that is safe while blocks keep coming: a block executes on its parent's state and writes every
 * node it changes. Its nodes are either written during the pass (spared: the store reports every row
 * put, KvStore.observePuts) or taken unchanged from its parent. If every parent is a kept state or a
 * state made during the pass, every node of every state made during the pass is marked or spared.
 * So a pass stops, deleting nothing more, as soon as a block executes on (or the head moves to) any
 * other state; the next pass starts over from the chain as it is then. Nodes are content-addressed, so
 * a node deleted and needed again later is simply written again by the block that makes it.
 */
import { bytesToHex } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { getLogger, type Logger } from "../../common/logger.ts";
import type { KvStore } from "../../db/mod.ts";
import { PREFIXES } from "../../db/prefixes.ts";
import { ReachableWalk, sweepPage } from "./prune.ts";
import { evictCachedRows } from "./trie_db.ts";

export interface OnlinePruneOptions {
  /** States of this many recent blocks are kept (geth's TriesInMemory). */
  recent: number;
  /** A pass starts once this many blocks were stored since the last one ended. */
  every: number;
  /** Trie nodes a step of the mark reads. */
  markStep: number;
  /** Rows a step of the sweep reads (the ones to delete go in one write group). */
  sweepStep: number;
}

export const DEFAULT_ONLINE_PRUNE_OPTIONS: OnlinePruneOptions = {
  recent: 128,
  every: 1024,
  markStep: 500,
  sweepStep: 2_000,
};

/** Counters since the pruner was made. */
export interface OnlinePruneStats {
  /** Passes that ran to the end, and those stopped (see the file comment). */
  passes: number;
  stopped: number;
  /** Trie nodes and code rows deleted. */
  deleted: number;
  codesDeleted: number;
  /** Trie nodes the last complete pass kept. */
  kept: number;
}

export interface OnlinePrunerDeps {
  /** The state roots to keep besides the last blocks stored: the recent canonical, safe and finalized blocks'. */
  keptRoots(recent: number): Uint8Array[];
  logger?: Logger;
}

interface Pass {
  walk: ReachableWalk;
  /** State roots (hex) blocks may execute on: the kept ones and those stored during the pass. */
  allowed: Set<string>;
  /** Rows put since the pass began (key without its prefix byte, hex). */
  written: Set<string>;
  sweeping: boolean;
  cursor: Uint8Array | undefined;
  deleted: number;
  codesDeleted: number;
  kept: number;
  started: number;
}

const hex = (b: Uint8Array) => bytesToHex(b).slice(2);

export class OnlinePruner {
  readonly options: OnlinePruneOptions;
  readonly stats: OnlinePruneStats = { passes: 0, stopped: 0, deleted: 0, codesDeleted: 0, kept: 0 };
  readonly #store: KvStore;
  readonly #deps: OnlinePrunerDeps;
  readonly #logger: Logger;
  /** The state roots of the last `recent` blocks stored. */
  readonly #stored: Uint8Array[] = [];
  #since = 0;
  #pass: Pass | undefined;

  constructor(store: KvStore, options: Partial<OnlinePruneOptions>, deps: OnlinePrunerDeps) {
    this.options = { ...DEFAULT_ONLINE_PRUNE_OPTIONS, ...options };
    for (const k of ["recent", "every", "markStep", "sweepStep"] as const) {
      const v = this.options[k];
      if (!Number.isSafeInteger(v) || v < 1) {
        throw new BaseError(
          "PRUNE_BAD_OPTION",
          `Cannot prune online: ${k} must be a positive integer, not ${v}`,
        );
      }
    }
    this.#store = store;
    this.#deps = deps;
    this.#logger = deps.logger ?? getLogger(["execution", "prune"]);
  }

  /** True while a pass runs or one is due: the engine keeps calling step(). */
  get pending(): boolean {
    return this.#pass !== undefined || this.#since >= this.options.every;
  }

  /** True while a pass runs. */
  get running(): boolean {
    return this.#pass !== undefined;
  }

  /** A block's state on `root` was stored (its write group committed). */
  stored(root: Uint8Array): void {
    this.#stored.push(root);
    if (this.#stored.length > this.options.recent) this.#stored.shift();
    if (this.#pass !== undefined) this.#pass.allowed.add(hex(root));
    else this.#since++;
  }

  /**
   * A block executes on the state `root`, or the head moves to a block with that state: a pass whose
   * kept states do not include it stops (that state's nodes may be among those it deletes).
   */
  using(root: Uint8Array): void {
    if (this.#pass !== undefined && !this.#pass.allowed.has(hex(root))) {
      this.stop("a block on a state the pass does not keep");
    }
  }

  /** Stops a running pass (what it deleted stays deleted: only unreachable rows). */
  stop(reason: string): void {
    if (this.#pass === undefined) return;
    this.#end();
    this.stats.stopped++;
    this.#since = 0;
    this.#logger.info("State pruning pass stopped", { reason });
  }

  /** One step of the pass (starting one when due). Call it between write groups. */
  step(): void {
    if (this.#pass === undefined) {
      if (this.#since < this.options.every) return;
      this.#begin();
      return;
    }
    const pass = this.#pass;
    try {
      if (!pass.sweeping) {
        pass.sweeping = pass.walk.step(this.options.markStep);
        return;
      }
      const page = sweepPage(
        this.#store,
        pass.walk.reach,
        pass.cursor,
        this.options.sweepStep,
        (h) => pass.written.has(h),
      );
      if (page.doomed.length > 0) {
        this.#store.batch(page.doomed.map((key) => ({ type: "del" as const, key })));
        evictCachedRows(this.#store, page.doomed.map((key) => hex(key.subarray(1))));
      }
      pass.deleted += page.nodesDoomed;
      pass.codesDeleted += page.codesDoomed;
      pass.kept += page.kept;
      this.stats.deleted += page.nodesDoomed;
      this.stats.codesDeleted += page.codesDoomed;
      pass.cursor = page.next;
      if (page.next === undefined) this.#finish(pass);
    } catch (e) {
      this.stop((e as Error).message);
    }
  }

  #begin(): void {
    const roots = [...this.#deps.keptRoots(this.options.recent), ...this.#stored];
    const written = new Set<string>();
    this.#store.observePuts((key) => {
      if (key[0] === PREFIXES.trieNode) written.add(hex(key.subarray(1)));
    });
    this.#pass = {
      walk: new ReachableWalk(this.#store, roots),
      allowed: new Set(roots.map(hex)),
      written,
      sweeping: false,
      cursor: undefined,
      deleted: 0,
      codesDeleted: 0,
      kept: 0,
      started: performance.now(),
    };
    this.#logger.debug("State pruning pass started", { roots: this.#pass.allowed.size });
  }

  #finish(pass: Pass): void {
    this.#end();
    this.stats.passes++;
    this.stats.kept = pass.kept;
    this.#since = 0;
    this.#logger.info("Pruned state", {
      deleted: pass.deleted,
      codesDeleted: pass.codesDeleted,
      kept: pass.kept,
      keptStates: pass.allowed.size,
      elapsed: `${((performance.now() - pass.started) / 1000).toFixed(1)}s`,
    });
  }

  #end(): void {
    this.#store.observePuts(undefined);
    this.#pass = undefined;
  }
}
