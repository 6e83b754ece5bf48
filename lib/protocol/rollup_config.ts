/**
 * The rollup configuration: the chain parameters every rollup node of one OP-Stack chain must
 * share to stay in consensus (specs/protocol/rollup-node.md; op-node `rollup.Config`, read from
 * `rollup.json`). The types, validation like op-node's `Config.Check()`, fork overrides and the
 * per-fork derived limits; pure functions, bigint and Uint8Array inside.
 *
 * The op-node `rollup.json` shape (parsing and encoding) is in rollup_config_json.ts.
 */
import { BaseError } from "../common/errors.ts";
import { bytesToHex, equalBytes, type Hex } from "../common/bytes.ts";
import { keccak256 } from "../common/hash.ts";
import { type ForkSchedule, isForkActive, OP_FORKS, type OpFork } from "./hardforks.ts";

/** An L1 or L2 block by hash and number. */
export interface GenesisBlockId {
  hash: Uint8Array;
  number: bigint;
}

/** The L1 system config at L2 genesis (op-service `eth.SystemConfig`). */
export interface GenesisSystemConfig {
  /** The address whose batch-inbox transactions are accepted (20 bytes). */
  batcherAddr: Uint8Array;
  /** L1 fee overhead, 32 bytes (zero since Ecotone). */
  overhead: Uint8Array;
  /** L1 fee scalar, 32 bytes (Ecotone format when the first byte is 1). */
  scalar: Uint8Array;
  gasLimit: bigint;
  /** Holocene EIP-1559 parameters, 8 bytes (denominator u32 ++ elasticity u32); absent = not given. */
  eip1559Params?: Uint8Array;
  /** Isthmus operator fee parameters, 32 bytes; absent = not given. */
  operatorFeeParams?: Uint8Array;
}

export type AltDACommitmentType = "KeccakCommitment" | "GenericCommitment";

/** Alt-DA settings (op-node `AltDAConfig`, JSON key `alt_da`). */
export interface AltDAConfig {
  /** L1 DataAvailabilityChallenge proxy; required for keccak commitments, zero/absent for generic ones. */
  daChallengeAddress?: Uint8Array;
  commitmentType: AltDACommitmentType;
  /** In L1 blocks. */
  daChallengeWindow: bigint;
  /** In L1 blocks. */
  daResolveWindow: bigint;
}

/** The chain's EIP-1559 parameters (op-geth `params.OptimismConfig`, JSON key `chain_op_config`). */
export interface ChainOpConfig {
  eip1559Elasticity: bigint;
  eip1559Denominator: bigint;
  eip1559DenominatorCanyon: bigint;
}

export interface RollupConfig {
  genesis: {
    /** The L1 block the rollup starts after. */
    l1: GenesisBlockId;
    /** The L2 genesis block (not block 0 for migrated chains: OP Mainnet starts at 105235063). */
    l2: GenesisBlockId;
    /** Timestamp of the L2 genesis block, seconds. */
    l2Time: bigint;
    systemConfig: GenesisSystemConfig;
  };
  /** Seconds per L2 block. */
  blockTime: bigint;
  /** Before Fjord; from Fjord the constant 1800 applies (use `maxSequencerDrift()`). */
  maxSequencerDrift: bigint;
  /** L1 blocks per sequencing window. */
  seqWindowSize: bigint;
  /** JSON `channel_timeout`: the channel timeout before Granite (use `channelTimeout()`). */
  channelTimeoutBedrock: bigint;
  l1ChainId: bigint;
  l2ChainId: bigint;
  /** L2 fork activation times (regolith ... interop). */
  forks: ForkSchedule;
  /** Pectra blob schedule fix (an L1 blob-fee rule, not an L2 fork in OP_FORKS). */
  pectraBlobScheduleTime?: bigint;
  batchInboxAddress: Uint8Array;
  /** OptimismPortal proxy. */
  depositContractAddress: Uint8Array;
  l1SystemConfigAddress: Uint8Array;
  /** ProtocolVersions contract; the zero address when not given. */
  protocolVersionsAddress: Uint8Array;
  /** Legacy top-level `da_challenge_contract_address` (pre-`alt_da` files). */
  daChallengeAddress?: Uint8Array;
  altDA?: AltDAConfig;
  /** Absent in rollup.json files written before op-node added it. */
  chainOpConfig?: ChainOpConfig;
}

