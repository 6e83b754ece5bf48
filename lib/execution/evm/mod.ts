/** The OP state transition on @ethereumjs/vm: fork mapping, precompiles, tx runner, block builder and importer. */
export * from "./common.ts";
export * from "./precompiles.ts";
export * from "./bloom.ts";
export * from "./l1_fee.ts";
export * from "./header_rules.ts";
export * from "./tx_runner.ts";
export * from "./plain_transfer.ts";
export * from "./block_builder.ts";
export * from "./block_importer.ts";
export * from "./sender_cache.ts";
export * from "./impersonation.ts";
export * from "./fast_opcodes.ts";
export * from "./words.ts";
export { fastLoopStats } from "./fast_loop.ts";
export * from "./requests.ts";
export * from "./kzg.ts";
export * from "./tx_decode.ts";
export * from "./calldata_gas.ts";
