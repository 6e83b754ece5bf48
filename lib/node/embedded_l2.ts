/**
 * The driver's view of the embedded execution client (`keel node` without `--l2`): canonical blocks
 * as payloads, the safe label, and the L2ToL1MessagePasser storage root for output roots.
 */
import { Address } from "@ethereumjs/util";
import { blockToPayload, type ExecutionEngine, withIsthmusRoot } from "../execution/engine/mod.ts";
import type { ExecutionPayload } from "../protocol/engine.ts";
import { EMPTY_TRIE_ROOT } from "../protocol/block.ts";
import { L2_TO_L1_MESSAGE_PASSER_ADDRESS } from "../protocol/predeploys.ts";
import type { L2Chain } from "../rollup/driver/mod.ts";
import type { BatcherSource } from "../batcher/mod.ts";
import { hashHeader } from "../protocol/block.ts";

export function embeddedL2(engine: ExecutionEngine): L2Chain {
  return {
    payloadByNumber(number: bigint): Promise<ExecutionPayload | undefined> {
      const block = engine.chain.getBlockByNumber(number);
      if (block === undefined) return Promise.resolve(undefined);
      return Promise.resolve(withIsthmusRoot(blockToPayload(block), block.header));
    },
    headNumber(): Promise<bigint> {
      return Promise.resolve(engine.chain.headNumber());
    },
    safeNumber(): Promise<bigint | undefined> {
      return Promise.resolve(engine.chain.getHead("safe")?.number);
    },
    finalizedNumber(): Promise<bigint | undefined> {
      return Promise.resolve(engine.chain.getHead("finalized")?.number);
    },
    async messagePasserStorageRoot(hash: Uint8Array): Promise<Uint8Array> {
      const header = engine.chain.getHeaderByHash(hash);
      if (header === undefined) throw new Error(`unknown L2 block ${hash}`);
      const state = await engine.stateAt(header);
      const account = await state.getAccount(new Address(L2_TO_L1_MESSAGE_PASSER_ADDRESS));
      return account?.storageRoot ?? EMPTY_TRIE_ROOT;
    },
  };
}

/** Canonical blocks with their parent beacon block roots, as the p2p host serves them (payload_by_number). */
export function embeddedPayloads(
  engine: ExecutionEngine,
): (
  number: bigint,
) => Promise<{ payload: ExecutionPayload; parentBeaconBlockRoot?: Uint8Array } | undefined> {
  return (number) => {
    const block = engine.chain.getBlockByNumber(number);
    if (block === undefined) return Promise.resolve(undefined);
    return Promise.resolve({
      payload: withIsthmusRoot(blockToPayload(block), block.header),
      parentBeaconBlockRoot: block.header.parentBeaconBlockRoot,
    });
  };
}

/**
 * The embedded engine as the batch submitter reads it; `safe` gives the safe head's number (undefined
 * while the node has none yet).
 */
export function engineBatcherSource(engine: ExecutionEngine, safe: () => bigint | undefined): BatcherSource {
  return {
    blockByNumber(number) {
      const block = engine.chain.getBlockByNumber(number);
      if (block === undefined) return Promise.resolve(undefined);
      const h = block.header;
      return Promise.resolve({
        number: h.number,
        parentHash: h.parentHash,
        timestamp: h.timestamp,
        transactions: block.transactions,
        hash: hashHeader(h),
      });
    },
    headNumber: () => Promise.resolve(engine.chain.headNumber()),
    safeNumber: () => Promise.resolve(safe()),
  };
}
