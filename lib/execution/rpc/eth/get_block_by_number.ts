/** eth_getBlockByNumber: a block by tag or number (null when unknown). */
import { defineMethod, s } from "../../../rpc/mod.ts";
import { type EthContext, resolveHeader } from "../backend.ts";
import { blockResponse } from "./block_response.ts";

export function ethGetBlockByNumber(ctx: EthContext) {
  return defineMethod({
    name: "eth_getBlockByNumber",
    params: [s.blockTag(), s.optional(s.bool())],
    handler: ([block, full]) => {
      const r = resolveHeader(ctx.backend, block);
      return r === undefined ? null : blockResponse(ctx, r.hash, full ?? false);
    },
  });
}
