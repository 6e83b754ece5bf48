/**
 * The batch queue stage (specs/protocol/derivation.md "Batch Queue"; delta/span-batches.md "Batch
 * queue"; holocene/derivation.md "Batch Queue", "Span Batches", "Fast Channel Invalidation"): turns the
 * batches read from L1 into the singular batch of the next safe L2 block, as op-node's BatchMux with its
 * BatchQueue (before Holocene) and BatchStage (from Holocene).
 *
 * Before Holocene it buffers every batch that is not dropped with its inclusion block, and for the
 * next block takes the first batch in L1 order that is accepted, drops the dropped ones, keeps the
 * future ones and stops at an undecided one. From Holocene it buffers nothing: a batch is checked
 * when read; `future` becomes `drop`, a `past` batch is skipped, and a dropped batch discards the rest
 * of its span batch and the rest of its channel. An accepted span batch is served as its singular
 * batches, one per call, each with the safe head as parent. When the sequencing window of the safe
 * head's epoch has expired without a batch, empty batches are generated (derivation.md, last part of
 * "Batch Queue").
 *
 * The stage switches to the Holocene rules on `reset` to an L1 block at or after Holocene, or on
 * `setOrigin` to the first such L1 block (op-node's BatchMux and its Holocene transform); buffered
 * batches are dropped then, the known L1 blocks are kept.
 *
 * How to drive it (push instead of op-node's pull; one batch in flight):
 * 1. `reset(base)` with the L1 block the pipeline restarts from (all stages share it).
 * 2. Call `next(safeHead, originExhausted)`. `originExhausted` is true when the previous stage (channel
 *    reader) has no batch left for the current origin (op-node's io.EOF from it).
 *    - `{ batch, concluding }`: the next safe block's batch; `concluding` is false while more blocks of
 *      the same span batch follow (before Holocene the span is only safe once all of it is).
 *      Call `next` again with the new safe head.
 *    - `"need-data"`: the stage cannot go on with what it has. If the previous stage still has a batch
 *      for this origin, pass it to `addBatch` (one batch, exactly as read) and call `next` again. If it
 *      has none (`originExhausted` was true), advance the L1 origin: advance the earlier stages, call
 *      `setOrigin` with the new L1 block and call `next` again; when no next L1 block is known yet,
 *      call `next` again once it is (the stage may progress without it, e.g. an empty batch).
 *    - `"flush-channel"` (Holocene): a batch was dropped; the caller must discard the rest of the
 *      channel the previous stage is reading, then call `next` again.
 * 3. `addBatch` is allowed only when the last `next` returned `"need-data"` (or after `reset`) and
 *    `setOrigin` only when no added batch is left unprocessed and a `next` call has adopted the
 *    previous origin (every L1 block passes through the stage); both throw otherwise. A batch's
 *    inclusion block is the origin at the time it is added.
 * Errors are BaseErrors with a severity: `reset` when the safe head's origin no longer matches the
 * L1 blocks known here (reset the pipeline), `critical` for broken invariants.
 */
import { BaseError } from "../../common/errors.ts";
import type { DecodedBatch, SingularBatch } from "../../protocol/batch.ts";
import type { BlockId, L1BlockRef, L2BlockRef } from "../../protocol/block_ref.ts";
import { isRollupForkActive, type RollupConfig } from "../../protocol/rollup_config.ts";
import { spanBatchToSingular } from "../../protocol/span_batch_singular.ts";
import { type BatchCheck, checkSingularBatch } from "./check_batch.ts";
import { checkSpanBatch, checkSpanBatchHolocene, type SafeChain } from "./check_span_batch.ts";

/** What `BatchQueue.next` yields; see the module comment for what the caller does with each. */
export type BatchQueueResult =
  | { batch: SingularBatch; concluding: boolean }
  | "need-data"
  | "flush-channel";

