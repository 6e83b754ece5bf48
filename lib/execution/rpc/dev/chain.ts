/**
 * anvil_reset / hardhat_reset (without forking: back to the genesis block and state, the pool emptied,
 * snapshots and time changes forgotten), anvil_dropTransaction / hardhat_dropTransaction,
 * anvil_dropAllTransactions, anvil_removePoolTransactions (every one of a sender), the impersonation switches
 * (anvil_impersonateAccount, anvil_stopImpersonatingAccount, anvil_autoImpersonateAccount; hardhat's
 * two answer true) and evm_setBlockGasLimit, answering as anvil 1.7.1 does (null, the dropped hash or
 * null, null, true).
 */
import { BaseError } from "../../../common/errors.ts";
import { bytesToHex } from "../../../common/bytes.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import type { DevContext } from "./backend.ts";
import { devQuantity } from "./quantity.ts";

/** anvil_reset (answers null) and hardhat_reset (answers true). */
function reset(ns: "anvil" | "hardhat", ctx: DevContext) {
  return defineMethod({
    name: `${ns}_reset`,
    params: [s.optional(s.unknown())],
    handler: ([options]) => {
      const forking = options !== undefined && typeof options === "object" &&
        (options as Record<string, unknown>).forking !== undefined &&
        (options as Record<string, unknown>).forking !== null;
      if (forking) throw RpcError.invalidParams("Cannot reset to a fork: keel does not fork other chains");
      return ctx.miner.exclusive(async () => {
        ctx.chain.pool.clear();
        await ctx.chain.revertTo(ctx.chain.genesisHash, undefined);
        ctx.snapshots.clear();
        ctx.miner.resetTime();
        ctx.instanceId = crypto.getRandomValues(new Uint8Array(32));
        return ns === "hardhat" ? true : null;
      });
    },
  });
}

export function chainMethods(ctx: DevContext) {
  return [
    reset("anvil", ctx),
    reset("hardhat", ctx),
    defineMethod({
      name: "anvil_dropTransaction",
      params: [s.hash()],
      handler: ([hash]) => (ctx.chain.pool.remove(hash) ? bytesToHex(hash) : null),
    }),
    // hardhat's: whether the transaction was in the pool.
    defineMethod({
      name: "hardhat_dropTransaction",
      params: [s.hash()],
      handler: ([hash]) => ctx.chain.pool.remove(hash),
    }),
    defineMethod({
      name: "anvil_removePoolTransactions",
      params: [s.address()],
      handler: ([address]) => {
        ctx.chain.pool.removeSender(address);
        return null;
      },
    }),
    defineMethod({
      name: "anvil_dropAllTransactions",
      params: [],
      handler: () => {
        ctx.chain.pool.clear();
        return null;
      },
    }),
    ...["anvil", "hardhat"].flatMap((ns) => [
      defineMethod({
        name: `${ns}_impersonateAccount`,
        params: [s.address()],
        handler: ([address]) => {
          ctx.chain.impersonation.impersonate(address);
          return ns === "hardhat" ? true : null;
        },
      }),
      defineMethod({
        name: `${ns}_stopImpersonatingAccount`,
        params: [s.address()],
        handler: ([address]) => {
          ctx.chain.impersonation.stop(address);
          return ns === "hardhat" ? true : null;
        },
      }),
    ]),
    defineMethod({
      name: "anvil_autoImpersonateAccount",
      params: [s.bool()],
      handler: ([on]) => {
        ctx.chain.impersonation.setAuto(on);
        return null;
      },
    }),
    defineMethod({
      name: "evm_setBlockGasLimit",
      params: [devQuantity(64)],
      handler: ([gas]) => {
        try {
          ctx.miner.setGasLimit(gas);
        } catch (e) {
          if (e instanceof BaseError) throw RpcError.invalidParams(e.message);
          throw e;
        }
        return true;
      },
    }),
  ];
}
