/**
 * eth_getTransactionBySenderAndNonce(sender, nonce), as reth serves it: the transaction the account sent
 * with that nonce, mined (with its block fields; found by bisecting the account's nonce history,
 * account_history.ts) or in the pool (block fields null), else null.
 */
import { bytesToHex } from "../../../common/mod.ts";
import { defineMethod, s } from "../../../rpc/mod.ts";
import { minedBySenderAndNonce } from "../account_history.ts";
import type { EthContext } from "../backend.ts";
import { formatTransaction } from "../format.ts";
import { transactionAt } from "./transaction_at.ts";

export function ethGetTransactionBySenderAndNonce(ctx: EthContext) {
  return defineMethod({
    name: "eth_getTransactionBySenderAndNonce",
    params: [s.address(), s.hexOrDecimal()],
    handler: async ([sender, nonce]) => {
      const mined = await minedBySenderAndNonce(ctx.backend, sender, nonce);
      if (mined !== undefined) return transactionAt(ctx, mined.blockHash, mined.index);
      const content = ctx.backend.pool.content();
      const key = bytesToHex(sender);
      const tx = content.pending.get(key)?.get(nonce) ?? content.queued.get(key)?.get(nonce);
      return tx === undefined ? null : formatTransaction(tx, undefined, tx.hash());
    },
  });
}
