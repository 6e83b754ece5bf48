/**
 * rollupnode_syncStatus (interfaces.md 2.5, 2.6) and rollupnode_outputAtBlock (4.2): the driver's
 * heads as block references (numbers and timestamps as JSON integers, hashes as hex), and the
 * [version, output root] pair of an L2 block (proposals.md "L2 Output Commitment Construction").
 */
import { bytesToHex } from "../../common/bytes.ts";
import type { L1BlockRef, L2BlockRef } from "../../protocol/block_ref.ts";
import { defineMethod, RpcError, s } from "../../rpc/mod.ts";
import type { SyncStatus } from "../driver/mod.ts";
import type { RollupRpcBackend } from "./backend.ts";

export function l1RefJson(r: L1BlockRef) {
  return {
    hash: bytesToHex(r.hash),
    number: Number(r.number),
    parentHash: bytesToHex(r.parentHash),
    timestamp: Number(r.timestamp),
  };
}

export function l2RefJson(r: L2BlockRef) {
  return {
    ...l1RefJson(r),
    l1origin: { hash: bytesToHex(r.l1Origin.hash), number: Number(r.l1Origin.number) },
    sequenceNumber: Number(r.sequenceNumber),
  };
}

/** The heads every rollup node's sync status reports (op-node's and interfaces.md 2.6 alike). */
export function commonSyncStatusJson(st: SyncStatus) {
  return {
    current_l1: l1RefJson(st.currentL1),
    current_l1_finalized: l1RefJson(st.currentL1Finalized),
    head_l1: l1RefJson(st.headL1),
    safe_l1: l1RefJson(st.safeL1),
    finalized_l1: l1RefJson(st.finalizedL1),
    unsafe_l2: l2RefJson(st.unsafeL2),
    safe_l2: l2RefJson(st.safeL2),
    finalized_l2: l2RefJson(st.finalizedL2),
    pending_safe_l2: l2RefJson(st.pendingSafeL2),
  };
}

/** A SyncStatus as rollupnode_syncStatus answers it (interfaces.md 2.6). */
export function syncStatusJson(st: SyncStatus) {
  return {
    ...commonSyncStatusJson(st),
    queued_unsafe_l2: l2RefJson(st.queuedUnsafeL2),
    engine_sync_target: l2RefJson(st.engineSyncTarget),
  };
}

export function driverOf(backend: RollupRpcBackend) {
  if (backend.driver === undefined) {
    throw RpcError.server("derivation is not running: start the node with --l1");
  }
  return backend.driver;
}

/** A driver call whose failures answer -32000 with their message. */
export async function serverErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof RpcError) throw e;
    throw RpcError.server((e as Error).message);
  }
}

export const rollupnodeSyncStatus = (backend: RollupRpcBackend) =>
  defineMethod({
    name: "rollupnode_syncStatus",
    params: [],
    handler: async () => syncStatusJson(await driverOf(backend).syncStatus()),
  });

export const rollupnodeOutputAtBlock = (backend: RollupRpcBackend) =>
  defineMethod({
    name: "rollupnode_outputAtBlock",
    params: [s.uint64()],
    handler: ([number]) =>
      serverErrors(async () => {
        const [version, root] = await driverOf(backend).outputAtBlock(number);
        return [bytesToHex(version), bytesToHex(root)];
      }),
  });
