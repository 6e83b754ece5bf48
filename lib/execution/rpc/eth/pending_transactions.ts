/**
 * eth_pendingTransactions: the pool's executable transactions, with null block fields. geth lists those
 * sent from the accounts the node manages: a node with keys (`--dev`) lists them all, as anvil; one
 * without lists none.
 */
import { defineMethod } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { formatTransaction } from "../format.ts";

export function ethPendingTransactions(ctx: EthContext) {
  return defineMethod({
    name: "eth_pendingTransactions",
    params: [],
    handler: () => {
      if (ctx.backend.devAccounts === undefined) return [];
      const out: Record<string, unknown>[] = [];
      for (const bySender of ctx.backend.pool.content().pending.values()) {
        for (const tx of bySender.values()) out.push(formatTransaction(tx, undefined, tx.hash()));
      }
      return out;
    },
  });
}
