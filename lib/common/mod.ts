/** Shared building blocks of every layer: codecs, errors, hashing, logging, metrics. */
export * from "./bytes.ts";
export * from "./errors.ts";
export * from "./hash.ts";
export * from "./logger.ts";
export * from "./metrics.ts";
export * from "./duration.ts";
export * from "./rlp.ts";
export * from "./json_rpc_client.ts";
export * from "./lru.ts";
export * from "./files.ts";
export * from "./wakeable_sleep.ts";
export * from "./relay.ts";