/** Forks that `--override.<name>` can move (interfaces.md section 4.5, "Fork overrides"). */
export type ForkOverrideName =
  | "canyon"
  | "delta"
  | "ecotone"
  | "fjord"
  | "granite"
  | "holocene"
  | "isthmus"
  | "interop"
  | "jovian"
  | "pectrablobschedule";

export const FORK_OVERRIDE_NAMES: readonly ForkOverrideName[] = [
  "canyon",
  "delta",
  "ecotone",
  "fjord",
  "granite",
  "holocene",
  "isthmus",
  "interop",
  "jovian",
  "pectrablobschedule",
];

export type ForkOverrides = Partial<Record<ForkOverrideName, bigint>>;

/** Channel timeout from Granite, in L1 blocks (specs/protocol/granite/derivation.md, "Reduce Channel Timeout"). */
export const CHANNEL_TIMEOUT_GRANITE = 50n;
/** Max sequencer drift from Fjord, seconds (specs/protocol/fjord/derivation.md, "Constant Maximum Sequencer Drift"). */
export const MAX_SEQUENCER_DRIFT_FJORD = 1800n;
/** Channel bank size limit, bytes (specs/protocol/derivation.md; fjord/derivation.md "Increasing MAX_CHANNEL_BANK_SIZE"). */
export const MAX_CHANNEL_BANK_SIZE_BEDROCK = 100_000_000n;
export const MAX_CHANNEL_BANK_SIZE_FJORD = 1_000_000_000n;
/** RLP bytes read from one channel (specs/protocol/derivation.md; fjord/derivation.md "Increasing MAX_RLP_BYTES_PER_CHANNEL"). */
export const MAX_RLP_BYTES_PER_CHANNEL_BEDROCK = 10_000_000n;
export const MAX_RLP_BYTES_PER_CHANNEL_FJORD = 100_000_000n;

/** The L2 forks in activation order, without bedrock (always active). */
const L2_FORKS = OP_FORKS.filter((f) => f !== "bedrock") as Exclude<OpFork, "bedrock">[];

const UINT64_MAX = (1n << 64n) - 1n;

function invalid(field: string, problem: string): BaseError {
  return new BaseError("INVALID_ROLLUP_CONFIG", `Invalid rollup config: ${field} ${problem}`, {
    meta: { field },
  });
}

function isZero(bytes: Uint8Array): boolean {
  return bytes.every((b) => b === 0);
}

/**
 * An address in EIP-55 mixed-case checksum form (https://eips.ethereum.org/EIPS/eip-55):
 * hex digit i is upper case when nibble i of keccak256(lower-case hex) is >= 8.
 */
export function toChecksumAddress(address: Uint8Array): Hex {
  if (address.length !== 20) {
    throw new BaseError("INVALID_ADDRESS", `Cannot checksum address: length is ${address.length}, want 20`);
  }
  const lower = bytesToHex(address).slice(2);
  const hash = keccak256(new TextEncoder().encode(lower));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const nib = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nib >= 8 ? lower[i].toUpperCase() : lower[i];
  }
  return out as Hex;
}

/**
 * Validates a rollup config the way op-node's `Config.Check()` does; throws BaseError
 * `INVALID_ROLLUP_CONFIG` naming the field.
 */
