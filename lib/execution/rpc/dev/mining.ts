/**
 * Mining and time control as anvil's: evm_mine, anvil_mine / hardhat_mine, evm_setAutomine,
 * anvil_getAutomine, evm_setIntervalMining, anvil_getIntervalMining, evm_increaseTime, anvil_setTime,
 * evm_setNextBlockTimestamp,
 * anvil_setBlockTimestampInterval, anvil_removeBlockTimestampInterval. Shapes of the answers as
 * anvil 1.7.1 gives them ("0x0" for evm_mine, the offset as a JSON number for evm_increaseTime).
 */
import { BaseError } from "../../../common/errors.ts";
import { defineMethod, RpcError, s, SchemaError } from "../../../rpc/mod.ts";
import type { DevContext } from "./backend.ts";
import { devQuantity } from "./quantity.ts";

/** A timestamp error of the miner as anvil reports it (-32602). */
async function timed<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof BaseError && e.code === "INVALID_TIMESTAMP") throw RpcError.invalidParams(e.message);
    throw e;
  }
}

/** evm_mine's parameter: a timestamp (number or hex) or `{ timestamp, blocks }`. */
const mineParam = s.custom<{ timestamp?: bigint; blocks?: bigint }>("evm_mine options", (v) => {
  if (typeof v === "number" || typeof v === "string") return { timestamp: s.hexOrDecimal().parse(v) };
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    return {
      timestamp: o.timestamp === undefined || o.timestamp === null
        ? undefined
        : s.hexOrDecimal().parse(o.timestamp),
      blocks: o.blocks === undefined || o.blocks === null ? undefined : s.hexOrDecimal().parse(o.blocks),
    };
  }
  throw new SchemaError("want a timestamp or an object { timestamp, blocks }");
});

export function evmMine(ctx: DevContext) {
  return defineMethod({
    name: "evm_mine",
    params: [s.optional(mineParam)],
    handler: ([opts]) =>
      timed(async () => {
        await ctx.miner.mineBlocks(opts?.blocks ?? 1n, { timestamp: opts?.timestamp });
        return "0x0";
      }),
  });
}

/**
 * evm_mine_detailed (also anvil_mine_detailed): evm_mine, answering the blocks mined (full transactions, each with its output
 * and, when it failed with a decodable reason, its revertReason), oldest first, as anvil.
 */
export function evmMineDetailed(ctx: DevContext, name = "evm_mine_detailed") {
  return defineMethod({
    name,
    params: [s.optional(mineParam)],
    handler: ([opts]) =>
      timed(async () => {
        const before = ctx.chain.head().header.number;
        await ctx.miner.mineBlocks(opts?.blocks ?? 1n, { timestamp: opts?.timestamp });
        const out: Record<string, unknown>[] = [];
        for (let n = before + 1n; n <= ctx.chain.head().header.number; n++) {
          const hash = ctx.chain.chain.getCanonicalHash(n);
          if (hash !== undefined) out.push(await ctx.info.minedBlock(hash));
        }
        return out;
      }),
  });
}

/** anvil_mine and hardhat_mine: [count = 1, interval seconds between the blocks' timestamps]. */
function mine(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [s.optional(devQuantity()), s.optional(devQuantity())],
    handler: ([count, interval]) =>
      timed(async () => {
        // An interval of 0 (viem sends one always): the clock's timestamps (a block's timestamp must grow).
        await ctx.miner.mineBlocks(count ?? 1n, { interval: interval === 0n ? undefined : interval });
        return null;
      }),
  });
}

function setAutomine(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [s.bool()],
    handler: ([on]) => {
      ctx.miner.setAutomine(on);
      return null;
    },
  });
}

function getAutomine(name: string, ctx: DevContext) {
  return defineMethod({ name, params: [], handler: () => ctx.miner.automine });
}

function setIntervalMining(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [s.hexOrDecimal()],
    handler: ([seconds]) => {
      if (seconds > 1_000_000_000n) throw RpcError.invalidParams(`interval ${seconds} seconds is too long`);
      ctx.miner.setIntervalMining(Number(seconds));
      return null;
    },
  });
}

function increaseTime(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [s.hexOrDecimal()],
    handler: ([seconds]) => {
      if (seconds > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw RpcError.invalidParams(`${seconds} seconds is too much`);
      }
      return ctx.miner.increaseTime(Number(seconds));
    },
  });
}

function setNextBlockTimestamp(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [s.hexOrDecimal()],
    handler: ([timestamp]) =>
      timed(() => {
        ctx.miner.setNextTimestamp(timestamp);
        return null;
      }),
  });
}

/**
 * anvil_setTime / evm_setTime: the dev clock reads `timestamp` now; answers the seconds from the clock's
 * time before to `timestamp` (0 when going back), as a JSON number, as anvil 1.7.1.
 */
function setTime(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [s.hexOrDecimal()],
    handler: ([timestamp]) => {
      if (timestamp > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw RpcError.invalidParams(`timestamp ${timestamp} is too large`);
      }
      const before = ctx.miner.clock.now();
      ctx.miner.setTime(Number(timestamp));
      return Math.max(0, Number(timestamp) - before);
    },
  });
}

export function miningMethods(ctx: DevContext) {
  return [
    evmMine(ctx),
    evmMineDetailed(ctx),
    evmMineDetailed(ctx, "anvil_mine_detailed"),
    mine("anvil_mine", ctx),
    mine("hardhat_mine", ctx),
    defineMethod({
      // hardhat: one block as interval mining would seal it (the pool's transactions), answering true.
      name: "hardhat_intervalMine",
      params: [],
      handler: () =>
        timed(async () => {
          await ctx.miner.mineBlocks(1n);
          return true;
        }),
    }),
    setAutomine("evm_setAutomine", ctx),
    setAutomine("anvil_setAutomine", ctx),
    getAutomine("anvil_getAutomine", ctx),
    getAutomine("hardhat_getAutomine", ctx),
    setIntervalMining("evm_setIntervalMining", ctx),
    setIntervalMining("anvil_setIntervalMining", ctx),
    defineMethod({
      name: "anvil_getIntervalMining",
      params: [],
      // The interval in seconds, null when blocks are not sealed on a timer (anvil 1.7.1).
      handler: () => ctx.miner.period > 0 ? ctx.miner.period : null,
    }),
    increaseTime("evm_increaseTime", ctx),
    increaseTime("anvil_increaseTime", ctx),
    setTime("anvil_setTime", ctx),
    setTime("evm_setTime", ctx),
    setNextBlockTimestamp("evm_setNextBlockTimestamp", ctx),
    setNextBlockTimestamp("anvil_setNextBlockTimestamp", ctx),
    defineMethod({
      name: "anvil_setBlockTimestampInterval",
      params: [s.hexOrDecimal()],
      handler: ([seconds]) => {
        ctx.miner.setTimestampInterval(seconds);
        return null;
      },
    }),
    defineMethod({
      name: "anvil_removeBlockTimestampInterval",
      params: [],
      handler: () => {
        const had = ctx.miner.timestampInterval !== undefined;
        ctx.miner.setTimestampInterval(undefined);
        return had;
      },
    }),
  ];
}
