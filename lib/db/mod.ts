/** keel's key-value store: the interface, the sqlite and memory backends, the key-prefix registry. */
export * from "./kv_store.ts";
export * from "./memory_store.ts";
export * from "./sqlite_store.ts";
export * from "./prefixes.ts";
export * from "./overlay_store.ts";