export function checkRollupConfig(cfg: RollupConfig): void {
  if (cfg.blockTime === 0n) throw invalid("block_time", "must be greater than 0");
  if (cfg.channelTimeoutBedrock === 0n) {
    throw invalid("channel_timeout", "must be greater than 0 (it should cover at least one L1 block)");
  }
  if (cfg.seqWindowSize < 2n) {
    throw invalid("seq_window_size", `must be at least 2, got ${cfg.seqWindowSize}`);
  }
  const fjordAtGenesis = cfg.forks.fjord !== undefined && cfg.forks.fjord <= cfg.genesis.l2Time;
  if (cfg.maxSequencerDrift === 0n && !fjordAtGenesis) {
    throw invalid("max_sequencer_drift", "must be greater than 0 unless Fjord is active at genesis");
  }
  if (isZero(cfg.genesis.l1.hash)) throw invalid("genesis.l1.hash", "must not be empty (zero)");
  if (isZero(cfg.genesis.l2.hash)) throw invalid("genesis.l2.hash", "must not be empty (zero)");
  if (equalBytes(cfg.genesis.l1.hash, cfg.genesis.l2.hash)) {
    throw invalid("genesis.l2.hash", "must differ from genesis.l1.hash");
  }
  if (cfg.genesis.l2Time === 0n) throw invalid("genesis.l2_time", "must be greater than 0");
  const sys = cfg.genesis.systemConfig;
  if (isZero(sys.batcherAddr)) {
    throw invalid("genesis.system_config.batcherAddr", "must not be the zero address");
  }
  if (isZero(sys.scalar)) throw invalid("genesis.system_config.scalar", "must not be zero");
  if (sys.gasLimit === 0n) throw invalid("genesis.system_config.gasLimit", "must be greater than 0");
  if (isZero(cfg.batchInboxAddress)) throw invalid("batch_inbox_address", "must not be the zero address");
  if (isZero(cfg.depositContractAddress)) {
    throw invalid("deposit_contract_address", "must not be the zero address");
  }
  if (cfg.l1ChainId === 0n) throw invalid("l1_chain_id", "must be greater than 0");
  if (cfg.l2ChainId === 0n) throw invalid("l2_chain_id", "must be greater than 0");
  if (cfg.l1ChainId === cfg.l2ChainId) {
    throw invalid("l2_chain_id", `must differ from l1_chain_id (${cfg.l1ChainId})`);
  }
  if (cfg.altDA) {
    const addr = cfg.altDA.daChallengeAddress;
    if (cfg.altDA.commitmentType === "KeccakCommitment" && (addr === undefined || isZero(addr))) {
      throw invalid("alt_da.da_challenge_contract_address", "must be set for keccak commitments");
    }
    if (cfg.altDA.commitmentType === "GenericCommitment" && addr !== undefined && !isZero(addr)) {
      throw invalid("alt_da.da_challenge_contract_address", "must be empty (zero) for generic commitments");
    }
  }
  checkForkOrder(cfg.forks);
}

/**
 * Fork order (op-node `checkFork`): a fork may only be scheduled when the fork before it is, and
 * not earlier than it. Regolith ... Jovian form one line; Interop builds on Isthmus (the registry's
 * interop devnets schedule it without Jovian).
 */
function checkForkOrder(forks: ForkSchedule): void {
  const pairs: [Exclude<OpFork, "bedrock">, Exclude<OpFork, "bedrock">][] = [];
  const line = L2_FORKS.filter((f) => f !== "interop");
  for (let i = 1; i < line.length; i++) pairs.push([line[i - 1], line[i]]);
  pairs.push(["isthmus", "interop"]);
  for (const [prior, later] of pairs) {
    const a = forks[prior];
    const b = forks[later];
    if (b === undefined) continue;
    if (a === undefined) {
      throw invalid(`${later}_time`, `is set (to ${b}) but the prior fork ${prior} is not`);
    }
    if (a > b) throw invalid(`${later}_time`, `is ${b}, before the prior fork ${prior} at ${a}`);
  }
}

/**
 * Applies `--override.<fork>` times on top of `cfg` and re-validates (op-node `applyOverrides`,
 * then `Check()`). op-node applies an override when the flag is *set* (`ctx.IsSet`), whatever its
 * value, so a present key replaces the fork time, and `0n` activates the fork at genesis. Pass only
 * the overrides the operator gave; an undefined value is ignored. Returns a new config.
 */
export function applyForkOverrides(cfg: RollupConfig, overrides: ForkOverrides): RollupConfig {
  const out: RollupConfig = { ...cfg, forks: { ...cfg.forks } };
  for (const [name, value] of Object.entries(overrides) as [string, bigint | undefined][]) {
    if (value === undefined) continue;
    if (!(FORK_OVERRIDE_NAMES as readonly string[]).includes(name)) {
      throw new BaseError("INVALID_ROLLUP_CONFIG", `Cannot apply fork override: unknown fork ${name}`, {
        meta: { field: `override.${name}` },
      });
    }
    if (typeof value !== "bigint" || value < 0n || value > UINT64_MAX) {
      throw new BaseError(
        "INVALID_ROLLUP_CONFIG",
        `Cannot apply fork override: override.${name} is ${value}`,
        {
          meta: { field: `override.${name}` },
        },
      );
    }
    if (name === "pectrablobschedule") out.pectraBlobScheduleTime = value;
    else out.forks[name as Exclude<ForkOverrideName, "pectrablobschedule">] = value;
  }
  checkRollupConfig(out);
  return out;
}

