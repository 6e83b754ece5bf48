/** The persistent chain: blocks, receipts, canonical index, tx and log indexes, head labels. */
export * from "./types.ts";
export * from "./bloom.ts";
export * from "./codec.ts";
export * from "./chain_store.ts";
