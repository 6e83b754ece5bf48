/**
 * Channel assembler (specs/protocol/holocene/derivation.md "Channel Bank"): from Holocene the channel
 * bank holds one staging channel. A first frame starts a new channel (dropping an unfinished one); a
 * frame without a channel, out of order, or after the channel closed is dropped; a channel whose frames
 * exceed MAX_RLP_BYTES_PER_CHANNEL (data plus 200 bytes a frame) is dropped; a timed-out channel is
 * dropped. A closing frame completes the channel, whose data is handed out.
 */
import type { L1BlockRef } from "../../protocol/block_ref.ts";
import type { Frame } from "../../protocol/frame.ts";
import { maxRlpBytesPerChannel, type RollupConfig } from "../../protocol/rollup_config.ts";
import { PendingChannel, type ReadChannel } from "./channel_bank.ts";

export class ChannelAssembler {
  readonly cfg: RollupConfig;
  #channel: PendingChannel | undefined;

  constructor(cfg: RollupConfig) {
    this.cfg = cfg;
  }

  /** The staging channel's buffered size, 0 without one. */
  get size(): number {
    return this.#channel?.size ?? 0;
  }

  /**
   * Adds a frame read at L1 block `origin`: the completed channel when this frame closes it, else
   * undefined (`dropped` says why a frame or channel was dropped).
   */
  add(frame: Frame, origin: L1BlockRef, dropped?: (reason: string) => void): ReadChannel | undefined {
    if (this.#channel?.timedOut(this.cfg, origin)) {
      this.#channel = undefined;
      dropped?.("staging channel timed out");
    }
    if (frame.number === 0) {
      if (this.#channel !== undefined) dropped?.("unfinished channel replaced by a new one");
      this.#channel = new PendingChannel(frame.channelId, origin, true);
    }
    const ch = this.#channel;
    if (ch === undefined) {
      dropped?.(`frame ${frame.number} without a channel`);
      return undefined;
    }
    const refused = ch.add(frame);
    if (refused !== undefined) {
      dropped?.(refused);
      return undefined;
    }
    if (ch.size > Number(maxRlpBytesPerChannel(this.cfg, origin.timestamp))) {
      this.#channel = undefined;
      dropped?.(`channel of ${ch.size} bytes is above the limit`);
      return undefined;
    }
    if (!frame.isLast) return undefined;
    this.#channel = undefined;
    return { id: ch.id, data: ch.data(), openBlock: ch.openBlock };
  }

  reset(): void {
    this.#channel = undefined;
  }
}
