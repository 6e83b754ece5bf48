/**
 * A mined block as anvil's evm_mine_detailed answers it: eth_getBlockByHash's object with full
 * transactions, each with `output` (what it returned, or its revert data) and, for a failed one whose
 * revert data decodes, `revertReason`. The outputs are not stored: the block is replayed.
 */
import { bytesToHex } from "../../common/mod.ts";
import type { EthBackend } from "./backend.ts";
import { decodeRevertReason } from "./debug/mod.ts";
import { formatBlock } from "./format.ts";
import { blockFrames } from "./ots/frames.ts";

export async function minedBlockDetail(
  backend: EthBackend,
  hash: Uint8Array,
): Promise<Record<string, unknown>> {
  const chain = backend.chain;
  const block = chain.getBlockByHash(hash)!;
  const receipts = chain.getReceipts(hash) ?? [];
  const json = formatBlock(block, hash, true, {
    totalDifficulty: chain.getTotalDifficulty(hash),
    receipts,
    chainId: backend.config.chainId,
  });
  const frames = await blockFrames(backend, block);
  json.transactions = (json.transactions as Record<string, unknown>[]).map((tx, i) => {
    const output = frames[i]?.output ?? new Uint8Array();
    const reason = receipts[i]?.status === 0 ? decodeRevertReason(output) : undefined;
    return { ...tx, output: bytesToHex(output), ...(reason === undefined ? {} : { revertReason: reason }) };
  });
  return json;
}
