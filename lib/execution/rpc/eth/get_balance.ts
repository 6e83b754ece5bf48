/** eth_getBalance: an account's balance at a block (EIP-1898). */
import { Address } from "@ethereumjs/util";
import { defineMethod, s } from "../../../rpc/mod.ts";
import { type EthContext, requireHeader } from "../backend.ts";
import { q } from "../format.ts";

export function ethGetBalance(ctx: EthContext) {
  return defineMethod({
    name: "eth_getBalance",
    params: [s.address(), s.optional(s.blockTag())],
    handler: async ([address, block]) => {
      const sm = await ctx.states.read(requireHeader(ctx.backend, block).header);
      const account = await sm.getAccount(new Address(address));
      return q(account?.balance ?? 0n);
    },
  });
}