/** op-node's NotEnoughData: the stage made progress and is called again at once. */
const AGAIN = Symbol("again");
type Step = BatchQueueResult | typeof AGAIN;

interface BufferedBatch {
  batch: DecodedBatch;
  inclusion: L1BlockRef;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameBlock(a: BlockId | undefined, b: BlockId): boolean {
  return a !== undefined && a.number === b.number && equal(a.hash, b.hash);
}

function critical(code: string, message: string, meta: Record<string, unknown> = {}): BaseError {
  return new BaseError(code, message, { severity: "critical", meta });
}

export class BatchQueue {
  readonly #cfg: RollupConfig;
  readonly #l2: SafeChain;
  #holocene = false;
  /** The origin of the previous stage (`setOrigin`), adopted by the next `next` call. */
  #prevOrigin: L1BlockRef | undefined;
  #origin: L1BlockRef | undefined;
  /** Consecutive L1 blocks from the safe head's L1 origin (or the one before it) to the origin. */
  #l1Blocks: L1BlockRef[] = [];
  /** Singular batches still to serve from an accepted span batch. */
  #nextSpan: SingularBatch[] = [];
  /** Before Holocene: the batches not dropped yet, in L1 order. */
  #batches: BufferedBatch[] = [];
  /** The batch added and not yet read by `next`. */
  #pending: DecodedBatch | undefined;

  constructor(cfg: RollupConfig, l2: SafeChain) {
    this.#cfg = cfg;
    this.#l2 = l2;
  }

  /** True once the Holocene rules apply. */
  get holocene(): boolean {
    return this.#holocene;
  }

  /** The L1 block the stage is at, or undefined before `reset`. */
  get origin(): L1BlockRef | undefined {
    return this.#origin;
  }

  /** The known L1 blocks, from the safe head's epoch on (a copy). */
  get l1Blocks(): L1BlockRef[] {
    return this.#l1Blocks.slice();
  }

  /** Starts over at `base`, the L1 block the pipeline restarts from. */
  reset(base: L1BlockRef): void {
    this.#holocene = isRollupForkActive(this.#cfg, "holocene", base.timestamp);
    this.#origin = base;
    this.#prevOrigin = base;
    this.#l1Blocks = [base];
    this.#nextSpan = [];
    this.#batches = [];
    this.#pending = undefined;
  }

