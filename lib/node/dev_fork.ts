/**
 * `keel execution --dev --dev.fork-url URL [--dev.fork-block-number N]` (anvil's `--fork-url`,
 * `--fork-block-number`): a dev chain that goes on from block N (default: the remote's head) of another
 * node. Its first block is keel's own block N: the remote block's number, parent hash, timestamp, gas
 * limit, base fee, extra data, prevrandao and fee recipient, over the local state (a local block hash
 * and state root: the local tries hold only what was read or written since, state/fork_source.ts).
 * Every account, slot and code the chain has not written is read from the remote at block N, once.
 * The dev accounts keep their remote nonce and code and get `--dev.balance`, as anvil funds them.
 *
 * An OP remote (the L1Block predeploy has code at block N) runs the fork schedule of its network when its
 * chain id is a known network's (the embedded presets), else the OP fork of block N told from the header
 * (Isthmus: requestsHash; Jovian and Holocene: the extra data's version; Ecotone..Granite: the beacon
 * root; Canyon, Delta: withdrawals; else Regolith), unless `--dev.hardfork` names it; a plain
 * Ethereum remote runs Prague (keel's L1 rules), and must be at Prague (requestsHash) at block N; the
 * Prague system contracts it lacks (a dev chain such as anvil's has none) are added as in keel's L1 dev
 * genesis, without which no Prague block can be built.
 */
import { bytesToHex } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import type { JsonRpcClient } from "../common/json_rpc_client.ts";
import { rpcClientFor } from "../rpc/mod.ts";
import {
  buildL1DevGenesis,
  devChainConfig,
  ETHER,
  type GenesisJson,
  L1_SYSTEM_CONTRACTS,
  l1SystemContractAlloc,
} from "../execution/genesis/mod.ts";
import { FORK_RETRY_BACKOFF_MS, ForkSource, redactUrl } from "../execution/state/mod.ts";
import { type ExecutionOptions, givenBy, type ValueSource } from "../config/mod.ts";
import type { Logger } from "../common/logger.ts";
import type { DevFork } from "../execution/rpc/mod.ts";
import { activeFork, type ForkSchedule, OP_FORKS, type OpFork } from "../protocol/hardforks.ts";
import { getNetworkPreset, listNetworks } from "../../networks/mod.ts";
import { L1_BLOCK_ADDRESS } from "../protocol/predeploys.ts";

export interface ForkOptions {
  url: string;
  /** The block to fork at; default the remote's head. */
  blockNumber?: bigint;
  /** The dev accounts to fund, and with how much (wei). */
  accounts: Uint8Array[];
  balance: bigint;
  /** The OP fork to run when given explicitly (`--dev.hardfork`); default: told from the header. */
  hardfork?: OpFork;
  /** The chain id when given explicitly (`--networkid`); default the remote's. */
  chainId?: bigint;
  /** Milliseconds a remote call may take (anvil --timeout: 45 s). */
  timeoutMs?: number;
}

export interface ForkPlan {
  source: ForkSource;
  genesis: GenesisJson;
  chainId: bigint;
  /** The remote's own chain id (`chainId` unless --networkid changed it). */
  remoteChainId: bigint;
  blockNumber: bigint;
  /** The remote block's own hash (the local block N has its own). */
  remoteHash: string;
  /** The OP fork run, or undefined for a plain Ethereum remote. */
  opFork?: OpFork;
}

interface RemoteBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  gasLimit: string;
  baseFeePerGas?: string;
  extraData: string;
  mixHash?: string;
  miner: string;
  excessBlobGas?: string;
  withdrawalsRoot?: string;
  parentBeaconBlockRoot?: string;
  requestsHash?: string;
}

const hex = (n: bigint) => `0x${n.toString(16)}`;

/** The OP fork of an OP block, from the header fields each fork added (each fork's exec-engine.md). */
export function opForkOfHeader(
  block: Pick<RemoteBlock, "extraData" | "requestsHash" | "parentBeaconBlockRoot" | "withdrawalsRoot">,
): OpFork {
  const extra = block.extraData.length > 2 ? parseInt(block.extraData.slice(2, 4), 16) : undefined;
  // jovian/exec-engine.md: extra data version 1 (17 bytes, minBaseFee); holocene: version 0 (9 bytes).
  if (block.extraData.length === 2 + 34 && extra === 1) return "jovian";
  if (block.requestsHash !== undefined && block.requestsHash !== null) return "isthmus";
  if (block.extraData.length === 2 + 18 && extra === 0) return "holocene";
  if (block.parentBeaconBlockRoot !== undefined && block.parentBeaconBlockRoot !== null) return "granite";
  if (block.withdrawalsRoot !== undefined && block.withdrawalsRoot !== null) return "delta";
  return "regolith";
}

