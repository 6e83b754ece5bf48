/** eth_estimateGas: the smallest gas limit that succeeds (L2 execution gas only). */
import { defineMethod } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { callParams } from "../call_args.ts";
import { callAt, estimateGas } from "../call.ts";
import { q } from "../format.ts";

export function ethEstimateGas(ctx: EthContext) {
  return defineMethod({
    name: "eth_estimateGas",
    params: callParams,
    handler: async ([args, block, state, blockOverrides]) => {
      const opts = ctx.backend.options;
      // A budget of four evm timeouts for the whole search (geth sets none for estimateGas).
      return q(
        await callAt(
          ctx,
          block,
          state,
          blockOverrides,
          opts.evmTimeoutMs * 4,
          (env) => estimateGas(env, args, opts.gasCap),
        ),
      );
    },
  });
}