  /**
   * The previous stage moved to L1 block `origin`, the one after the current origin. Allowed only
   * once a `next` call adopted the current origin and no added batch is left unprocessed.
   */
  setOrigin(origin: L1BlockRef): void {
    if (this.#prevOrigin === undefined) {
      throw critical("BATCH_QUEUE_NOT_RESET", "Cannot set batch queue origin: the queue was not reset");
    }
    if (this.#pending !== undefined) {
      throw critical(
        "BATCH_QUEUE_BUSY",
        "Cannot set batch queue origin: an added batch is not processed yet",
        {
          origin: origin.number,
        },
      );
    }
    if (!sameBlock(this.#origin, this.#prevOrigin)) {
      throw critical(
        "BATCH_QUEUE_ORIGIN_SKIPPED",
        `Cannot set batch queue origin ${origin.number}: origin ${this.#prevOrigin.number} was not processed yet`,
      );
    }
    if (!this.#holocene && isRollupForkActive(this.#cfg, "holocene", origin.timestamp)) {
      // Holocene transform: batches buffered under the old rules are dropped, L1 blocks are kept.
      this.#holocene = true;
      this.#batches = [];
      this.#nextSpan = [];
    }
    this.#prevOrigin = origin;
  }

  /** Hands over the next batch read from the current origin (after `next` returned "need-data"). */
  addBatch(batch: DecodedBatch): void {
    if (this.#prevOrigin === undefined) {
      throw critical("BATCH_QUEUE_NOT_RESET", "Cannot add batch: the queue was not reset");
    }
    if (this.#pending !== undefined) {
      throw critical("BATCH_QUEUE_BUSY", "Cannot add batch: the previous batch is not processed yet");
    }
    this.#pending = batch;
  }

  /** The batch of the block after `safeHead`, or what the stage needs first. */
  async next(safeHead: L2BlockRef, originExhausted: boolean): Promise<BatchQueueResult> {
    if (this.#prevOrigin === undefined) {
      throw critical("BATCH_QUEUE_NOT_RESET", "Cannot derive next batch: the queue was not reset");
    }
    for (;;) {
      const step = this.#holocene
        ? await this.#stepHolocene(safeHead, originExhausted)
        : await this.#stepQueue(safeHead, originExhausted);
      if (step !== AGAIN) return step;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Shared (op-node baseBatchStage)

  #originBehind(parent: L2BlockRef): boolean {
    return this.#prevOrigin!.number < parent.l1Origin.number;
  }

  /** Adopts the previous stage's origin and prunes the L1 blocks before the parent's epoch. */
  #updateOrigins(parent: L2BlockRef): void {
    const prev = this.#prevOrigin!;
    const behind = this.#originBehind(parent);
    if (!sameBlock(this.#origin, prev)) {
      this.#origin = prev;
      // Behind the safe head's origin (after a reset to an earlier block) nothing is kept.
      if (!behind) this.#l1Blocks.push(prev);
      else this.#l1Blocks = [];
    }
    if (this.#l1Blocks.length > 0 && parent.l1Origin.number > this.#l1Blocks[0].number) {
      const i = this.#l1Blocks.findIndex((b) => b.number === parent.l1Origin.number);
      if (i >= 0) this.#l1Blocks = this.#l1Blocks.slice(i);
    }
  }

  /** The next singular batch of the accepted span batch, if it follows `parent`. */
  #fromSpan(parent: L2BlockRef): SingularBatch | undefined {
    if (this.#nextSpan.length === 0) return undefined;
    if (this.#nextSpan[0].timestamp !== parent.timestamp + this.#cfg.blockTime) {
      // The parent is not the block the previous batch made: the rest of the span is void.
      this.#nextSpan = [];
      return undefined;
    }
    const batch = this.#nextSpan.shift()!;
    return { ...batch, parentHash: parent.hash.slice() };
  }

  /** The span's singular batches after `parent`, with their L1 origin hashes from the known L1 blocks. */
  #expand(batch: DecodedBatch & { kind: "span" }, parent: L2BlockRef): SingularBatch[] {
    const cfg = this.#cfg;
    return spanBatchToSingular(
      batch.batch,
      cfg.genesis.l2Time,
      cfg.blockTime,
      cfg.l2ChainId,
      this.#l1Blocks,
      parent.timestamp,
    );
  }

  #checkEpoch(parent: L2BlockRef): L1BlockRef {
    const epoch = this.#l1Blocks[0];
    // The epoch may be one block ahead of the parent's after empty batches advanced it.
    if (!sameBlock(parent.l1Origin, epoch) && parent.l1Origin.number !== epoch.number - 1n) {
      throw new BaseError(
        "BATCH_QUEUE_EPOCH_MISMATCH",
        `Cannot derive next batch: L1 epoch ${epoch.number} does not match the safe head's origin ${parent.l1Origin.number}`,
        { severity: "reset", meta: { epoch: epoch.number, safeHeadOrigin: parent.l1Origin.number } },
      );
    }
    return epoch;
  }

