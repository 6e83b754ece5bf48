/**
 * Channel bank (specs/protocol/derivation.md "Channel Bank", with "Pruning", "Timeouts", "Reading",
 * "Loading frames"): buffers the frames of every open channel until a channel is complete, then hands
 * out its data. Used before Holocene; from Holocene the channel assembler (channel_assembler.ts) holds
 * a single channel instead.
 *
 * - A channel opens with its first frame seen (any number), tagged with the current L1 block.
 * - A channel times out when `current L1 number > open L1 number + CHANNEL_TIMEOUT`; frames for it are
 *   dropped, and a timed-out channel at the head of the queue is removed on reading.
 * - Duplicate frames, a second closing frame, and frames at or past the closing frame of a closed
 *   channel are dropped; a closing frame removes the frames numbered after it.
 * - After each frame the bank is pruned in FIFO order down to MAX_CHANNEL_BANK_SIZE, counting each
 *   frame's data plus 200 bytes.
 * - Reading: before Canyon only the first channel may be read, once ready; from Canyon (by the current
 *   L1 block's time) the first ready channel in FIFO order.
 */
import { bytesToHex, concatBytes } from "../../common/bytes.ts";
import type { L1BlockRef } from "../../protocol/block_ref.ts";
import type { Frame } from "../../protocol/frame.ts";
import {
  channelTimeout,
  isRollupForkActive,
  maxChannelBankSize,
  type RollupConfig,
} from "../../protocol/rollup_config.ts";

/** Bytes counted per frame besides its data (derivation.md "Pruning"). */
export const FRAME_SIZE_OVERHEAD = 200;

/** One channel's frames as they arrive (op-node's Channel). */
export class PendingChannel {
  readonly id: Uint8Array;
  readonly openBlock: L1BlockRef;
  /** Holocene: frames must arrive in order (channel_assembler.ts). */
  readonly inOrder: boolean;
  readonly #frames = new Map<number, Uint8Array>();
  #closedAt: number | undefined;
  #highest = 0;
  #size = 0;

  constructor(id: Uint8Array, openBlock: L1BlockRef, inOrder = false) {
    this.id = id;
    this.openBlock = openBlock;
    this.inOrder = inOrder;
  }

  /** Frame data plus 200 bytes per frame. */
  get size(): number {
    return this.#size;
  }

  get closed(): boolean {
    return this.#closedAt !== undefined;
  }

  /** Adds a frame; returns why it was refused, or undefined. */
  add(frame: Frame): string | undefined {
    if (bytesToHex(frame.channelId) !== bytesToHex(this.id)) return "frame of another channel";
    if (frame.isLast && this.closed) return "channel already closed";
    if (this.#frames.has(frame.number)) return `duplicate frame ${frame.number}`;
    if (this.#closedAt !== undefined && frame.number >= this.#closedAt) {
      return `frame ${frame.number} at or after the closing frame ${this.#closedAt}`;
    }
    if (this.inOrder && frame.number !== this.#frames.size) {
      return `frame ${frame.number} out of order, want ${this.#frames.size}`;
    }
    if (frame.isLast) {
      this.#closedAt = frame.number;
      if (frame.number < this.#highest) {
        for (const [n, data] of this.#frames) {
          if (n < frame.number) continue;
          this.#frames.delete(n);
          this.#size -= data.length + FRAME_SIZE_OVERHEAD;
        }
        this.#highest = frame.number;
      }
    }
    if (frame.number > this.#highest) this.#highest = frame.number;
    this.#frames.set(frame.number, frame.data);
    this.#size += frame.data.length + FRAME_SIZE_OVERHEAD;
    return undefined;
  }

  /** Closed, with every frame up to the closing one. */
  get ready(): boolean {
    if (this.#closedAt === undefined || this.#frames.size !== this.#closedAt + 1) return false;
    for (let n = 0; n <= this.#closedAt; n++) if (!this.#frames.has(n)) return false;
    return true;
  }

  /** The channel's data, frames in order (only when ready). */
  data(): Uint8Array {
    const parts: Uint8Array[] = [];
    for (let n = 0; n <= (this.#closedAt ?? -1); n++) parts.push(this.#frames.get(n)!);
    return concatBytes(...parts);
  }

  /** True when the channel has timed out at L1 block `current`. */
  timedOut(cfg: RollupConfig, current: L1BlockRef): boolean {
    return this.openBlock.number + channelTimeout(cfg, current.timestamp) < current.number;
  }
}

/** A channel read from the bank. */
export interface ReadChannel {
  id: Uint8Array;
  data: Uint8Array;
  openBlock: L1BlockRef;
}

export class ChannelBank {
  readonly cfg: RollupConfig;
  readonly #channels = new Map<string, PendingChannel>();
  /** Channel ids in the order they were opened. */
  #queue: string[] = [];

  constructor(cfg: RollupConfig) {
    this.cfg = cfg;
  }

  get channelCount(): number {
    return this.#queue.length;
  }

  /** Buffered size: frame data plus 200 bytes per frame, over all channels. */
  get size(): number {
    let n = 0;
    for (const ch of this.#channels.values()) n += ch.size;
    return n;
  }

  /** Loads a frame read at L1 block `origin`; returns why it was dropped, or undefined. */
  ingest(frame: Frame, origin: L1BlockRef): string | undefined {
    const id = bytesToHex(frame.channelId);
    let ch = this.#channels.get(id);
    if (ch === undefined) {
      ch = new PendingChannel(frame.channelId, origin);
      this.#channels.set(id, ch);
      this.#queue.push(id);
    }
    if (ch.timedOut(this.cfg, origin)) return "channel timed out";
    const refused = ch.add(frame);
    if (refused !== undefined) return refused;
    this.#prune(origin);
    return undefined;
  }

  #prune(origin: L1BlockRef): void {
    const max = Number(maxChannelBankSize(this.cfg, origin.timestamp));
    let total = this.size;
    while (total > max && this.#queue.length > 0) {
      const id = this.#queue.shift()!;
      total -= this.#channels.get(id)!.size;
      this.#channels.delete(id);
    }
  }

  /** The next channel to read at L1 block `origin`, removed from the bank; undefined when none is ready. */
  read(origin: L1BlockRef): ReadChannel | undefined {
    // Timed-out channels at the head are removed first (several may have timed out).
    while (this.#queue.length > 0 && this.#channels.get(this.#queue[0])!.timedOut(this.cfg, origin)) {
      this.#channels.delete(this.#queue.shift()!);
    }
    if (this.#queue.length === 0) return undefined;
    const canyon = isRollupForkActive(this.cfg, "canyon", origin.timestamp);
    const last = canyon ? this.#queue.length : 1;
    for (let i = 0; i < last; i++) {
      const ch = this.#channels.get(this.#queue[i])!;
      if (!ch.ready) continue;
      this.#channels.delete(this.#queue[i]);
      this.#queue.splice(i, 1);
      return { id: ch.id, data: ch.data(), openBlock: ch.openBlock };
    }
    return undefined;
  }

  reset(): void {
    this.#channels.clear();
    this.#queue = [];
  }
}
