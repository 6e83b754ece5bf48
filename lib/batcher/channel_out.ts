/**
 * The batcher's side of the wire format (specs/protocol/derivation.md "Batch Submission Wire Format";
 * batcher.md): L2 blocks become singular batches (op-node's BlockToSingularBatch), or together one span
 * batch from Delta (delta/span-batches.md), batches are
 * compressed into a channel (zlib, or Brotli from Fjord), and the channel is cut into frames that fit a
 * batcher transaction (calldata: one version byte plus frames; a blob: the frames of up to 130,043
 * bytes of data, blob_data.ts).
 */
import { BaseError } from "../common/errors.ts";
import { concatBytes } from "../common/bytes.ts";
import { encodeSingularBatch, type SingularBatch, SPAN_BATCH_TYPE } from "../protocol/batch.ts";
import { type ChannelCompression, compressChannel } from "../protocol/channel.ts";
import { decodeDepositTx, DEPOSIT_TX_TYPE } from "../protocol/deposit_tx.ts";
import { type Frame, FRAME_OVERHEAD, MAX_FRAME_DATA_LENGTH } from "../protocol/frame.ts";
import { decodeL1InfoCalldata } from "../protocol/l1_block_info.ts";
import { encodeSpanBatch } from "../protocol/span_batch_encode.ts";
import { spanBatchFromSingular } from "../protocol/span_batch_singular.ts";

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

/**
 * The span batch of consecutive L2 blocks, with its version byte, as it goes into a channel
 * (span-batches.md "Span batch format"). The first block's origin bit says whether it opened its
 * epoch (its L1-info sequence number is 0), as op-node sets it.
 */
export function blocksToSpanBatch(
  blocks: L2BlockForBatch[],
  genesisTimestamp: bigint,
  chainId: bigint,
): Uint8Array {
  const singular = blocks.map(blockToSingularBatch);
  const firstInfo = decodeL1InfoCalldata(decodeDepositTx(blocks[0].transactions[0]).data).info;
  const span = spanBatchFromSingular(singular, genesisTimestamp, chainId, firstInfo.sequenceNumber === 0n);
  return concatBytes(Uint8Array.of(SPAN_BATCH_TYPE), encodeSpanBatch(span));
}

/** Channel data (`encoded` batches with their version bytes, compressed) cut into frames. */
export function buildChannelFromBatches(
  channelId: Uint8Array,
  encoded: Uint8Array[],
  options: { compression: ChannelCompression; maxFrameSize: number },
): Frame[] {
  return channelFrames(channelId, compressChannel(encoded, options.compression), options.maxFrameSize);
}

/** A channel of `batches` (singular batches, in order) cut into frames of at most `maxFrameSize` bytes. */
export function buildChannel(
  channelId: Uint8Array,
  batches: SingularBatch[],
  options: { compression: ChannelCompression; maxFrameSize: number },
): Frame[] {
  return buildChannelFromBatches(channelId, batches.map(encodeSingularBatch), options);
}