  /**
   * An empty batch when the sequencing window of the current epoch has expired (op-node
   * deriveNextEmptyBatch); undefined when none can be made yet, possibly after moving to the next
   * epoch once every empty block of this one was made.
   */
  #emptyBatch(outOfData: boolean, parent: L2BlockRef): SingularBatch | undefined {
    const epoch = this.#l1Blocks[0];
    const origin = this.#origin!;
    const expiry = epoch.number + this.#cfg.seqWindowSize;
    // Only once every batch included up to epoch + window has been read.
    const force = (expiry === origin.number && outOfData) || expiry < origin.number;
    if (!force || this.#l1Blocks.length < 2) return undefined;
    const nextEpoch = this.#l1Blocks[1];
    const timestamp = parent.timestamp + this.#cfg.blockTime;
    const firstOfEpoch = epoch.number === parent.l1Origin.number + 1n;
    // Keep the epoch while the L2 time is before the next L1 origin's (L2 time >= L1 time), and
    // always make the first block of an epoch, so every epoch has one.
    if (timestamp < nextEpoch.timestamp || firstOfEpoch) {
      return {
        parentHash: parent.hash.slice(),
        epochNumber: epoch.number,
        epochHash: epoch.hash.slice(),
        timestamp,
        transactions: [],
      };
    }
    this.#l1Blocks = this.#l1Blocks.slice(1);
    return undefined;
  }

  #flush(): "flush-channel" {
    this.#nextSpan = [];
    this.#pending = undefined;
    return "flush-channel";
  }

  // ------------------------------------------------------------------------------------------
  // Before Holocene (op-node BatchQueue)

  async #check(entry: BufferedBatch, parent: L2BlockRef): Promise<BatchCheck> {
    if (entry.batch.kind === "singular") {
      return checkSingularBatch(this.#cfg, this.#l1Blocks, parent, entry.batch.batch, entry.inclusion);
    }
    return await checkSpanBatch(
      this.#cfg,
      this.#l1Blocks,
      parent,
      entry.batch.batch,
      entry.inclusion,
      this.#l2,
    );
  }

