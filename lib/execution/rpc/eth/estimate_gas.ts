/** eth_estimateGas: the smallest gas limit that succeeds (L2 execution gas only). */
import { type BlockSpec, defineMethod } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { type AccountOverride, type BlockOverrides, type CallArgs, callParams } from "../call_args.ts";
import { estimateGas } from "../call.ts";
import { callAt } from "../call_envs.ts";
import { q } from "../format.ts";

/**
 * The gas estimate of a call at `block` (latest when absent): eth_estimateGas, and the gas default of
 * eth_sendTransaction / eth_signTransaction (geth DoEstimateGas in TransactionArgs.setDefaults).
 */
export function estimateCallGas(
  ctx: EthContext,
  args: CallArgs,
  block?: BlockSpec,
  state?: AccountOverride[],
  blockOverrides?: BlockOverrides,
): Promise<bigint> {
  const opts = ctx.backend.options;
  // A budget of four evm timeouts for the whole search (geth sets none for estimateGas).
  return callAt(
    ctx,
    block,
    state,
    blockOverrides,
    opts.evmTimeoutMs * 4,
    (env) => estimateGas(env, args, opts.gasCap),
  );
}

export function ethEstimateGas(ctx: EthContext) {
  return defineMethod({
    name: "eth_estimateGas",
    params: callParams,
    handler: async ([args, block, state, blockOverrides]) =>
      q(await estimateCallGas(ctx, args, block, state, blockOverrides)),
  });
}
