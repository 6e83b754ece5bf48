/**
 * Channel reader (specs/protocol/derivation.md "Channel Reader (Batch Decoding)"): a channel's data is
 * decompressed (up to MAX_RLP_BYTES_PER_CHANNEL of its fork, channel.ts) and read as batches, in order.
 * Reading stops at the first batch that does not decode; the batches before it stand (op-node drops the
 * rest of the channel). Span batches need Delta, checked by the batch queue.
 */
import { decodeBatch, type DecodedBatch } from "../../protocol/batch.ts";
import { decompressChannel, readChannelBatches } from "../../protocol/channel.ts";
import type { L1BlockRef } from "../../protocol/block_ref.ts";
import { isRollupForkActive, type RollupConfig } from "../../protocol/rollup_config.ts";

export interface ChannelBatches {
  batches: DecodedBatch[];
  /** Why reading stopped early (decompression, RLP or batch decoding), if it did. */
  error?: string;
}

/** The batches of a channel read at L1 block `origin` (its time selects Fjord's rules). */
export async function readChannel(
  cfg: RollupConfig,
  data: Uint8Array,
  origin: L1BlockRef,
): Promise<ChannelBatches> {
  const fjord = isRollupForkActive(cfg, "fjord", origin.timestamp);
  let decompressed;
  try {
    decompressed = await decompressChannel(data, { fjord });
  } catch (e) {
    return { batches: [], error: (e as Error).message };
  }
  const raw = readChannelBatches(decompressed.data);
  const batches: DecodedBatch[] = [];
  for (const b of raw.batches) {
    try {
      batches.push(decodeBatch(b));
    } catch (e) {
      return { batches, error: (e as Error).message };
    }
  }
  // A stream error after complete batches (a cut or corrupt tail) ends the channel too.
  return { batches, error: raw.error ?? decompressed.error };
}
