/**
 * The engine's side of online state pruning (state/online_prune.ts): the kept states named, and the
 * pruner's steps run one at a time in the engine's write queue between blocks, each on a fresh timer
 * turn so that blocks and RPC calls waiting in the queue go first.
 */
import { equalBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { Logger } from "../../common/logger.ts";
import { type KvStore, PREFIXES } from "../../db/mod.ts";
import { EMPTY_TRIE_ROOT, type Header } from "../../protocol/mod.ts";
import {
  DEFAULT_ONLINE_PRUNE_OPTIONS,
  type OnlinePruneOptions,
  OnlinePruner,
  type OnlinePruneStats,
} from "../state/mod.ts";
import { ENGINE_ERRORS } from "./engine_types.ts";

/** What keptStates reads of the chain. */
export interface KeptStatesChain {
  getCanonicalHash(number: bigint): Uint8Array | undefined;
  getHeaderByHash(hash: Uint8Array): Header | undefined;
  getHead(label: "safe" | "finalized"): { hash: Uint8Array; number: bigint } | undefined;
}

/**
 * The states a pruning keeps: those of the canonical blocks from the finalized one (or the last `recent`
 * blocks' when the finalized block is nearer: a reorg never goes below the finalized block, and op-node
 * may rebuild any block above it) up to the head, the safe block's, and `extra` (the dev methods'
 * snapshots); the roots the dev methods gave blocks where they did. `from` is the lowest block kept.
 */
export function keptStates(
  chain: KeptStatesChain,
  irregular: { rootOf(header: Header, hash?: Uint8Array): Uint8Array },
  head: bigint,
  recent: number,
  extra: Uint8Array[] = [],
): { from: bigint; roots: Uint8Array[] } {
  const roots: Uint8Array[] = [];
  const keep = (hash: Uint8Array | undefined) => {
    const header = hash === undefined ? undefined : chain.getHeaderByHash(hash);
    if (header !== undefined) roots.push(irregular.rootOf(header, hash));
  };
  let from = head - BigInt(recent) + 1n;
  const finalized = chain.getHead("finalized");
  if (finalized !== undefined && finalized.number < from) from = finalized.number;
  if (from < 0n) from = 0n;
  for (let n = from; n <= head; n++) keep(chain.getCanonicalHash(n));
  keep(chain.getHead("safe")?.hash);
  keep(finalized?.hash);
  roots.push(...extra);
  return { from, roots };
}

/** True when the state trie rooted at `root` is in `store` (its root node at least). */
export function hasState(store: KvStore, root: Uint8Array): boolean {
  if (equalBytes(root, EMPTY_TRIE_ROOT)) return true;
  const key = new Uint8Array(33);
  key[0] = PREFIXES.trieNode;
  key.set(root, 1);
  return store.has(key);
}

/** The refusal of a head move to block `number` whose state a pruning deleted. */
export function prunedError(
  number: bigint,
  options: OnlinePruneOptions = DEFAULT_ONLINE_PRUNE_OPTIONS,
): BaseError {
  return new BaseError(
    ENGINE_ERRORS.UNKNOWN_BLOCK,
    `Cannot make block ${number} the head: its state was pruned (the state of the last ${options.recent} blocks is kept)`,
  );
}

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
