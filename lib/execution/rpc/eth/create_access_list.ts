/**
 * eth_createAccessList: the access list a call touches and the gas it uses with that list (geth
 * BlockChainAPI.CreateAccessList); the call object, block and overrides are eth_call's.
 */
import { defineMethod } from "../../../rpc/mod.ts";
import { createAccessList } from "../access_list.ts";
import type { EthContext } from "../backend.ts";
import { callParams } from "../call_args.ts";
import { callAt } from "../call_envs.ts";

export function ethCreateAccessList(ctx: EthContext) {
  return defineMethod({
    name: "eth_createAccessList",
    params: callParams,
    handler: async ([args, block, state, blockOverrides]) => {
      const opts = ctx.backend.options;
      return await callAt(
        ctx,
        block,
        state,
        blockOverrides,
        opts.evmTimeoutMs,
        (env) => createAccessList(env, args, opts.gasCap),
      );
    },
  });
}
