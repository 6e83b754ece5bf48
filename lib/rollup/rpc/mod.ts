/**
 * The rollup node's JSON-RPC namespace `rollupnode` (spec 4.2). Methods that need derivation
 * state (syncStatus, outputAtBlock) are registered by the driver once it runs.
 */
import type { Namespace } from "../../rpc/mod.ts";
import type { RollupRpcBackend } from "./backend.ts";
import { rollupnodeRollupConfig } from "./rollupnode_rollup_config.ts";
import { rollupnodeVersion } from "./rollupnode_version.ts";

export type { RollupRpcBackend } from "./backend.ts";

export function rollupnodeNamespace(backend: RollupRpcBackend): Namespace {
  return {
    version: rollupnodeVersion(backend),
    rollupConfig: rollupnodeRollupConfig(backend),
  };
}
