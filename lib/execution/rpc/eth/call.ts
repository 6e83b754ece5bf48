/** eth_call: executes a message call at a block without a transaction. */
import { defineMethod } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { callError, callGas, callParams, returnHex } from "../call_args.ts";
import { callAt } from "../call_envs.ts";

export function ethCall(ctx: EthContext) {
  return defineMethod({
    name: "eth_call",
    params: callParams,
    handler: async ([args, block, state, blockOverrides]) => {
      const opts = ctx.backend.options;
      const result = await callAt(
        ctx,
        block,
        state,
        blockOverrides,
        opts.evmTimeoutMs,
        (env) => env.execute(args, callGas(args, opts.gasCap)),
      );
      if (result.error !== undefined) throw callError(result);
      return returnHex(result);
    },
  });
}
