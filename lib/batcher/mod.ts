/** The batch submitter: L2 blocks to batches, channels and frames for L1 batcher transactions. */
export * from "./channel_out.ts";
export * from "./batcher.ts";
export * from "./proposer.ts";
