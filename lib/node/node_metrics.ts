/**
 * op-node's metrics fed from the rollup node's parts (node_role.ts wires them). Block references from
 * the driver's sync status (op-node metrics RecordL1Ref / RecordL2Ref, the names its dashboards read):
 * `op_node_default_refs_{number,time,hash,latency}` under layer l1 (l1_head, l1_safe, l1_finalized,
 * l1_derived: the derivation's L1 origin) and l2 (l2_unsafe, l2_safe, l2_finalized, l2_pending_safe,
 * with their L1 origins under l1_origin and sequence numbers); the driver's, the sequencer's and the
 * p2p host's measures through their hooks.
 */
import { BaseError } from "../common/errors.ts";
import type { Metrics, MetricsL2BlockRef } from "../common/metrics.ts";
import type { L1BlockRef } from "../protocol/block_ref.ts";
import type { ExecutionPayload } from "../protocol/engine.ts";
import type { DriverDeps, SyncStatus } from "../rollup/driver/mod.ts";
import type { SequencerDeps } from "../rollup/sequencer/mod.ts";

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

function severityOf(e: unknown): string | undefined {
  return e instanceof BaseError ? e.severity : undefined;
}

/**
 * The driver's measures as op-node's (node_role wires them): `derivation_idle` after each step
 * (op-node's DerivationPipeline.Step), `derivation_errors_*` for each failed step (op-node declares
 * the metric; keel counts what its driver logs as a derivation error), `channel_input_bytes` for each
 * channel read (op-node's ChannelInReader), and with a sequencer in the node `sequencer_resets_*` for
 * each error of severity `reset` (op-node's sequencer counts every reset signal it sees).
 */
export function driverMetrics(
  metrics: Metrics,
  options: { sequencing: boolean },
): Pick<DriverDeps, "onDerivationIdle" | "onDerivationError" | "onChannelInput"> {
  return {
    onDerivationIdle: (idle) => metrics.setDerivationIdle(idle),
    onDerivationError: (e) => {
      metrics.recordDerivationError();
      if (options.sequencing && severityOf(e) === "reset") metrics.recordSequencerReset();
    },
    onChannelInput: (bytes) => metrics.recordChannelInputBytes(bytes),
  };
}

/**
 * The sequencer's measures as op-node's engine and sequencer record them: on each sealed block the
 * sealing time, the building time minus the block time, and its transactions
 * (`sequencer_sealing_seconds`, `sequencer_building_diff_seconds`, `transactions_sequenced_total`);
 * a failed attempt of severity `reset` is a `sequencer_resets_*`, any other a `sequencing_errors_*`.
 */
export function sequencerMetrics(
  metrics: Metrics,
  blockTimeSeconds: bigint,
): Pick<SequencerDeps, "onSealed" | "onError"> {
  return {
    onSealed: ({ payload, buildSeconds, sealSeconds }) => {
      metrics.recordSequencerSealing(sealSeconds);
      metrics.recordSequencerBuildingDiff(buildSeconds - Number(blockTimeSeconds));
      metrics.countSequencedTxs(payload.transactions.length);
    },
    onError: (e) => {
      if (severityOf(e) === "reset") metrics.recordSequencerReset();
      else metrics.recordSequencingError();
    },
  };
}

/**
 * The sequencer's blocks to p2p: each published, a failed publish counted as op-node's
 * `publishing_errors_*` and told to `failed` (the block is the head already: peers get it over L1).
 */
export function publishSequenced(
  metrics: Metrics,
  publish: (payload: ExecutionPayload, parentBeaconBlockRoot: Uint8Array | undefined) => Promise<void>,
  failed: (payload: ExecutionPayload, error: unknown) => void,
): NonNullable<SequencerDeps["onBlock"]> {
  return (payload, root) =>
    void publish(payload, root).catch((e) => {
      metrics.recordPublishingError();
      failed(payload, e);
    });
}

/** op-node's `p2p_peer_count` and `p2p_stream_count`, read from the host. */
export function recordP2pCounts(
  metrics: Metrics,
  host: { connectionCounts(): { peers: number; streams: number } },
): void {
  const { peers, streams } = host.connectionCounts();
  metrics.setPeerCount(peers);
  metrics.setStreamCount(streams);
}
