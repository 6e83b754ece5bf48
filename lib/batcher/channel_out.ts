/**
 * The batcher's side of the wire format (specs/protocol/derivation.md "Batch Submission Wire Format";
 * batcher.md): L2 blocks become singular batches (op-node's BlockToSingularBatch), batches are
 * compressed into a channel (zlib, or Brotli from Fjord), and the channel is cut into frames that fit a
 * batcher transaction (calldata: one version byte plus frames; a blob: the frames of up to 130,043
 * bytes of data, blob_data.ts).
 */
import { BaseError } from "../common/errors.ts";
import { encodeSingularBatch, type SingularBatch } from "../protocol/batch.ts";
import { type ChannelCompression, compressChannel } from "../protocol/channel.ts";
import { decodeDepositTx, DEPOSIT_TX_TYPE } from "../protocol/deposit_tx.ts";
import { type Frame, FRAME_OVERHEAD, MAX_FRAME_DATA_LENGTH } from "../protocol/frame.ts";
import { decodeL1InfoCalldata } from "../protocol/l1_block_info.ts";

/** The L2 block fields a batch is made of. */
export interface L2BlockForBatch {
  number: bigint;
  parentHash: Uint8Array;
  timestamp: bigint;
  transactions: Uint8Array[];
}

/**
 * The singular batch of an L2 block: its epoch from the L1-info deposit (the first transaction), its
 * non-deposit transactions. Throws for a block without an L1-info deposit first.
 */
export function blockToSingularBatch(block: L2BlockForBatch): SingularBatch {
  const first = block.transactions[0];
  if (first === undefined || first[0] !== DEPOSIT_TX_TYPE) {
    throw new BaseError(
      "BATCH_NO_L1_INFO",
      `Cannot batch L2 block ${block.number}: its first transaction is not the L1-info deposit`,
    );
  }
  const { info } = decodeL1InfoCalldata(decodeDepositTx(first).data);
  return {
    parentHash: block.parentHash,
    epochNumber: info.number,
    epochHash: info.blockHash,
    timestamp: block.timestamp,
    transactions: block.transactions.filter((t) => t[0] !== DEPOSIT_TX_TYPE),
  };
}

/**
 * Cuts channel data into frames whose encoding is at most `maxFrameSize` bytes (frame overhead
 * included); the last frame closes the channel. A channel needs at most 65,536 frames.
 */
export function channelFrames(channelId: Uint8Array, data: Uint8Array, maxFrameSize: number): Frame[] {
  const room = Math.min(maxFrameSize - FRAME_OVERHEAD, MAX_FRAME_DATA_LENGTH);
  if (room < 1) {
    throw new BaseError("FRAME_TOO_SMALL", `Cannot cut a channel into frames of ${maxFrameSize} bytes`);
  }
  const count = Math.max(1, Math.ceil(data.length / room));
  if (count > 65_536) {
    throw new BaseError(
      "CHANNEL_TOO_LARGE",
      `Cannot cut a channel of ${data.length} bytes into ${count} frames`,
    );
  }
  const frames: Frame[] = [];
  for (let n = 0; n < count; n++) {
    frames.push({
      channelId,
      number: n,
      data: data.slice(n * room, (n + 1) * room),
      isLast: n === count - 1,
    });
  }
  return frames;
}

/** A channel of `batches` (singular batches, in order) cut into frames of at most `maxFrameSize` bytes. */
export function buildChannel(
  channelId: Uint8Array,
  batches: SingularBatch[],
  options: { compression: ChannelCompression; maxFrameSize: number },
): Frame[] {
  const data = compressChannel(batches.map(encodeSingularBatch), options.compression);
  return channelFrames(channelId, data, options.maxFrameSize);
}