/** True when `fork` is active at L2 timestamp `timestamp`. */
export function isRollupForkActive(cfg: RollupConfig, fork: OpFork, timestamp: bigint): boolean {
  return isForkActive(cfg.forks, fork, timestamp);
}

/** True when the Pectra blob schedule fix is active at `timestamp`. */
export function isPectraBlobScheduleActive(cfg: RollupConfig, timestamp: bigint): boolean {
  return cfg.pectraBlobScheduleTime !== undefined && timestamp >= cfg.pectraBlobScheduleTime;
}

/**
 * Channel timeout in L1 blocks: the config's value before Granite, 50 from Granite
 * (specs/protocol/granite/derivation.md, "Reduce Channel Timeout"). The rule activates by the
 * timestamp of the L1 block being considered, so pass the current L1 origin's timestamp.
 */
export function channelTimeout(cfg: RollupConfig, l1Timestamp: bigint): bigint {
  return isForkActive(cfg.forks, "granite", l1Timestamp)
    ? CHANNEL_TIMEOUT_GRANITE
    : cfg.channelTimeoutBedrock;
}

/**
 * Max sequencer drift in seconds: the config's value before Fjord, 1800 from Fjord. The change
 * "activates with the L1 origin block timestamp" (specs/protocol/fjord/derivation.md, "Timestamp
 * Activation"), so pass the L1 origin's timestamp of the batch or block being checked.
 */
export function maxSequencerDrift(cfg: RollupConfig, l1OriginTimestamp: bigint): bigint {
  return isForkActive(cfg.forks, "fjord", l1OriginTimestamp)
    ? MAX_SEQUENCER_DRIFT_FJORD
    : cfg.maxSequencerDrift;
}

/** Channel bank size limit in bytes at L1 origin `timestamp` (Fjord raises it). */
export function maxChannelBankSize(cfg: RollupConfig, timestamp: bigint): bigint {
  return isForkActive(cfg.forks, "fjord", timestamp)
    ? MAX_CHANNEL_BANK_SIZE_FJORD
    : MAX_CHANNEL_BANK_SIZE_BEDROCK;
}

/** Max RLP bytes read from one channel at L1 origin `timestamp` (Fjord raises it). */
export function maxRlpBytesPerChannel(cfg: RollupConfig, timestamp: bigint): bigint {
  return isForkActive(cfg.forks, "fjord", timestamp)
    ? MAX_RLP_BYTES_PER_CHANNEL_FJORD
    : MAX_RLP_BYTES_PER_CHANNEL_BEDROCK;
}

/** Timestamp of L2 block `blockNumber` (genesis time + blocks since genesis * block time). */
export function timestampForBlock(cfg: RollupConfig, blockNumber: bigint): bigint {
  if (blockNumber < cfg.genesis.l2.number) {
    throw new BaseError(
      "BEFORE_GENESIS",
      `Cannot compute timestamp: block ${blockNumber} is before L2 genesis ${cfg.genesis.l2.number}`,
    );
  }
  return cfg.genesis.l2Time + (blockNumber - cfg.genesis.l2.number) * cfg.blockTime;
}

/** The L2 block number whose slot contains `timestamp` (rounded down). */
export function targetBlockNumber(cfg: RollupConfig, timestamp: bigint): bigint {
  if (timestamp < cfg.genesis.l2Time) {
    throw new BaseError(
      "BEFORE_GENESIS",
      `Cannot compute block number: timestamp ${timestamp} is before L2 genesis time ${cfg.genesis.l2Time}`,
    );
  }
  return cfg.genesis.l2.number + (timestamp - cfg.genesis.l2Time) / cfg.blockTime;
}
