/** eth_getBlockByHash: a block by hash (null when unknown). */
import { defineMethod, s } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { blockResponse } from "./block_response.ts";

export function ethGetBlockByHash(ctx: EthContext) {
  return defineMethod({
    name: "eth_getBlockByHash",
    params: [s.hash(), s.optional(s.bool())],
    handler: ([hash, full]) => blockResponse(ctx, hash, full ?? false),
  });
}