  async #stepQueue(parent: L2BlockRef, originExhausted: boolean): Promise<Step> {
    const spanBatch = this.#fromSpan(parent);
    if (spanBatch !== undefined) return { batch: spanBatch, concluding: this.#nextSpan.length === 0 };
    this.#updateOrigins(parent);
    const behind = this.#originBehind(parent);
    let outOfData = false;
    const input = this.#pending;
    if (input !== undefined) {
      this.#pending = undefined;
      if (!behind) {
        const entry = { batch: input, inclusion: this.#origin! };
        if ((await this.#check(entry, parent)).validity !== "drop") this.#batches.push(entry);
      }
    } else if (originExhausted) {
      outOfData = true;
    } else {
      return "need-data";
    }
    // Behind the safe head's origin, the earlier stages are only drained.
    if (behind) return outOfData ? "need-data" : AGAIN;
    const found = await this.#deriveNextBatch(outOfData, parent);
    if (found === undefined) return outOfData ? "need-data" : AGAIN;
    if (found.kind === "singular") return { batch: found.batch, concluding: true };
    let batches: SingularBatch[];
    try {
      batches = this.#expand(found, parent);
    } catch (e) {
      throw critical("BATCH_QUEUE_SPAN_ORIGIN_MISSING", `Cannot expand span batch: ${(e as Error).message}`);
    }
    this.#nextSpan = batches;
    const first = this.#fromSpan(parent);
    if (first === undefined) {
      throw critical("BATCH_QUEUE_SPAN_EMPTY", "Cannot expand span batch: no block after the safe head");
    }
    return { batch: first, concluding: this.#nextSpan.length === 0 };
  }

  /** The first accepted buffered batch, or an empty batch, or undefined (op-node io.EOF). */
  async #deriveNextBatch(outOfData: boolean, parent: L2BlockRef): Promise<DecodedBatch | undefined> {
    if (this.#l1Blocks.length === 0) {
      throw critical("BATCH_QUEUE_NO_ORIGIN", "Cannot derive next batch: no L1 origin was prepared");
    }
    this.#checkEpoch(parent);
    const remaining: BufferedBatch[] = [];
    let accepted: BufferedBatch | undefined;
    for (let i = 0; i < this.#batches.length; i++) {
      const entry = this.#batches[i];
      const { validity } = await this.#check(entry, parent);
      if (validity === "future") {
        remaining.push(entry);
      } else if (validity === "accept") {
        accepted = entry;
        remaining.push(...this.#batches.slice(i + 1));
        break;
      } else if (validity === "undecided") {
        remaining.push(...this.#batches.slice(i));
        this.#batches = remaining;
        return undefined;
      }
      // "drop" (and "past", which needs a Holocene inclusion block and so cannot occur here) is dropped.
    }
    this.#batches = remaining;
    if (accepted !== undefined) return accepted.batch;
    const empty = this.#emptyBatch(outOfData, parent);
    return empty === undefined ? undefined : { kind: "singular", batch: empty };
  }

  // ------------------------------------------------------------------------------------------
  // From Holocene (op-node BatchStage)

  async #stepHolocene(parent: L2BlockRef, originExhausted: boolean): Promise<Step> {
    // Holocene never invalidates backwards, so the L1 blocks are always updated and pruned.
    this.#updateOrigins(parent);
    // Behind or at the parent's origin, every batch is in the past: drain the earlier stages.
    if (this.#originBehind(parent) || parent.l1Origin.number === this.#origin!.number) {
      if (this.#pending === undefined) return "need-data";
      this.#pending = undefined;
      return AGAIN;
    }
    if (this.#l1Blocks.length < 2) {
      throw critical(
        "BATCH_QUEUE_NO_ORIGIN",
        `Cannot derive next batch: ${this.#l1Blocks.length} L1 blocks known at origin ${
          this.#origin!.number
        }`,
      );
    }
    this.#checkEpoch(parent);
    const candidate = await this.#candidate(parent, originExhausted);
    if (candidate === "exhausted") {
      // Empty batches only once the span and the previous stage are drained.
      const empty = this.#emptyBatch(true, parent);
      return empty === undefined ? "need-data" : { batch: empty, concluding: true };
    }
    if (typeof candidate !== "object") return candidate;
    const { validity } = checkSingularBatch(this.#cfg, this.#l1Blocks, parent, candidate, this.#origin!);
    switch (validity) {
      case "accept":
        // From Holocene every block is safe on its own.
        return { batch: candidate, concluding: true };
      case "drop":
        return this.#flush();
      case "past":
      case "undecided":
        return AGAIN;
      default:
        throw critical("BATCH_QUEUE_IMPOSSIBLE_VALIDITY", `Cannot derive next batch: validity ${validity}`);
    }
  }

  /** The next singular batch to check: from the current span, or the added batch. */
  async #candidate(
    parent: L2BlockRef,
    originExhausted: boolean,
  ): Promise<SingularBatch | "exhausted" | "need-data" | "flush-channel" | typeof AGAIN> {
    const fromSpan = this.#fromSpan(parent);
    if (fromSpan !== undefined) return fromSpan;
    const input = this.#pending;
    if (input === undefined) return originExhausted ? "exhausted" : "need-data";
    this.#pending = undefined;
    if (input.kind === "singular") return input.batch;
    const check = await checkSpanBatchHolocene(
      this.#cfg,
      this.#l1Blocks,
      parent,
      input.batch,
      this.#origin!,
      this.#l2,
    );
    switch (check.validity) {
      case "accept":
        break;
      case "drop":
        return this.#flush();
      case "past":
      // As op-node: an undecided span (a failed L2 fetch) is consumed, not retried.
      case "undecided":
        return AGAIN;
      default:
        throw critical(
          "BATCH_QUEUE_IMPOSSIBLE_VALIDITY",
          `Cannot check span batch: validity ${check.validity}`,
        );
    }
    try {
      // The prefix checks do not cover every origin: a missing one makes the span invalid.
      this.#nextSpan = this.#expand(input, parent);
    } catch {
      return this.#flush();
    }
    return this.#fromSpan(parent) ?? AGAIN;
  }
}
