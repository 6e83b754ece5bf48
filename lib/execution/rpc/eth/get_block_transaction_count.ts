/** eth_getBlockTransactionCountByNumber / ByHash (null when unknown). */
import { defineMethod, s } from "../../../rpc/mod.ts";
import { type EthContext, resolveHeader } from "../backend.ts";
import { q } from "../format.ts";

function count(ctx: EthContext, hash: Uint8Array | undefined): string | null {
  if (hash === undefined) return null;
  const block = ctx.backend.chain.getBlockByHash(hash);
  return block === undefined ? null : q(block.transactions.length);
}

export function ethGetBlockTransactionCountByNumber(ctx: EthContext) {
  return defineMethod({
    name: "eth_getBlockTransactionCountByNumber",
    params: [s.blockTag()],
    handler: ([block]) => count(ctx, resolveHeader(ctx.backend, block)?.hash),
  });
}

export function ethGetBlockTransactionCountByHash(ctx: EthContext) {
  return defineMethod({
    name: "eth_getBlockTransactionCountByHash",
    params: [s.hash()],
    handler: ([hash]) => count(ctx, hash),
  });
}
