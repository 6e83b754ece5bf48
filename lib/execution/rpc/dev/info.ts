/**
 * anvil_metadata / hardhat_metadata (tools ask them to recognise a development node), anvil_nodeInfo,
 * anvil_getGenesisTime,
 * and the next blocks' parameters: anvil_setNextBlockBaseFeePerGas, anvil_setCoinbase (hardhat_ names
 * too), hardhat_setPrevRandao; in anvil 1.7.1's shapes (numbers where anvil gives JSON numbers), hardhat's
 * answer true.
 */
import { bytesToHex } from "../../../common/bytes.ts";
import { defineMethod, s } from "../../../rpc/mod.ts";
import { forkRules } from "../../evm/mod.ts";
import type { DevContext } from "./backend.ts";
import { q } from "../format.ts";
import { devQuantity } from "./quantity.ts";

/** `keel/v0.1.0-<commit>/...`: the semver and the commit ("" when the build has none). */
function semver(clientVersion: string): { semver: string; commit: string } {
  const m = /^keel\/v(\d+\.\d+\.\d+)(?:-([0-9a-f]{7,40}))?/.exec(clientVersion);
  return { semver: m?.[1] ?? "0.0.0", commit: m?.[2] ?? "" };
}

function metadata(name: string, ctx: DevContext) {
  return defineMethod({
    name,
    params: [],
    handler: () => {
      const head = ctx.chain.head();
      const { semver: version, commit } = semver(ctx.info.clientVersion);
      return {
        clientVersion: ctx.info.clientVersion,
        clientSemver: version,
        clientCommitSha: commit,
        chainId: Number(ctx.chain.config.chainId),
        instanceId: bytesToHex(ctx.instanceId),
        latestBlockNumber: Number(head.header.number),
        latestBlockHash: bytesToHex(head.hash),
        forkedNetwork: ctx.info.fork === undefined ? null : {
          chainId: Number(ctx.info.fork.chainId),
          forkBlockNumber: Number(ctx.info.fork.blockNumber),
          forkBlockHash: ctx.info.fork.blockHash,
        },
        snapshots: Object.fromEntries(
          [...ctx.snapshots].map(([id, snap]) => [q(id), [snap.number, bytesToHex(snap.hash)]]),
        ),
      };
    },
  });
}

export function infoMethods(ctx: DevContext) {
  return [
    metadata("anvil_metadata", ctx),
    metadata("hardhat_metadata", ctx),
    // The genesis block's timestamp, as a JSON number (anvil).
    defineMethod({
      name: "anvil_getGenesisTime",
      params: [],
      handler: () => Number(ctx.chain.chain.getHeaderByHash(ctx.chain.genesisHash)!.timestamp),
    }),
    defineMethod({
      name: "anvil_nodeInfo",
      params: [],
      handler: () => {
        const head = ctx.chain.head();
        const next = ctx.chain.pendingRules();
        const rules = forkRules(ctx.chain.config, next.timestamp);
        return {
          currentBlockNumber: q(head.header.number),
          currentBlockTimestamp: Number(head.header.timestamp),
          currentBlockHash: bytesToHex(head.hash),
          hardFork: rules.opFork ?? rules.common.hardfork(),
          transactionOrder: "fees",
          environment: {
            baseFee: q(next.nextBaseFee),
            chainId: Number(ctx.chain.config.chainId),
            gasLimit: q(next.gasLimit),
            gasPrice: q(ctx.info.gasPrice()),
          },
          forkConfig: ctx.info.fork === undefined
            ? { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null }
            : {
              forkUrl: ctx.info.fork.url,
              forkBlockNumber: Number(ctx.info.fork.blockNumber),
              forkRetryBackoff: ctx.info.fork.retryBackoffMs,
            },
        };
      },
    }),
    ...["anvil", "hardhat"].map((ns) =>
      defineMethod({
        name: `${ns}_setCoinbase`,
        params: [s.address()],
        handler: ([address]) => {
          ctx.miner.setCoinbase(address);
          return ns === "hardhat" ? true : null;
        },
      })
    ),
    defineMethod({
      name: "hardhat_setPrevRandao",
      params: [s.hash()],
      handler: ([value]) => {
        ctx.miner.setNextPrevRandao(value);
        return true;
      },
    }),
    ...["anvil", "hardhat"].map((ns) =>
      defineMethod({
        // Whether the node logs each sealed block (anvil: its transactions and blocks on the console).
        name: `${ns}_setLoggingEnabled`,
        params: [s.bool()],
        handler: ([on]) => {
          ctx.miner.setLogging(on);
          return ns === "hardhat" ? true : null;
        },
      })
    ),
    ...["anvil", "hardhat"].map((ns) =>
      defineMethod({
        name: `${ns}_setNextBlockBaseFeePerGas`,
        params: [devQuantity()],
        handler: ([fee]) => {
          ctx.miner.setNextBaseFee(fee);
          return ns === "hardhat" ? true : null;
        },
      })
    ),
  ];
}