/** The OP forks a fork can run, each with a `<fork>_time` in op-node's rollup.json (not interop). */
const PRESET_FORKS = OP_FORKS.filter((f) => f !== "bedrock" && f !== "interop");

/**
 * The chain config of a known network (the embedded superchain presets, by chain id): its OP fork times
 * (each with the Ethereum fork it brings: Canyon Shanghai, Ecotone Cancun, Isthmus Prague) and EIP-1559
 * parameters, so a fork of it at any block runs the rules of that block and the forks scheduled after it
 * activate on time. Forks keel does not run (interop, later ones) are left out.
 */
export function presetChainConfig(
  chainId: bigint,
  remoteChainId: bigint,
): { config: Record<string, unknown>; forks: ForkSchedule } | undefined {
  const net = listNetworks().find((n) => n.chainId === remoteChainId);
  if (net === undefined) return undefined;
  const rollup = getNetworkPreset(net.name).rollupConfigJson;
  const config = devChainConfig(chainId, "bedrock");
  const forks: ForkSchedule = {};
  for (const fork of PRESET_FORKS) {
    const time = rollup[`${fork}_time`];
    if (typeof time !== "number") continue;
    config[`${fork}Time`] = time;
    (forks as Record<string, bigint>)[fork] = BigInt(time);
    if (fork === "canyon") config.shanghaiTime = time;
    if (fork === "ecotone") config.cancunTime = time;
    if (fork === "isthmus") config.pragueTime = time;
  }
  const op = rollup.chain_op_config as Record<string, number> | undefined;
  if (op !== undefined) config.optimism = { ...op };
  return { config, forks };
}

/** Reads the remote's block and chain, and makes the dev chain's genesis at that block. */
/** A client of a fork's remote: http(s) or ws(s), as anvil takes either. */
export function forkClient(url: string, timeoutMs = 45_000): JsonRpcClient {
  return rpcClientFor(url, { timeoutMs });
}

export async function planFork(o: ForkOptions): Promise<ForkPlan> {
  const client = forkClient(o.url, o.timeoutMs);
  try {
    return await planOn(client, o);
  } catch (e) {
    await client.close();
    throw e;
  }
}

