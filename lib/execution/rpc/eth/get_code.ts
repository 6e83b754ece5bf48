/** eth_getCode: an account's code at a block. */
import { Address } from "@ethereumjs/util";
import { bytesToHex } from "../../../common/mod.ts";
import { defineMethod, s } from "../../../rpc/mod.ts";
import { type EthContext, requireHeader } from "../backend.ts";

export function ethGetCode(ctx: EthContext) {
  return defineMethod({
    name: "eth_getCode",
    params: [s.address(), s.optional(s.blockTag())],
    handler: async ([address, block]) => {
      const sm = await ctx.states.read(requireHeader(ctx.backend, block).header);
      return bytesToHex(await sm.getCode(new Address(address)));
    },
  });
}
