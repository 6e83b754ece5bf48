/**
 * op-node's block-reference metrics from the driver's sync status (op-node metrics RecordL1Ref /
 * RecordL2Ref, the names its dashboards read): `op_node_default_refs_{number,time,hash,latency}` under
 * layer l1 (l1_head, l1_safe, l1_finalized, l1_derived: the derivation's L1 origin) and l2 (l2_unsafe,
 * l2_safe, l2_finalized, l2_pending_safe, with their L1 origins under l1_origin and sequence numbers).
 */
import type { Metrics, MetricsL2BlockRef } from "../common/metrics.ts";
import type { L1BlockRef } from "../protocol/block_ref.ts";
import type { SyncStatus } from "../rollup/driver/mod.ts";

const l1 = (r: L1BlockRef) => ({ number: r.number, hash: r.hash, time: r.timestamp });

/** Records the sync status's references as op-node names them. */
export function recordSyncStatus(metrics: Metrics, st: SyncStatus): void {
  metrics.recordL1Ref("l1_head", l1(st.headL1));
  metrics.recordL1Ref("l1_safe", l1(st.safeL1));
  metrics.recordL1Ref("l1_finalized", l1(st.finalizedL1));
  metrics.recordL1Ref("l1_derived", l1(st.currentL1));
  const l2 = (type: string, r: SyncStatus["unsafeL2"]) => {
    const ref: MetricsL2BlockRef = {
      number: r.number,
      hash: r.hash,
      time: r.timestamp,
      l1Origin: r.l1Origin,
      sequenceNumber: r.sequenceNumber,
    };
    metrics.recordL2Ref(type, ref);
  };
  l2("l2_unsafe", st.unsafeL2);
  l2("l2_safe", st.safeL2);
  l2("l2_finalized", st.finalizedL2);
  l2("l2_pending_safe", st.pendingSafeL2);
}
