/** eth_getTransactionCount: an account's nonce; `pending` includes the pool's executable txs. */
import { Address } from "@ethereumjs/util";
import { defineMethod, s } from "../../../rpc/mod.ts";
import { type EthContext, requireHeader } from "../backend.ts";
import { q } from "../format.ts";

export function ethGetTransactionCount(ctx: EthContext) {
  return defineMethod({
    name: "eth_getTransactionCount",
    params: [s.address(), s.optional(s.blockTag())],
    handler: async ([address, block]) => {
      if (block?.kind === "tag" && block.tag === "pending") return q(await ctx.backend.pool.nonce(address));
      const sm = await ctx.states.read(requireHeader(ctx.backend, block).header);
      const account = await sm.getAccount(new Address(address));
      return q(account?.nonce ?? 0n);
    },
  });
}
