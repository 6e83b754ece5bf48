/** eth_getTransactionByHash: a canonical tx with its block fields, or a pool tx with null ones. */
import { bytesToHex } from "../../../common/mod.ts";
import { defineMethod, s } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { formatTransaction } from "../format.ts";
import { transactionAt } from "./transaction_at.ts";

export function ethGetTransactionByHash(ctx: EthContext) {
  return defineMethod({
    name: "eth_getTransactionByHash",
    params: [s.hash()],
    handler: ([hash]) => {
      const loc = ctx.backend.chain.getTransactionLocation(hash);
      if (loc !== undefined) return transactionAt(ctx, loc.blockHash, loc.index);
      const tx = ctx.backend.pool.get(bytesToHex(hash));
      return tx === undefined ? null : formatTransaction(tx, undefined, hash);
    },
  });
}