async function planOn(client: JsonRpcClient, o: ForkOptions): Promise<ForkPlan> {
  const fail = (what: string, e: unknown) =>
    new BaseError("FORK_REMOTE", `Cannot fork: ${what}: ${redactUrl((e as Error).message, o.url)}`);
  let remoteChainId: bigint;
  let head: bigint;
  try {
    [remoteChainId, head] =
      (await client.batch<string>([{ method: "eth_chainId" }, { method: "eth_blockNumber" }]))
        .map((x) => BigInt(x));
  } catch (e) {
    throw fail("the remote does not answer eth_chainId and eth_blockNumber", e);
  }
  // anvil --fork-block-number: a negative number counts back from the remote's head.
  const number = o.blockNumber === undefined
    ? head
    : o.blockNumber < 0n
    ? head + o.blockNumber
    : o.blockNumber;
  if (number < 0n) {
    throw new BaseError(
      "FORK_BLOCK_BEFORE_GENESIS",
      `Cannot fork at block ${o.blockNumber}: the remote's head is block ${head}, and ${-o
        .blockNumber!} blocks before it is before its genesis`,
      { meta: { blockNumber: o.blockNumber!.toString(), head: head.toString() } },
    );
  }
  if (number > head) {
    throw new BaseError(
      "FORK_BLOCK_AHEAD",
      `Cannot fork at block ${number}: the remote's head is block ${head}`,
      { meta: { blockNumber: number.toString(), head: head.toString() } },
    );
  }
  let block: RemoteBlock | null;
  let l1BlockCode: string;
  try {
    const [b, code] = await client.batch<unknown>([
      { method: "eth_getBlockByNumber", params: [hex(number), false] },
      { method: "eth_getCode", params: [bytesToHex(L1_BLOCK_ADDRESS), hex(number)] },
    ]);
    block = b as RemoteBlock | null;
    l1BlockCode = code as string;
  } catch (e) {
    throw fail(`the remote does not answer block ${number} and its state`, e);
  }
  if (block === null) throw new BaseError("FORK_REMOTE", `Cannot fork: the remote has no block ${number}`);
  const isOp = l1BlockCode !== "0x";
  const chainId = o.chainId ?? remoteChainId;
  let opFork: OpFork | undefined;
  let config: Record<string, unknown>;
  if (isOp) {
    const preset = o.hardfork === undefined ? presetChainConfig(chainId, remoteChainId) : undefined;
    if (preset !== undefined) {
      config = preset.config;
      opFork = activeFork(preset.forks, BigInt(block.timestamp));
    } else {
      opFork = o.hardfork ?? opForkOfHeader(block);
      config = devChainConfig(chainId, opFork);
    }
  } else {
    if (block.requestsHash === undefined || block.requestsHash === null) {
      throw new BaseError(
        "FORK_UNSUPPORTED",
        `Cannot fork block ${number}: a plain Ethereum chain must be at Prague (the block has no requestsHash), ` +
          `the L1 rules keel runs`,
      );
    }
    config = buildL1DevGenesis({ chainId, accounts: [] }).config;
  }
  const source = new ForkSource(client, number);
  const alloc: GenesisJson["alloc"] = {};
  if (!isOp) {
    // A Prague block needs the four system contracts (EIP-7002/7251: without code the block is invalid).
    // A remote dev chain may lack them (anvil's genesis has none): they are added as a dev L1 genesis has them.
    const system = await Promise.all(L1_SYSTEM_CONTRACTS.map((c) => source.account(c.address)));
    const entries = l1SystemContractAlloc();
    L1_SYSTEM_CONTRACTS.forEach((c, i) => {
      if (system[i] === null || system[i]!.code.length === 0) {
        const key = bytesToHex(c.address).toLowerCase();
        alloc[key] = entries[key];
      }
    });
  }
  const remotes = await Promise.all(o.accounts.map((a) => source.account(a)));
  o.accounts.forEach((a, i) => {
    const remote = remotes[i];
    alloc[bytesToHex(a)] = {
      balance: hex(o.balance),
      ...(remote === null ? {} : { nonce: hex(remote.nonce) }),
      ...(remote === null || remote.code.length === 0 ? {} : { code: bytesToHex(remote.code) }),
    };
  });
  const genesis: GenesisJson = {
    config,
    nonce: "0x0",
    timestamp: block.timestamp,
    extraData: block.extraData,
    gasLimit: block.gasLimit,
    difficulty: "0x0",
    mixHash: block.mixHash ?? bytesToHex(new Uint8Array(32)),
    coinbase: block.miner,
    number: block.number,
    gasUsed: "0x0",
    parentHash: block.parentHash,
    baseFeePerGas: block.baseFeePerGas ?? null,
    alloc,
  };
  // The blob fee goes on from the remote's (an OP block's is 0).
  if (!isOp && block.excessBlobGas !== undefined) genesis.excessBlobGas = block.excessBlobGas;
  return { source, genesis, chainId, remoteChainId, blockNumber: number, remoteHash: block.hash, opFork };
}

/**
 * Fork mode for `keel execution` (--dev.fork-url): the fork's plan made from the options, and its store
 * attached, or undefined without --dev.fork-url. `accounts` are the dev accounts to fund. The remote's
 * client is closed by the returned plan's `close`.
 */
export async function startFork(
  options: ExecutionOptions,
  sources: Record<string, ValueSource>,
  accounts: Uint8Array[],
  log: Logger,
): Promise<ForkPlan | undefined> {
  if (!options.dev || options.devForkUrl === undefined) return undefined;
  const plan = await planFork({
    url: options.devForkUrl,
    blockNumber: options.devForkBlockNumber,
    accounts,
    balance: options.devBalance * ETHER,
    hardfork: givenBy(sources, "devHardfork") ? options.devHardfork : undefined,
    chainId: givenBy(sources, "networkId") ? options.networkId : undefined,
  });
  log.info("Forked", {
    remote: new URL(options.devForkUrl).host,
    block: plan.blockNumber.toString(),
    remoteHash: plan.remoteHash,
    chainId: plan.chainId.toString(),
    rules: plan.opFork ?? "prague (L1)",
  });
  return plan;
}

/** What anvil_metadata and anvil_nodeInfo report of a fork (rpc/dev DevFork). */
export function devForkInfo(plan: ForkPlan, url: string): DevFork {
  return {
    url,
    chainId: plan.remoteChainId,
    blockNumber: plan.blockNumber,
    blockHash: plan.remoteHash,
    retryBackoffMs: FORK_RETRY_BACKOFF_MS,
  };
}
