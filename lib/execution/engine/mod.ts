/** The execution engine (chain head, block production and import over persistent state), dev sealing and the Engine API. */
export * from "./execution_engine.ts";
export * from "./engine_types.ts";
export * from "./genesis_store.ts";
export * from "./receipts.ts";
export * from "./payload.ts";
export * from "./dev_miner.ts";
export * from "./l1_block_state.ts";
export * from "./impersonation.ts";
export * from "./pool_head.ts";
export * from "./engine_api.ts";
export * from "./wire.ts";
export * from "./engine_rpc.ts";
export { type DaLimits, estimatedTxDaSize } from "./pool_link.ts";
export * from "./bad_blocks.ts";
export * from "./blob_store.ts";
export * from "./chain_file.ts";
