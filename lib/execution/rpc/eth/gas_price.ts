/** eth_gasPrice and eth_maxPriorityFeePerGas (op-geth's oracle). */
import { defineMethod } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { q } from "../format.ts";
import { gasPrice, suggestTip } from "../gas_price.ts";

export function ethGasPrice(ctx: EthContext) {
  return defineMethod({ name: "eth_gasPrice", params: [], handler: () => q(gasPrice(ctx.backend)) });
}

export function ethMaxPriorityFeePerGas(ctx: EthContext) {
  return defineMethod({
    name: "eth_maxPriorityFeePerGas",
    params: [],
    handler: () => q(suggestTip(ctx.backend)),
  });
}
