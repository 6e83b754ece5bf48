/**
 * The rollup node's methods under op-node's own names and shapes (op-node node/api.go, op-service/eth
 * output.go and sync_status.go), for the OP Stack services that talk to a rollup node: op-batcher
 * (optimism_syncStatus, optimism_rollupConfig; its pruning reads `local_safe_l2`), op-proposer and
 * op-challenger (optimism_outputAtBlock, optimism_syncStatus), and tools asking optimism_version.
 *
 * - optimism_syncStatus: op-node's SyncStatus: the L1 and L2 heads of rollupnode_syncStatus with
 *   `cross_unsafe_l2` and `local_safe_l2`, which equal the unsafe and safe heads without interop.
 * - optimism_outputAtBlock [number]: OutputResponse {version, outputRoot, blockRef, withdrawalStorageRoot,
 *   stateRoot, syncStatus}.
 * - optimism_safeHeadAtL1Block [l1 number]: SafeHeadResponse {l1Block, safeHead}: the safe head derived
 *   from L1 up to the last recorded L1 block at or before the one asked (`--safedb.path`; op-node's
 *   errors "safe head database not enabled" and "not found").
 * - optimism_rollupConfig, optimism_version: as rollupnode_rollupConfig and rollupnode_version.
 */
import { bytesToHex } from "../../common/bytes.ts";
import { rollupConfigToJson } from "../../protocol/mod.ts";
import { defineMethod, type Namespace, RpcError, s } from "../../rpc/mod.ts";
import type { BlockId } from "../../protocol/block_ref.ts";
import type { SyncStatus } from "../driver/mod.ts";
import type { RollupRpcBackend } from "./backend.ts";
import { commonSyncStatusJson, driverOf, l2RefJson, serverErrors } from "./rollupnode_sync_status.ts";

/** op-node's SyncStatus JSON. */
export function opNodeSyncStatusJson(st: SyncStatus) {
  return {
    ...commonSyncStatusJson(st),
    // Pre-interop every unsafe block is cross-unsafe and the local safe head is the safe head.
    cross_unsafe_l2: l2RefJson(st.unsafeL2),
    local_safe_l2: l2RefJson(st.safeL2),
  };
}

export function optimismNamespace(backend: RollupRpcBackend): Namespace {
  const config = rollupConfigToJson(backend.rollupConfig);
  const defs = [
    defineMethod({
      name: "optimism_syncStatus",
      params: [],
      handler: async () => opNodeSyncStatusJson(await driverOf(backend).syncStatus()),
    }),
    defineMethod({
      name: "optimism_outputAtBlock",
      params: [s.uint64()],
      handler: ([number]) =>
        serverErrors(async () => {
          const driver = driverOf(backend);
          const out = await driver.output(number);
          return {
            version: bytesToHex(out.version),
            outputRoot: bytesToHex(out.outputRoot),
            blockRef: l2RefJson(out.blockRef),
            withdrawalStorageRoot: bytesToHex(out.withdrawalStorageRoot),
            stateRoot: bytesToHex(out.stateRoot),
            syncStatus: opNodeSyncStatusJson(await driver.syncStatus()),
          };
        }),
    }),
    defineMethod({
      name: "optimism_safeHeadAtL1Block",
      params: [s.uint64()],
      handler: ([number]) => {
        if (backend.safeDb === undefined) throw RpcError.server("safe head database not enabled");
        const record = backend.safeDb.at(number);
        if (record === undefined) throw RpcError.server("not found");
        const id = (b: BlockId) => ({ hash: bytesToHex(b.hash), number: Number(b.number) });
        return { l1Block: id(record.l1), safeHead: id(record.safeHead) };
      },
    }),
    defineMethod({ name: "optimism_rollupConfig", params: [], handler: () => config }),
    defineMethod({ name: "optimism_version", params: [], handler: () => backend.version }),
  ];
  return Object.fromEntries(defs.map((d) => [d.name, d]));
}
