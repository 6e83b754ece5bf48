/** State storage: the @ethereumjs/mpt DB adapter over keel's KvStore and the state-manager factory. */
export * from "./trie_db.ts";
export * from "./state_manager.ts";
export * from "./create_state.ts";
export * from "./batch_trie.ts";
export * from "./trie_snapshot.ts";
export * from "./root_task.ts";
export * from "./recording_state.ts";
export * from "./preimages.ts";
export { packDelta, unpackDelta } from "./delta_codec.ts";
export * from "./online_prune.ts";
export * from "./fork_source.ts";
