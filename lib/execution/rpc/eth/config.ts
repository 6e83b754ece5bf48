/**
 * eth_config (EIP-7910): the configuration of the fork the chain is in (`current`), of the next one
 * scheduled (`next`, else null) and of the last one scheduled (`last`, null when `next` is), as geth
 * 1.16 answers it (internal/ethapi BlockChainAPI.Config): forks are the timestamp forks Shanghai,
 * Cancun, Prague and Osaka (an OP chain's Canyon, Ecotone and Isthmus run on them, op-geth
 * CheckOptimismValidity), `current` is null before Shanghai; each entry holds
 * - activationTime: the fork's time, 0 when it is active at genesis;
 * - blobSchedule: the blob target, max and base-fee update fraction the engine uses from that fork
 *   (null before Cancun, and on an OP chain: L2 blocks carry no blobs);
 * - chainId; forkId: EIP-2124's FORK_HASH with every block fork and every fork up to that time passed
 *   (protocol/fork_id.ts, which counts the OP forks as op-geth does);
 * - precompiles: name -> address of those active at that time, with geth's names (P256VERIFY from
 *   Fjord on an OP chain, from Osaka on L1);
 * - systemContracts: EIP-4788's beacon roots from Cancun; from Prague EIP-2935's history storage and,
 *   on L1 only, the EIP-7002 / EIP-7251 queues and the deposit contract (the config's
 *   depositContractAddress, else the zero address as geth). OP chains run only the first two (Isthmus
 *   adds EIP-2935 but no execution-layer requests, specs/protocol/isthmus/exec-engine.md), where
 *   op-geth's unchanged geth code would also list the L1-only three.
 */
import { Hardfork } from "@ethereumjs/common";
import { getActivePrecompiles } from "@ethereumjs/evm";
import { bytesToHex, type Hex } from "../../../common/bytes.ts";
import { defineMethod, RpcError } from "../../../rpc/mod.ts";
import type { ChainConfig } from "../../../protocol/chain_config.ts";
import { forkId } from "../../../protocol/fork_id.ts";
import { BEACON_ROOTS_ADDRESS, HISTORY_STORAGE_ADDRESS } from "../../../protocol/predeploys.ts";
import {
  CONSOLIDATION_REQUEST_ADDRESS,
  forkRules,
  opPrecompiles,
  WITHDRAWAL_REQUEST_ADDRESS,
} from "../../evm/mod.ts";
import type { EthContext } from "../backend.ts";
import { q } from "../format.ts";

/** geth's precompile names (core/vm/contracts.go `Name()`), by address. */
const PRECOMPILE_NAMES: Record<number, string> = {
  0x01: "ECREC",
  0x02: "SHA256",
  0x03: "RIPEMD160",
  0x04: "ID",
  0x05: "MODEXP",
  0x06: "BN254_ADD",
  0x07: "BN254_MUL",
  0x08: "BN254_PAIRING",
  0x09: "BLAKE2F",
  0x0a: "KZG_POINT_EVALUATION",
  0x0b: "BLS12_G1ADD",
  0x0c: "BLS12_G1MSM",
  0x0d: "BLS12_G2ADD",
  0x0e: "BLS12_G2MSM",
  0x0f: "BLS12_PAIRING_CHECK",
  0x10: "BLS12_MAP_FP_TO_G1",
  0x11: "BLS12_MAP_FP2_TO_G2",
  0x100: "P256VERIFY",
};

/** The timestamp forks eth_config reports, in order (geth `LatestFork`); Paris has no time. */
const TIME_FORKS = ["shanghai", "cancun", "prague", "osaka"] as const;
type TimeFork = typeof TIME_FORKS[number];

const BLOB_GAS_PER_BLOB = 131_072n;
const MAX_U64 = (1n << 64n) - 1n;
const ZERO_ADDRESS = new Uint8Array(20);

/** Index in TIME_FORKS of the latest fork active at `time` (-1: Paris). */
function latestFork(config: ChainConfig, time: bigint): number {
  let latest = -1;
  TIME_FORKS.forEach((fork, i) => {
    const at = config.l1[`${fork}Time`];
    if (at !== undefined && time >= at) latest = i;
  });
  return latest;
}

function forkTime(config: ChainConfig, index: number): bigint | undefined {
  const fork: TimeFork | undefined = TIME_FORKS[index];
  return fork === undefined ? undefined : config.l1[`${fork}Time`];
}

