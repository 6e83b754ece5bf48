/**
 * Frame queue (specs/protocol/derivation.md "Frame Queue"; holocene/derivation.md "Frame Queue"): the
 * frames of the last batcher transaction(s), handed out one by one. From Holocene (by the current L1
 * block's time) the queue is pruned to ordered, contiguous frames per channel:
 * - a frame of the same channel as the one before it must be its successor, and may not follow a
 *   closing frame;
 * - a first frame (number 0) of another channel drops the frames of an unclosed channel before it;
 * - a non-first frame of another channel is dropped.
 */
import { bytesToHex } from "../../common/bytes.ts";
import type { L1BlockRef } from "../../protocol/block_ref.ts";
import { type Frame, parseBatcherTxData } from "../../protocol/frame.ts";
import { isRollupForkActive, type RollupConfig } from "../../protocol/rollup_config.ts";

/** The Holocene pruning of a frame queue (a new array; the input is not changed). */
export function pruneFramesHolocene(input: Frame[]): Frame[] {
  const frames = [...input];
  const same = (a: Frame, b: Frame) => bytesToHex(a.channelId) === bytesToHex(b.channelId);
  for (let i = 0; i < frames.length - 1;) {
    const current = frames[i];
    const next = frames[i + 1];
    if (same(current, next)) {
      if (current.isLast || next.number !== current.number + 1) {
        frames.splice(i + 1, 1);
        continue;
      }
    } else if (next.number === 0 && !current.isLast) {
      // The unclosed channel is dropped, also its earlier frames: look at the pair before again.
      frames.splice(i, 1);
      if (i > 0) i--;
      continue;
    } else if (next.number !== 0) {
      frames.splice(i + 1, 1);
      continue;
    }
    i++;
  }
  return frames;
}

export class FrameQueue {
  readonly cfg: RollupConfig;
  #frames: Frame[] = [];

  constructor(cfg: RollupConfig) {
    this.cfg = cfg;
  }

  get length(): number {
    return this.#frames.length;
  }

  /**
   * Adds the frames of a batcher transaction read at L1 block `origin`; a transaction whose data does
   * not parse adds nothing and its error is returned.
   */
  push(data: Uint8Array, origin: L1BlockRef): string | undefined {
    let frames: Frame[];
    try {
      frames = parseBatcherTxData(data);
    } catch (e) {
      return (e as Error).message;
    }
    this.#frames.push(...frames);
    if (isRollupForkActive(this.cfg, "holocene", origin.timestamp)) {
      this.#frames = pruneFramesHolocene(this.#frames);
    }
    return undefined;
  }

  /** The next frame, or undefined when the queue is empty. */
  next(): Frame | undefined {
    return this.#frames.shift();
  }

  reset(): void {
    this.#frames = [];
  }
}
