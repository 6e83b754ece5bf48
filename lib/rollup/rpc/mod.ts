/**
 * The rollup node's JSON-RPC namespace `rollupnode` (spec 4.2). syncStatus and outputAtBlock read
 * the driver, which runs when the node has an L1 (`--l1`); without one they answer -32000.
 */
import type { Namespace } from "../../rpc/mod.ts";
import type { RollupRpcBackend } from "./backend.ts";
import { rollupnodeRollupConfig } from "./rollupnode_rollup_config.ts";
import { rollupnodeVersion } from "./rollupnode_version.ts";
import { rollupnodeOutputAtBlock, rollupnodeSyncStatus } from "./rollupnode_sync_status.ts";

export type { RollupRpcBackend } from "./backend.ts";

export function rollupnodeNamespace(backend: RollupRpcBackend): Namespace {
  return {
    version: rollupnodeVersion(backend),
    rollupConfig: rollupnodeRollupConfig(backend),
    syncStatus: rollupnodeSyncStatus(backend),
    outputAtBlock: rollupnodeOutputAtBlock(backend),
  };
}
export { type AdminBackend, adminNamespace } from "./admin.ts";
export { nodep2pNamespace } from "./nodep2p.ts";
export { opNodeSyncStatusJson, optimismNamespace } from "./optimism.ts";