export interface ForkConfigJson {
  activationTime: number;
  blobSchedule: { baseFeeUpdateFraction: number; max: number; target: number } | null;
  chainId: Hex;
  forkId: Hex;
  precompiles: Record<string, Hex>;
  systemContracts: Record<string, Hex>;
}

function precompilesAt(config: ChainConfig, time: bigint): Record<string, Hex> {
  const rules = forkRules(config, time);
  const addresses = [...getActivePrecompiles(rules.common).keys()].map((a) => parseInt(a, 16));
  for (const p of opPrecompiles(rules.opFork, rules.common)) {
    addresses.push(parseInt(p.address.toString(), 16));
  }
  const out: Record<string, Hex> = {};
  for (const a of [...new Set(addresses)].sort((x, y) => x - y)) {
    out[PRECOMPILE_NAMES[a] ?? `0x${a.toString(16)}`] = `0x${a.toString(16).padStart(40, "0")}`;
  }
  return out;
}

function systemContractsAt(config: ChainConfig, fork: number): Record<string, Hex> {
  const out: Record<string, Hex> = {};
  if (fork >= TIME_FORKS.indexOf("cancun")) out.BEACON_ROOTS_ADDRESS = bytesToHex(BEACON_ROOTS_ADDRESS);
  if (fork >= TIME_FORKS.indexOf("prague")) {
    out.HISTORY_STORAGE_ADDRESS = bytesToHex(HISTORY_STORAGE_ADDRESS);
    if (config.op === undefined) {
      const deposit = (config as { extras?: { depositContractAddress?: Uint8Array } }).extras
        ?.depositContractAddress;
      out.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS = bytesToHex(CONSOLIDATION_REQUEST_ADDRESS);
      out.DEPOSIT_CONTRACT_ADDRESS = bytesToHex(deposit ?? ZERO_ADDRESS);
      out.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS = bytesToHex(WITHDRAWAL_REQUEST_ADDRESS);
    }
  }
  return out;
}

function blobScheduleAt(config: ChainConfig, time: bigint): ForkConfigJson["blobSchedule"] {
  if (config.op !== undefined) return null;
  const common = forkRules(config, time).common;
  if (!common.gteHardfork(Hardfork.Cancun)) return null;
  const s = common.getBlobGasSchedule();
  return {
    baseFeeUpdateFraction: Number(s.blobGasPriceUpdateFraction),
    max: Number(s.maxBlobGasPerBlock / BLOB_GAS_PER_BLOB),
    target: Number(s.targetBlobGasPerBlock / BLOB_GAS_PER_BLOB),
  };
}

/** One entry of the answer: the configuration from the fork at `time` on (geth `assemble`). */
export function forkConfigAt(
  config: ChainConfig,
  genesis: { hash: Uint8Array; timestamp: bigint },
  time: bigint | undefined,
): ForkConfigJson | null {
  if (time === undefined) return null;
  const id = forkId(config, genesis.hash, genesis.timestamp, MAX_U64, time);
  return {
    activationTime: Number(genesis.timestamp >= time ? 0n : time),
    blobSchedule: blobScheduleAt(config, time),
    chainId: q(config.chainId),
    forkId: bytesToHex(id.hash),
    precompiles: precompilesAt(config, time),
    systemContracts: systemContractsAt(config, latestFork(config, time)),
  };
}

/** The whole answer at a head of time `now`. */
export function ethConfigAt(
  config: ChainConfig,
  genesis: { hash: Uint8Array; timestamp: bigint },
  now: bigint,
): { current: ForkConfigJson | null; next: ForkConfigJson | null; last: ForkConfigJson | null } {
  const latest = latestFork(config, now);
  const current = forkConfigAt(config, genesis, forkTime(config, latest));
  const next = forkConfigAt(config, genesis, forkTime(config, latest + 1));
  const last = next === null
    ? null
    : forkConfigAt(config, genesis, forkTime(config, latestFork(config, MAX_U64)));
  return { current, next, last };
}

export function ethConfig(ctx: EthContext) {
  return defineMethod({
    name: "eth_config",
    params: [],
    handler: () => {
      const chain = ctx.backend.chain;
      const genesis = chain.getHeaderByNumber(0n);
      const hash = chain.getCanonicalHash(0n);
      const head = chain.getHeadHeader("latest");
      if (genesis === undefined || hash === undefined || head === undefined) {
        throw RpcError.server("unable to load genesis: header not found");
      }
      return ethConfigAt(ctx.backend.config, { hash, timestamp: genesis.timestamp }, head.timestamp);
    },
  });
}
