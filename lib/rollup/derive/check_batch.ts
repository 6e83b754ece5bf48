/**
 * Batch validity (specs/protocol/derivation.md "Batch Queue"; holocene/derivation.md "Batch Queue";
 * isthmus/derivation.md "Activation"): whether a batch read from L1 becomes the next safe L2 block.
 *
 * - `accept`: the next block; `drop`: never valid on this L1 chain; `undecided`: the next L1 block is
 *   needed to decide; `future`: not yet (before Holocene, kept for later); `past`: from Holocene, a
 *   batch at or before the safe head, skipped silently.
 * The Holocene rules apply by the batch's L1 inclusion block time, not the batch's own time.
 */
import type { L1BlockRef, L2BlockRef } from "../../protocol/block_ref.ts";
import type { SingularBatch } from "../../protocol/batch.ts";
import { DEPOSIT_TX_TYPE } from "../../protocol/deposit_tx.ts";
import { isRollupForkActive, maxSequencerDrift, type RollupConfig } from "../../protocol/rollup_config.ts";

export type BatchValidity = "drop" | "accept" | "undecided" | "future" | "past";

/** A verdict and, unless accepted, why (for the log). */
export interface BatchCheck {
  validity: BatchValidity;
  reason?: string;
}

const SET_CODE_TX_TYPE = 4;

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The transaction-list rules of a block's batch: no empty transaction, no deposit (those are derived
 * from L1 only), no EIP-7702 transaction before Isthmus at the block's timestamp.
 */
export function checkBatchTransactions(
  cfg: RollupConfig,
  timestamp: bigint,
  transactions: Uint8Array[],
): string | undefined {
  const isthmus = isRollupForkActive(cfg, "isthmus", timestamp);
  for (let i = 0; i < transactions.length; i++) {
    const tx = transactions[i];
    if (tx.length === 0) return `transaction ${i} is empty`;
    if (tx[0] === DEPOSIT_TX_TYPE) return `transaction ${i} is a deposit`;
    if (tx[0] === SET_CODE_TX_TYPE && !isthmus) {
      return `transaction ${i} is a set-code transaction before Isthmus`;
    }
  }
  return undefined;
}

/**
 * Checks a singular batch against the safe head. `l1Blocks` starts at the safe head's L1 origin and
 * continues with the L1 blocks after it that are known; `inclusion` is the L1 block the batch was
 * fully read from.
 */
export function checkSingularBatch(
  cfg: RollupConfig,
  l1Blocks: L1BlockRef[],
  safeHead: L2BlockRef,
  batch: SingularBatch,
  inclusion: L1BlockRef,
): BatchCheck {
  if (l1Blocks.length === 0) return { validity: "undecided", reason: "no L1 block to check against" };
  const epoch = l1Blocks[0];
  const holocene = isRollupForkActive(cfg, "holocene", inclusion.timestamp);
  const next = safeHead.timestamp + cfg.blockTime;
  if (batch.timestamp > next) {
    // Holocene drops out-of-order batches instead of buffering them.
    return {
      validity: holocene ? "drop" : "future",
      reason: `timestamp ${batch.timestamp} is after ${next}`,
    };
  }
  if (batch.timestamp < next) {
    return { validity: holocene ? "past" : "drop", reason: `timestamp ${batch.timestamp} is before ${next}` };
  }
  if (!equal(batch.parentHash, safeHead.hash)) {
    return { validity: "drop", reason: "parent hash is not the safe head" };
  }
  if (batch.epochNumber + cfg.seqWindowSize < inclusion.number) {
    return { validity: "drop", reason: "included after its sequencing window" };
  }
  let origin = epoch;
  if (batch.epochNumber < epoch.number) {
    return { validity: "drop", reason: "epoch older than the safe head's" };
  }
  if (batch.epochNumber === epoch.number + 1n) {
    if (l1Blocks.length < 2) return { validity: "undecided", reason: "the next L1 origin is not known yet" };
    origin = l1Blocks[1];
  } else if (batch.epochNumber > epoch.number + 1n) {
    return { validity: "drop", reason: "epoch advances by more than one L1 block" };
  }
  if (!equal(batch.epochHash, origin.hash)) {
    return { validity: "drop", reason: "epoch hash is not the L1 origin's" };
  }
  if (batch.timestamp < origin.timestamp) {
    return { validity: "drop", reason: "timestamp before its L1 origin's" };
  }
  const max = origin.timestamp + maxSequencerDrift(cfg, origin.timestamp);
  if (batch.timestamp > max) {
    if (batch.transactions.length > 0) {
      return { validity: "drop", reason: `past the sequencer drift (${max}) with transactions` };
    }
    // An empty batch past the drift is allowed only while the next origin is not yet possible
    // (the L2 time >= L1 time invariant); one that adopts the next origin always is.
    if (epoch.number === origin.number) {
      if (l1Blocks.length < 2) {
        return { validity: "undecided", reason: "past the drift; the next L1 origin is needed" };
      }
      if (batch.timestamp >= l1Blocks[1].timestamp) {
        return { validity: "drop", reason: "past the drift while the next L1 origin was possible" };
      }
    }
  }
  const bad = checkBatchTransactions(cfg, batch.timestamp, batch.transactions);
  if (bad !== undefined) return { validity: "drop", reason: bad };
  return { validity: "accept" };
}
