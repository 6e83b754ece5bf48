/**
 * L1 retrieval (specs/protocol/derivation.md "L1 Retrieval"; ecotone/derivation.md "Ecotone: Blob
 * Retrieval"): the batcher data of an L1 block, in block order. A batcher transaction goes to the batch
 * inbox, has type 0, 1, 2 or 3, and was signed by the batcher address of the system config at that
 * block. From Ecotone a blob transaction's data is its blobs (its calldata is ignored); before Ecotone
 * blob transactions carry no batcher data. Blobs are numbered over all blob transactions of the block,
 * as the beacon node's sidecars are.
 */
import type { L1Tx } from "../l1/mod.ts";

export type BatcherData =
  | { kind: "calldata"; data: Uint8Array }
  /** A blob to fetch: its index among the block's blobs and its versioned hash. */
  | { kind: "blob"; index: number; hash: Uint8Array };

function same(a: Uint8Array | null, b: Uint8Array): boolean {
  if (a === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The batcher data of a block's transactions (senders already verified: l1/l1_tx.ts). */
export function batcherData(
  txs: L1Tx[],
  batchInbox: Uint8Array,
  batcher: Uint8Array,
  ecotone: boolean,
): BatcherData[] {
  const out: BatcherData[] = [];
  let blobIndex = 0;
  for (const tx of txs) {
    const blobs = tx.blobVersionedHashes.length;
    const accepted = tx.type <= 3 && same(tx.to, batchInbox) && same(tx.from, batcher);
    if (!accepted) {
      blobIndex += blobs;
      continue;
    }
    if (tx.type !== 3) out.push({ kind: "calldata", data: tx.input });
    else if (ecotone) {
      for (const hash of tx.blobVersionedHashes) out.push({ kind: "blob", index: blobIndex++, hash });
      continue;
    }
    blobIndex += blobs;
  }
  return out;
}
