/** eth_estimateGas: the smallest gas limit that succeeds (L2 execution gas only). */
import { defineMethod } from "../../../rpc/mod.ts";
import { type EthContext, requireHeader } from "../backend.ts";
import { callParams } from "../call_args.ts";
import { estimateGas, withCallEnv, withDeadline } from "../call.ts";
import { q } from "../format.ts";

export function ethEstimateGas(ctx: EthContext) {
  return defineMethod({
    name: "eth_estimateGas",
    params: callParams,
    handler: async ([args, block, state, blockOverrides]) => {
      const { header } = requireHeader(ctx.backend, block);
      const opts = ctx.backend.options;
      const run = withCallEnv(
        ctx,
        header,
        state,
        blockOverrides,
        (env) => withDeadline(env, opts.evmTimeoutMs * 4, () => estimateGas(env, args, opts.gasCap)),
      );
      return q(await run);
    },
  });
}
