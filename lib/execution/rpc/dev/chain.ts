/**
 * anvil_reset / hardhat_reset (without forking: back to the genesis block and state, the pool emptied,
 * snapshots and time changes forgotten), anvil_dropTransaction / hardhat_dropTransaction,
 * anvil_dropAllTransactions, anvil_removePoolTransactions (every one of a sender), the impersonation switches
 * (anvil_impersonateAccount, anvil_stopImpersonatingAccount, anvil_autoImpersonateAccount; hardhat's
 * two answer true), evm_setBlockGasLimit / anvil_setBlockGasLimit, anvil_rollback and
 * anvil_setMinGasPrice, answering as anvil 1.7.1 does (null, the dropped hash or null, null, true, null,
 * an error).
 */
import { BaseError } from "../../../common/errors.ts";
import { bytesToHex } from "../../../common/bytes.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import type { DevContext } from "./backend.ts";
import { devQuantity } from "./quantity.ts";

/**
 * The `forking` option of anvil_reset / hardhat_reset ({jsonRpcUrl, blockNumber}): a fork chain (fork
 * mode) goes back to its own fork block, which the option may name again; another remote or block
 * would need a new chain (start keel with that --dev.fork-url and --dev.fork-block-number).
 */
function checkForking(options: unknown, ctx: DevContext): void {
  const forking = options !== undefined && options !== null && typeof options === "object"
    ? (options as Record<string, unknown>).forking
    : undefined;
  if (forking === undefined || forking === null) return;
  const fork = ctx.info.fork;
  if (fork === undefined) {
    throw RpcError.invalidParams(
      "Cannot reset to a fork: this chain is not a fork (start keel with --dev.fork-url)",
    );
  }
  const f = forking as { jsonRpcUrl?: unknown; blockNumber?: unknown };
  const url = f.jsonRpcUrl;
  const block = f.blockNumber;
  const sameUrl = url === undefined || url === null || url === fork.url;
  let sameBlock = block === undefined || block === null;
  if (!sameBlock) {
    try {
      sameBlock = BigInt(block as string | number) === fork.blockNumber;
    } catch {
      throw RpcError.invalidParams(`Cannot reset to a fork: invalid blockNumber ${JSON.stringify(block)}`);
    }
  }
  if (!sameUrl || !sameBlock) {
    throw RpcError.invalidParams(
      `Cannot reset to another fork: this chain resets to its fork block ${fork.blockNumber} of its remote; ` +
        "start keel with --dev.fork-url and --dev.fork-block-number for another",
    );
  }
}

/**
 * anvil_reset (answers null) and hardhat_reset (answers true). A fork chain goes back to its fork block
 * (its genesis), with or without `forking` naming it (anvil without `forking` would leave fork mode).
 */
function reset(ns: "anvil" | "hardhat", ctx: DevContext) {
  return defineMethod({
    name: `${ns}_reset`,
    params: [s.optional(s.unknown())],
    handler: ([options]) => {
      checkForking(options, ctx);
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
