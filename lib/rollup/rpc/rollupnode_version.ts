/** rollupnode_version: the software version, the same string `keel --version` prints (spec 4.2, 9). */
import { defineMethod } from "../../rpc/mod.ts";
import type { RollupRpcBackend } from "./backend.ts";

export const rollupnodeVersion = (backend: RollupRpcBackend) =>
  defineMethod({
    name: "rollupnode_version",
    params: [],
    handler: () => backend.version,
  });
