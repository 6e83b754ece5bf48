/** L2 chain derivation from L1 data (specs/protocol/derivation.md): the pipeline stages and their rules. */
export * from "./check_batch.ts";
export * from "./frame_queue.ts";
export * from "./channel_bank.ts";
export * from "./channel_assembler.ts";
export * from "./l1_retrieval.ts";
export * from "./channel_reader.ts";
export * from "./l2_block_ref.ts";
export * from "./attributes.ts";
export * from "./pipeline.ts";
export * from "./l2_system_config.ts";
export * from "./check_span_batch.ts";
export * from "./batch_queue.ts";
