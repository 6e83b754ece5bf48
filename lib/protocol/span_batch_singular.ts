/**
 * Span batches and singular batches (specs/protocol/delta/span-batches.md):
 * - `spanBatchFromSingular`: what the batcher does with a run of singular batches.
 * - `deriveSpanBatchElements` / `spanBatchToSingular`: what derivation does ("How Derivation works
 *   with Span Batches"): per-block timestamps, L1 origin numbers and full EIP-2718 transactions.
 */
import { BaseError } from "../common/errors.ts";
import type { SingularBatch } from "./batch.ts";
import {
  MAX_SPAN_BATCH_ELEMENT_COUNT,
  type SpanBatch,
  type SpanBatchElement,
  type SpanBatchL1Origin,
  type SpanBatchTx,
} from "./span_batch.ts";
import { spanBatchTxFromSigned, spanBatchTxToSigned } from "./span_batch_tx.ts";

function conversionError(message: string): BaseError {
  return new BaseError("SPAN_BATCH_INVALID", `Cannot convert singular batches to a span batch: ${message}`);
}

/**
 * The span batch of consecutive singular batches, as op-node's batcher builds it
 * (span-batches.md "Span batch format" and "Batcher"): rel_timestamp = first timestamp - genesis,
 * l1_origin_num and l1_origin_check from the last batch's epoch, parent_check from the first batch's
 * parent hash, origin bit i (i > 0) set when batch i's epoch is batch i-1's + 1.
 *
 * Bit 0 says whether the first block changed its L1 origin against its parent, which the batches do
 * not tell: `firstOriginChanged` (op-node: the first block's sequence number is 0). Derivation does
 * not read bit 0 (see deriveSpanBatchElements), but it is part of the bytes.
 * Epochs may only stay or grow by one between blocks, timestamps must increase; transactions must
 * be of a span batch type and signed for `chainId` (spanBatchTxFromSigned).
 */
export function spanBatchFromSingular(
  batches: readonly SingularBatch[],
  genesisTimestamp: bigint,
  chainId: bigint,
  firstOriginChanged = false,
): SpanBatch {
  if (batches.length === 0) throw conversionError("no batches");
  if (batches.length > MAX_SPAN_BATCH_ELEMENT_COUNT) throw conversionError(`${batches.length} batches`);
  const first = batches[0];
  const last = batches[batches.length - 1];
  if (first.timestamp < genesisTimestamp) {
    throw conversionError(`first timestamp ${first.timestamp} is before genesis ${genesisTimestamp}`);
  }
  if (first.parentHash.length < 20) throw conversionError("parent hash shorter than 20 bytes");
  if (last.epochHash.length < 20) throw conversionError("epoch hash shorter than 20 bytes");
  const originBits: boolean[] = [];
  const blockTxCounts: number[] = [];
  const txs: SpanBatchTx[] = [];
  batches.forEach((b, i) => {
    if (i === 0) originBits.push(firstOriginChanged);
    else {
      const prev = batches[i - 1];
      if (b.timestamp <= prev.timestamp) {
        throw conversionError(`batch ${i} timestamp ${b.timestamp} does not follow ${prev.timestamp}`);
      }
      const step = b.epochNumber - prev.epochNumber;
      if (step !== 0n && step !== 1n) {
        throw conversionError(`batch ${i} epoch ${b.epochNumber} does not follow epoch ${prev.epochNumber}`);
      }
      originBits.push(step === 1n);
    }
    blockTxCounts.push(b.transactions.length);
    for (const raw of b.transactions) txs.push(spanBatchTxFromSigned(raw, chainId, txs.length));
  });
  if (txs.length > MAX_SPAN_BATCH_ELEMENT_COUNT) throw conversionError(`${txs.length} transactions`);
  return {
    relTimestamp: first.timestamp - genesisTimestamp,
    l1OriginNum: last.epochNumber,
    parentCheck: first.parentHash.slice(0, 20),
    l1OriginCheck: last.epochHash.slice(0, 20),
    blockCount: batches.length,
    originBits,
    blockTxCounts,
    txs,
  };
}

