/** The transaction object at a block position (null when out of range). */
import type { EthContext } from "../backend.ts";
import { decodeTx, formatTransaction, txHash } from "../format.ts";

export function transactionAt(
  ctx: EthContext,
  blockHash: Uint8Array,
  index: number,
): Record<string, unknown> | null {
  const chain = ctx.backend.chain;
  const block = chain.getBlockByHash(blockHash);
  if (block === undefined || index < 0 || index >= block.transactions.length) return null;
  const raw = block.transactions[index];
  const receipt = chain.getReceipts(blockHash)?.[index];
  const tx = decodeTx(raw, ctx.backend.config.chainId);
  return formatTransaction(tx, {
    blockHash,
    blockNumber: block.header.number,
    index,
    baseFee: block.header.baseFeePerGas,
    receipt,
  }, receipt?.txHash ?? txHash(raw));
}
