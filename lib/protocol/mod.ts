/** Pure OP-Stack data and codecs, no I/O. */
export * from "./hardforks.ts";
export * from "./chain_config.ts";
export * from "./block.ts";
export * from "./receipt.ts";
export * from "./engine.ts";
export * from "./predeploys.ts";
export * from "./deposit_tx.ts";
export * from "./fastlz.ts";
export * from "./rollup_config.ts";
export * from "./rollup_config_json.ts";
export * from "./l1_cost.ts";
export * from "./eip1559.ts";
export * from "./l1_block_info.ts";
export * from "./batch.ts";
export * from "./frame.ts";
export * from "./channel.ts";
export * from "./block_ref.ts";