/**
 * The blocks of a span batch (span-batches.md "How Derivation works with Span Batches", op-node's
 * RawSpanBatch.derive): block i has timestamp genesis + rel_timestamp + i * blockTime; the last
 * block's L1 origin is l1_origin_num, and counting backwards each set origin bit at i > 0 steps one
 * L1 block down (bit 0 is not used); transactions become signed EIP-2718 transactions for `chainId`.
 * Throws SPAN_BATCH_INVALID if the origin bits count back below L1 block 0 (op-node's uint64 would
 * wrap to a number no batch can be valid for).
 */
export function deriveSpanBatchElements(
  batch: SpanBatch,
  genesisTimestamp: bigint,
  blockTime: bigint,
  chainId: bigint,
): SpanBatchElement[] {
  const { blockCount, originBits, blockTxCounts, txs } = batch;
  if (blockCount < 1 || originBits.length !== blockCount || blockTxCounts.length !== blockCount) {
    throw new BaseError(
      "SPAN_BATCH_INVALID",
      "Cannot derive span batch: block count, origin bits and tx counts differ",
    );
  }
  const epochs = new Array<bigint>(blockCount);
  let epoch = batch.l1OriginNum;
  for (let i = blockCount - 1; i >= 0; i--) {
    epochs[i] = epoch;
    if (originBits[i] && i > 0) epoch--;
  }
  if (epoch < 0n) {
    throw new BaseError(
      "SPAN_BATCH_INVALID",
      "Cannot derive span batch: origin bits count back below L1 block 0",
      {
        meta: { l1OriginNum: batch.l1OriginNum },
      },
    );
  }
  const elements: SpanBatchElement[] = [];
  let t = 0;
  for (let i = 0; i < blockCount; i++) {
    const transactions: Uint8Array[] = [];
    for (let j = 0; j < blockTxCounts[i]; j++) {
      if (t >= txs.length) {
        throw new BaseError(
          "SPAN_BATCH_INVALID",
          "Cannot derive span batch: fewer transactions than counted",
        );
      }
      transactions.push(spanBatchTxToSigned(txs[t++], chainId));
    }
    elements.push({
      epochNumber: epochs[i],
      timestamp: genesisTimestamp + batch.relTimestamp + blockTime * BigInt(i),
      transactions,
    });
  }
  return elements;
}

/**
 * The singular batches of a span batch (op-node's GetSingularBatches): the blocks of
 * deriveSpanBatchElements after `safeHeadTimestamp` (all of them when omitted), each with the epoch
 * hash of its L1 origin taken from `l1Origins` (L1 blocks in ascending order, searched forward as
 * op-node does). The parent hash is 32 zero bytes: the span carries only the first block's 20-byte
 * parent check, and the batch queue sets the parent from the safe chain.
 * Throws SPAN_BATCH_L1_ORIGIN_MISSING when a block's L1 origin is not in `l1Origins`.
 */
export function spanBatchToSingular(
  batch: SpanBatch,
  genesisTimestamp: bigint,
  blockTime: bigint,
  chainId: bigint,
  l1Origins: readonly SpanBatchL1Origin[],
  safeHeadTimestamp?: bigint,
): SingularBatch[] {
  const out: SingularBatch[] = [];
  let originIndex = 0;
  for (const element of deriveSpanBatchElements(batch, genesisTimestamp, blockTime, chainId)) {
    if (safeHeadTimestamp !== undefined && element.timestamp <= safeHeadTimestamp) continue;
    let found = -1;
    for (let i = originIndex; i < l1Origins.length; i++) {
      if (l1Origins[i].number === element.epochNumber) {
        found = i;
        break;
      }
    }
    if (found < 0) {
      throw new BaseError(
        "SPAN_BATCH_L1_ORIGIN_MISSING",
        `Cannot derive span batch: no L1 origin for epoch ${element.epochNumber}`,
        { meta: { epochNumber: element.epochNumber } },
      );
    }
    originIndex = found;
    out.push({
      parentHash: new Uint8Array(32),
      epochNumber: element.epochNumber,
      epochHash: l1Origins[found].hash.slice(),
      timestamp: element.timestamp,
      transactions: element.transactions,
    });
  }
  return out;
}
