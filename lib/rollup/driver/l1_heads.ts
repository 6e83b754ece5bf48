/**
 * The L1 head, safe and finalized blocks as the driver sees them. The head is read on every refresh
 * (each derivation step, at most every --l1.http-poll-interval while waiting); the safe and
 * finalized blocks only every `epochPollIntervalMs` (op-node --l1.epoch-poll-interval, default
 * 6m24s: two epochs of 32 slots of 12 s, how often they can move on Ethereum), the first time at the
 * first refresh; 0 or a negative interval never reads them, so they stay at block 0 (nothing is
 * finalized). An L1 without the labels (before the merge, some dev chains) keeps the last values.
 */
import type { L1BlockRef } from "../../protocol/block_ref.ts";

/** What the tracker reads of L1. */
export interface L1HeadSource {
  blockRef(label: "latest" | "safe" | "finalized"): Promise<L1BlockRef>;
}

export interface L1HeadsOptions {
  /** Milliseconds between reads of the safe and finalized blocks; 0 or negative: never. */
  epochPollIntervalMs: number;
  /** The clock, in milliseconds (tests). */
  now?: () => number;
}

export class L1Heads {
  head: L1BlockRef;
  safe: L1BlockRef;
  finalized: L1BlockRef;
  /** How many times the safe and finalized blocks were read (tests, logs). */
  epochPolls = 0;
  readonly #source: L1HeadSource;
  readonly #interval: number;
  readonly #now: () => number;
  #lastEpochPoll: number | undefined;

  constructor(source: L1HeadSource, zero: L1BlockRef, options: L1HeadsOptions) {
    this.#source = source;
    this.#interval = options.epochPollIntervalMs;
    this.#now = options.now ?? (() => performance.now());
    this.head = zero;
    this.safe = zero;
    this.finalized = zero;
  }

  /** Reads the head, and the safe and finalized blocks when the epoch poll is due. */
  async refresh(): Promise<void> {
    this.head = await this.#source.blockRef("latest");
    if (this.#interval <= 0) return;
    const now = this.#now();
    if (this.#lastEpochPoll !== undefined && now - this.#lastEpochPoll < this.#interval) return;
    this.#lastEpochPoll = now;
    this.epochPolls++;
    for (const label of ["safe", "finalized"] as const) {
      try {
        this[label] = await this.#source.blockRef(label);
      } catch {
        // an L1 without the label: keep the last
      }
    }
  }
}
