/** eth_getTransactionByBlockNumberAndIndex / ByBlockHashAndIndex. */
import { defineMethod, s } from "../../../rpc/mod.ts";
import { type EthContext, resolveHeader } from "../backend.ts";
import { transactionAt } from "./transaction_at.ts";

export function ethGetTransactionByBlockNumberAndIndex(ctx: EthContext) {
  return defineMethod({
    name: "eth_getTransactionByBlockNumberAndIndex",
    params: [s.blockTag(), s.uint64()],
    handler: ([block, index]) => {
      const r = resolveHeader(ctx.backend, block);
      return r === undefined ? null : transactionAt(ctx, r.hash, Number(index));
    },
  });
}

export function ethGetTransactionByBlockHashAndIndex(ctx: EthContext) {
  return defineMethod({
    name: "eth_getTransactionByBlockHashAndIndex",
    params: [s.hash(), s.uint64()],
    handler: ([hash, index]) => transactionAt(ctx, hash, Number(index)),
  });
}
