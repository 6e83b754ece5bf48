/** rollupnode_rollupConfig: the rollup configuration in op-node's JSON shape (spec 2.7). */
import { defineMethod } from "../../rpc/mod.ts";
import { rollupConfigToJson } from "../../protocol/mod.ts";
import type { RollupRpcBackend } from "./backend.ts";

export const rollupnodeRollupConfig = (backend: RollupRpcBackend) => {
  // The config never changes while the node runs: encode once.
  const json = rollupConfigToJson(backend.rollupConfig);
  return defineMethod({
    name: "rollupnode_rollupConfig",
    params: [],
    handler: () => json,
  });
};
