/**
 * The dev methods of `keel execution --dev`, as anvil and hardhat serve them (viem's test actions,
 * Foundry and Hardhat test suites use them): snapshots, mining and time control, state changes, state
 * dumps, the pool and a reset to genesis.
 * Namespaces evm, anvil and hardhat; served only in dev mode.
 */
import { blobMethods } from "./blobs.ts";
import type { Namespace } from "../../../rpc/mod.ts";
import { type DevChain, devContext, type DevInfo, type DevMining } from "./backend.ts";
import { infoMethods } from "./info.ts";
import { chainMethods } from "./chain.ts";
import { miningMethods } from "./mining.ts";
import { evmRevert, evmSnapshot } from "./snapshot.ts";
import { stateMethods } from "./state.ts";
import { dumpMethods } from "./dump.ts";
import { anvilReorg } from "./reorg.ts";

export type {
  DevChain,
  DevContext,
  DevFork,
  DevInfo,
  DevMining,
  DevSnapshot,
  ForkTarget,
} from "./backend.ts";
export { type DumpedState, dumpState, loadState } from "./dump.ts";
export { type BeaconSource, devBeaconRoutes } from "./beacon.ts";

/** The dev namespaces evm, anvil and hardhat as one record. */
export function devNamespace(chain: DevChain, miner: DevMining, info: DevInfo): Namespace {
  const ctx = devContext(chain, miner, info);
  const defs = [
    evmSnapshot(ctx),
    evmRevert(ctx),
    evmSnapshot(ctx, "anvil_snapshot"),
    evmRevert(ctx, "anvil_revert"),
    ...miningMethods(ctx),
    ...stateMethods(ctx),
    ...dumpMethods(ctx),
    ...chainMethods(ctx),
    anvilReorg(ctx),
    ...blobMethods(ctx),
    ...infoMethods(ctx),
  ];
  return Object.fromEntries(defs.map((d) => [d.name, d]));
}

/**
 * The namespaces added to the HTTP and WebSocket API lists in dev mode: the dev methods', personal
 * (personal_sign with the dev accounts, served by the eth namespace record), and debug, trace and
 * txpool, which anvil serves without being asked (cast run, viem's txpool actions), and ots (Otterscan,
 * with its erigon_getHeaderByNumber), as anvil.
 */
export const DEV_NAMESPACES = [
  "evm",
  "anvil",
  "hardhat",
  "personal",
  "debug",
  "trace",
  "txpool",
  "ots",
  "erigon",
] as const;
