/** Uncle methods: post-merge blocks have none (count 0x0, uncle null). */
import { defineMethod, s } from "../../../rpc/mod.ts";
import { type EthContext, resolveHeader } from "../backend.ts";

export function ethGetUncleCountByBlockNumber(ctx: EthContext) {
  return defineMethod({
    name: "eth_getUncleCountByBlockNumber",
    params: [s.blockTag()],
    handler: ([block]) => (resolveHeader(ctx.backend, block) === undefined ? null : "0x0"),
  });
}

export function ethGetUncleCountByBlockHash(ctx: EthContext) {
  return defineMethod({
    name: "eth_getUncleCountByBlockHash",
    params: [s.hash()],
    handler: ([hash]) => (ctx.backend.chain.getHeaderByHash(hash) === undefined ? null : "0x0"),
  });
}

export function ethGetUncleByBlockNumberAndIndex(_ctx: EthContext) {
  return defineMethod({
    name: "eth_getUncleByBlockNumberAndIndex",
    params: [s.blockTag(), s.uint64()],
    handler: () => null,
  });
}

export function ethGetUncleByBlockHashAndIndex(_ctx: EthContext) {
  return defineMethod({
    name: "eth_getUncleByBlockHashAndIndex",
    params: [s.hash(), s.uint64()],
    handler: () => null,
  });
}
