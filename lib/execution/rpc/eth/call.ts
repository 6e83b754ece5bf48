/** eth_call: executes a message call at a block without a transaction. */
import { defineMethod } from "../../../rpc/mod.ts";
import { type EthContext, requireHeader } from "../backend.ts";
import { callError, callGas, callParams, returnHex } from "../call_args.ts";
import { withCallEnv, withDeadline } from "../call.ts";

export function ethCall(ctx: EthContext) {
  return defineMethod({
    name: "eth_call",
    params: callParams,
    handler: async ([args, block, state, blockOverrides]) => {
      const { header } = requireHeader(ctx.backend, block);
      const opts = ctx.backend.options;
      const run = withCallEnv(
        ctx,
        header,
        state,
        blockOverrides,
        (env) => withDeadline(env, opts.evmTimeoutMs, () => env.execute(args, callGas(args, opts.gasCap))),
      );
      const result = await run;
      if (result.error !== undefined) throw callError(result);
      return returnHex(result);
    },
  });
}
