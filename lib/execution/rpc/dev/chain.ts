/**
 * anvil_reset / hardhat_reset (with forking: a new fork; else back to the genesis block and state, or
 * out of fork mode), anvil_setRpcUrl, anvil_dropTransaction / hardhat_dropTransaction,
 * anvil_dropAllTransactions, anvil_removePoolTransactions (every one of a sender), the impersonation switches
 * (anvil_impersonateAccount, anvil_stopImpersonatingAccount, anvil_autoImpersonateAccount; hardhat's
 * two answer true), evm_setBlockGasLimit / anvil_setBlockGasLimit, anvil_rollback and
 * anvil_setMinGasPrice, answering as anvil 1.7.1 does (null, the dropped hash or null, null, true, null,
 * an error).
 */
import { BaseError } from "../../../common/errors.ts";
import { bytesToHex } from "../../../common/bytes.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import type { DevContext, ForkTarget } from "./backend.ts";
import { devQuantity } from "./quantity.ts";

/**
 * The `forking` option of anvil_reset / hardhat_reset ({jsonRpcUrl, blockNumber}; both optional, as
 * anvil's): undefined when absent or null.
 */
function forkTargetOf(options: unknown): ForkTarget | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== "object" || Array.isArray(options)) {
    throw RpcError.invalidParams(
      `Cannot reset: the options must be an object, got ${JSON.stringify(options)}`,
    );
  }
  const forking = (options as Record<string, unknown>).forking;
  if (forking === undefined || forking === null) return undefined;
  if (typeof forking !== "object" || Array.isArray(forking)) {
    throw RpcError.invalidParams(`Cannot reset: forking must be an object, got ${JSON.stringify(forking)}`);
  }
  const { jsonRpcUrl, blockNumber } = forking as { jsonRpcUrl?: unknown; blockNumber?: unknown };
  const target: ForkTarget = {};
  if (jsonRpcUrl !== undefined && jsonRpcUrl !== null) {
    if (typeof jsonRpcUrl !== "string") {
      throw RpcError.invalidParams(`Cannot reset to a fork: jsonRpcUrl must be a string`);
    }
    target.url = jsonRpcUrl;
  }
  if (blockNumber !== undefined && blockNumber !== null) {
    let n: bigint;
    try {
      n = BigInt(blockNumber as string | number);
    } catch {
      throw RpcError.invalidParams(
        `Cannot reset to a fork: invalid blockNumber ${JSON.stringify(blockNumber)}`,
      );
    }
    if (n < 0n) throw RpcError.invalidParams(`Cannot reset to a fork: invalid blockNumber ${n}`);
    target.blockNumber = n;
  }
  return target;
}

/**
 * anvil_reset (answers null) and hardhat_reset (answers true), as anvil 1.7.1: with `forking`, a new
 * fork of its jsonRpcUrl (else the fork's own remote) at its blockNumber (else the remote's head),
 * also from a chain that is not a fork; without, a fork chain becomes a new dev chain (fork mode left)
 * and any other goes back to its genesis block and state (the pool emptied, snapshots and time
 * changes forgotten).
 */
function reset(ns: "anvil" | "hardhat", ctx: DevContext) {
  return defineMethod({
    name: `${ns}_reset`,
    params: [s.optional(s.unknown())],
    handler: async ([options]) => {
      const target = forkTargetOf(options);
      const answer = ns === "hardhat" ? true : null;
      if (target !== undefined || ctx.info.fork !== undefined) {
        if (ctx.info.refork === undefined) {
          throw RpcError.invalidParams(
            "Cannot reset to a fork: this dev chain is kept in --datadir, and a fork lives in memory",
          );
        }
        if (target !== undefined && target.url === undefined && ctx.info.fork === undefined) {
          throw RpcError.invalidParams("Forking not enabled and RPC URL not provided to start forking");
        }
        await ctx.info.refork(target);
        return answer;
      }
      return await ctx.miner.exclusive(async () => {
        ctx.chain.pool.clear();
        await ctx.chain.revertTo(ctx.chain.genesisHash, undefined);
        ctx.snapshots.clear();
        ctx.miner.resetTime();
        ctx.instanceId = crypto.getRandomValues(new Uint8Array(32));
        return answer;
      });
    },
  });
}

export function chainMethods(ctx: DevContext) {
  return [
    reset("anvil", ctx),
    reset("hardhat", ctx),
    // anvil: a fork's remote read through another endpoint from now on (its state and blocks stay);
    // nothing on a chain that is not a fork.
    defineMethod({
      name: "anvil_setRpcUrl",
      params: [s.string()],
      handler: ([url]) => {
        if (ctx.info.fork === undefined || ctx.info.setForkUrl === undefined) return null;
        let parsed: URL;
        try {
          parsed = new URL(url);
        } catch {
          throw RpcError.invalidParams(`Cannot use ${JSON.stringify(url)} as the fork's remote: not a URL`);
        }
        if (!["http:", "https:", "ws:", "wss:"].includes(parsed.protocol)) {
          throw RpcError.invalidParams(
            `Cannot use a ${parsed.protocol} URL as the fork's remote: http(s) or ws(s) only`,
          );
        }
        ctx.info.setForkUrl(url);
        return null;
      },
    }),
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
    setBlockGasLimit("evm_setBlockGasLimit", ctx),
    setBlockGasLimit("anvil_setBlockGasLimit", ctx),
    rollback(ctx),
    setMinGasPrice("anvil_setMinGasPrice"),
    setMinGasPrice("hardhat_setMinGasPrice"),
  ];
}

function setBlockGasLimit(name: string, ctx: DevContext) {
  return defineMethod({
    name,
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
  });
}

/**
 * anvil_rollback [depth = 1]: the head goes back `depth` blocks; the blocks after the new head leave the
 * chain (their transactions do not return to the pool) and so do the snapshots taken on them. Answers
 * null, as anvil 1.7.1.
 */
function rollback(ctx: DevContext) {
  return defineMethod({
    name: "anvil_rollback",
    params: [s.optional(s.nullable(s.hexOrDecimal()))],
    handler: ([depth]) =>
      ctx.miner.exclusive(async () => {
        const head = ctx.chain.head().header.number;
        const back = depth ?? 1n;
        if (back > head) {
          throw RpcError.invalidParams(`Cannot roll back ${back} blocks: the head is block ${head}`);
        }
        const number = head - back;
        const hash = ctx.chain.chain.getCanonicalHash(number)!;
        await ctx.chain.revertTo(hash, ctx.chain.irregular.get(hash));
        for (const [id, snap] of ctx.snapshots) if (snap.number > Number(number)) ctx.snapshots.delete(id);
        return null;
      }),
  });
}

/**
 * anvil_setMinGasPrice / hardhat_setMinGasPrice: a minimum gas price is a pre-London rule; every keel
 * chain has EIP-1559 from its genesis, so the answer is anvil's on such a chain (-32602).
 */
function setMinGasPrice(name: string) {
  return defineMethod({
    name,
    params: [s.hexOrDecimal()],
    handler: () => {
      throw RpcError.invalidParams(`${name} is not supported when EIP-1559 is active`);
    },
  });
}
