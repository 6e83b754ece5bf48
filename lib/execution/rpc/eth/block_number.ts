/** eth_blockNumber: the latest block number (from the chain store's memory). */
import { defineMethod } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";

export function ethBlockNumber(ctx: EthContext) {
  const chain = ctx.backend.chain;
  return defineMethod({
    name: "eth_blockNumber",
    params: [],
    handler: () => `0x${chain.headNumber().toString(16)}`,
  });
}
