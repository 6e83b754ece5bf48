/** eth_getBlockReceipts: every receipt of a block (null when unknown). */
import { defineMethod, s } from "../../../rpc/mod.ts";
import { type EthContext, resolveHeader } from "../backend.ts";
import { formatReceipt } from "../format.ts";

export function ethGetBlockReceipts(ctx: EthContext) {
  return defineMethod({
    name: "eth_getBlockReceipts",
    params: [s.blockTag()],
    handler: ([block]) => {
      const r = resolveHeader(ctx.backend, block);
      if (r === undefined) return null;
      const receipts = ctx.backend.chain.getReceipts(r.hash);
      if (receipts === undefined) return null;
      return receipts.map((receipt, i) => formatReceipt(receipt, r, i));
    },
  });
}
