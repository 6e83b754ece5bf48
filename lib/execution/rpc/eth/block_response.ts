/** The block object of eth_getBlockBy*: formatted from the store, null when absent. */
import type { EthContext } from "../backend.ts";
import { formatBlock } from "../format.ts";

export function blockResponse(
  ctx: EthContext,
  hash: Uint8Array,
  full: boolean,
): Record<string, unknown> | null {
  const chain = ctx.backend.chain;
  const block = chain.getBlockByHash(hash);
  if (block === undefined) return null;
  return formatBlock(block, hash, full, {
    totalDifficulty: chain.getTotalDifficulty(hash),
    receipts: chain.getReceipts(hash),
    chainId: ctx.backend.config.chainId,
  });
}
