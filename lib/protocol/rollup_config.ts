/**
 * The rollup configuration: the chain parameters every rollup node of one OP-Stack chain must
 * share to stay in consensus (specs/protocol/rollup-node.md; op-node `rollup.Config`, read from
 * `rollup.json`). Pure parsing, validation and encoding; reading the file is the config layer's job.
 *
 * Inside: bigint and Uint8Array. At the edge: op-node's rollup.json shape (snake_case keys,
 * integers as JSON numbers, EIP-55 addresses, 32-byte hex), which is also what
 * `rollupnode_rollupConfig` returns (interfaces.md section 2.7).
 */
import { BaseError } from "../common/errors.ts";
import { bytesToHex, equalBytes, type Hex, hexToBytes } from "../common/bytes.ts";
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

const TOP_KEYS = new Set([
  "genesis",
  "block_time",
  "max_sequencer_drift",
  "seq_window_size",
  "channel_timeout",
  "l1_chain_id",
  "l2_chain_id",
  ...L2_FORKS.map((f) => `${f}_time`),
  "pectra_blob_schedule_time",
  "batch_inbox_address",
  "deposit_contract_address",
  "l1_system_config_address",
  "protocol_versions_address",
  "da_challenge_contract_address",
  "alt_da",
  "chain_op_config",
]);
const GENESIS_KEYS = new Set(["l1", "l2", "l2_time", "system_config"]);
const BLOCK_ID_KEYS = new Set(["hash", "number"]);
const SYSTEM_CONFIG_KEYS = new Set([
  "batcherAddr",
  "overhead",
  "scalar",
  "gasLimit",
  "eip1559Params",
  "operatorFeeParams",
]);
const ALT_DA_KEYS = new Set([
  "da_challenge_contract_address",
  "da_commitment_type",
  "da_challenge_window",
  "da_resolve_window",
]);
const CHAIN_OP_KEYS = new Set(["eip1559Elasticity", "eip1559Denominator", "eip1559DenominatorCanyon"]);

const UINT64_MAX = (1n << 64n) - 1n;

function invalid(field: string, problem: string): BaseError {
  return new BaseError("INVALID_ROLLUP_CONFIG", `Invalid rollup config: ${field} ${problem}`, {
    meta: { field },
  });
}

type JsonRecord = Record<string, unknown>;

function record(value: unknown, field: string, known: Set<string>): JsonRecord {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw invalid(field, "must be a JSON object");
  }
  // op-node decodes rollup.json with DisallowUnknownFields: an unknown key (a newer fork, a typo)
  // is an error rather than a silently ignored consensus parameter.
  for (const key of Object.keys(value)) {
    if (!known.has(key)) {
      throw invalid(field === "rollup config" ? key : `${field}.${key}`, "is not a known field");
    }
  }
  return value as JsonRecord;
}

function path(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

function req(obj: JsonRecord, key: string, parent: string): unknown {
  const value = obj[key];
  if (value === undefined || value === null) throw invalid(path(parent, key), "is missing");
  return value;
}

/** A uint64 from a JSON number (safe integer) or a bigint. */
function uint(value: unknown, field: string, max = UINT64_MAX): bigint {
  let out: bigint;
  if (typeof value === "bigint") out = value;
  else if (typeof value === "number" && Number.isInteger(value)) {
    if (!Number.isSafeInteger(value)) {
      throw invalid(field, `is ${value}, beyond the exact range of a JSON number`);
    }
    out = BigInt(value);
  } else throw invalid(field, `must be an integer, got ${JSON.stringify(value)}`);
  if (out < 0n || out > max) throw invalid(field, `is ${out}, outside 0..${max}`);
  return out;
}

function fixedHex(value: unknown, field: string, length: number): Uint8Array {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]*$/.test(value) || value.length !== 2 + 2 * length) {
    const shown = typeof value === "string" ? value.slice(0, 80) : JSON.stringify(value);
    throw invalid(field, `must be 0x-prefixed hex of ${length} bytes, got ${shown}`);
  }
  return hexToBytes(value);
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

function optionalUint(obj: JsonRecord, key: string, parent: string): bigint | undefined {
  const value = obj[key];
  return value === undefined || value === null ? undefined : uint(value, path(parent, key));
}

function blockId(value: unknown, field: string): GenesisBlockId {
  const obj = record(value, field, BLOCK_ID_KEYS);
  return {
    hash: fixedHex(req(obj, "hash", field), `${field}.hash`, 32),
    number: uint(req(obj, "number", field), `${field}.number`),
  };
}

/**
 * Parses op-node's `rollup.json` format and validates it like op-node's `Config.Check()`.
 * Every problem is a BaseError `INVALID_ROLLUP_CONFIG` whose message names the field.
 */
export function parseRollupConfigJson(json: unknown): RollupConfig {
  const top = record(json, "rollup config", TOP_KEYS);
  const g = record(req(top, "genesis", ""), "genesis", GENESIS_KEYS);
  const s = record(req(g, "system_config", "genesis"), "genesis.system_config", SYSTEM_CONFIG_KEYS);
  const sp = "genesis.system_config";
  const systemConfig: GenesisSystemConfig = {
    batcherAddr: fixedHex(req(s, "batcherAddr", sp), `${sp}.batcherAddr`, 20),
    // op-node decodes a missing overhead as zero (it is zero from Ecotone on).
    overhead: s.overhead === undefined || s.overhead === null
      ? new Uint8Array(32)
      : fixedHex(s.overhead, `${sp}.overhead`, 32),
    scalar: fixedHex(req(s, "scalar", sp), `${sp}.scalar`, 32),
    gasLimit: uint(req(s, "gasLimit", sp), `${sp}.gasLimit`),
  };
  if (s.eip1559Params !== undefined && s.eip1559Params !== null) {
    systemConfig.eip1559Params = fixedHex(s.eip1559Params, `${sp}.eip1559Params`, 8);
  }
  if (s.operatorFeeParams !== undefined && s.operatorFeeParams !== null) {
    systemConfig.operatorFeeParams = fixedHex(s.operatorFeeParams, `${sp}.operatorFeeParams`, 32);
  }

  const forks: ForkSchedule = {};
  for (const fork of L2_FORKS) {
    const at = optionalUint(top, `${fork}_time`, "");
    if (at !== undefined) forks[fork] = at;
  }

  const cfg: RollupConfig = {
    genesis: {
      l1: blockId(req(g, "l1", "genesis"), "genesis.l1"),
      l2: blockId(req(g, "l2", "genesis"), "genesis.l2"),
      l2Time: uint(req(g, "l2_time", "genesis"), "genesis.l2_time"),
      systemConfig,
    },
    blockTime: uint(req(top, "block_time", ""), "block_time"),
    // Optional in op-node's JSON (omitempty): chains with Fjord at genesis may leave it out.
    maxSequencerDrift: optionalUint(top, "max_sequencer_drift", "") ?? 0n,
    seqWindowSize: uint(req(top, "seq_window_size", ""), "seq_window_size"),
    channelTimeoutBedrock: uint(req(top, "channel_timeout", ""), "channel_timeout"),
    l1ChainId: uint(req(top, "l1_chain_id", ""), "l1_chain_id", BigInt(Number.MAX_SAFE_INTEGER)),
    l2ChainId: uint(req(top, "l2_chain_id", ""), "l2_chain_id", BigInt(Number.MAX_SAFE_INTEGER)),
    forks,
    batchInboxAddress: fixedHex(req(top, "batch_inbox_address", ""), "batch_inbox_address", 20),
    depositContractAddress: fixedHex(
      req(top, "deposit_contract_address", ""),
      "deposit_contract_address",
      20,
    ),
    l1SystemConfigAddress: fixedHex(req(top, "l1_system_config_address", ""), "l1_system_config_address", 20),
    protocolVersionsAddress:
      top.protocol_versions_address === undefined || top.protocol_versions_address === null
        ? new Uint8Array(20)
        : fixedHex(top.protocol_versions_address, "protocol_versions_address", 20),
  };
  const pectra = optionalUint(top, "pectra_blob_schedule_time", "");
  if (pectra !== undefined) cfg.pectraBlobScheduleTime = pectra;
  if (top.da_challenge_contract_address !== undefined && top.da_challenge_contract_address !== null) {
    cfg.daChallengeAddress = fixedHex(top.da_challenge_contract_address, "da_challenge_contract_address", 20);
  }
  if (top.alt_da !== undefined && top.alt_da !== null) {
    const a = record(top.alt_da, "alt_da", ALT_DA_KEYS);
    const type = req(a, "da_commitment_type", "alt_da");
    if (type !== "KeccakCommitment" && type !== "GenericCommitment") {
      throw invalid(
        "alt_da.da_commitment_type",
        `must be KeccakCommitment or GenericCommitment, got ${JSON.stringify(type)}`,
      );
    }
    cfg.altDA = {
      commitmentType: type,
      daChallengeWindow: uint(req(a, "da_challenge_window", "alt_da"), "alt_da.da_challenge_window"),
      daResolveWindow: uint(req(a, "da_resolve_window", "alt_da"), "alt_da.da_resolve_window"),
    };
    if (a.da_challenge_contract_address !== undefined && a.da_challenge_contract_address !== null) {
      cfg.altDA.daChallengeAddress = fixedHex(
        a.da_challenge_contract_address,
        "alt_da.da_challenge_contract_address",
        20,
      );
    }
  }
  if (top.chain_op_config !== undefined && top.chain_op_config !== null) {
    const c = record(top.chain_op_config, "chain_op_config", CHAIN_OP_KEYS);
    cfg.chainOpConfig = {
      eip1559Elasticity: uint(
        req(c, "eip1559Elasticity", "chain_op_config"),
        "chain_op_config.eip1559Elasticity",
      ),
      eip1559Denominator: uint(
        req(c, "eip1559Denominator", "chain_op_config"),
        "chain_op_config.eip1559Denominator",
      ),
      eip1559DenominatorCanyon: uint(
        req(c, "eip1559DenominatorCanyon", "chain_op_config"),
        "chain_op_config.eip1559DenominatorCanyon",
      ),
    };
  }
  checkRollupConfig(cfg);
  return cfg;
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

function num(value: bigint): number {
  // Every value reaching here passed `uint` (safe for JSON) or is a fork/genesis value of that range.
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new BaseError(
      "INVALID_ROLLUP_CONFIG",
      `Cannot encode rollup config: ${value} exceeds a JSON number`,
    );
  }
  return Number(value);
}

/**
 * The op-node `rollup.json` shape, as `rollupnode_rollupConfig` returns it (interfaces.md 2.7):
 * integers as JSON numbers, addresses EIP-55 checksummed (Go `common.Address`), hashes and
 * 32-byte words as lower-case hex. Unset forks are left out (op-node `omitempty`).
 */
export function rollupConfigToJson(cfg: RollupConfig): Record<string, unknown> {
  const sys = cfg.genesis.systemConfig;
  const systemConfig: Record<string, unknown> = {
    batcherAddr: toChecksumAddress(sys.batcherAddr),
    overhead: bytesToHex(sys.overhead),
    scalar: bytesToHex(sys.scalar),
    gasLimit: num(sys.gasLimit),
  };
  if (sys.eip1559Params) systemConfig.eip1559Params = bytesToHex(sys.eip1559Params);
  if (sys.operatorFeeParams) systemConfig.operatorFeeParams = bytesToHex(sys.operatorFeeParams);
  const out: Record<string, unknown> = {
    genesis: {
      l1: { hash: bytesToHex(cfg.genesis.l1.hash), number: num(cfg.genesis.l1.number) },
      l2: { hash: bytesToHex(cfg.genesis.l2.hash), number: num(cfg.genesis.l2.number) },
      l2_time: num(cfg.genesis.l2Time),
      system_config: systemConfig,
    },
    block_time: num(cfg.blockTime),
    max_sequencer_drift: num(cfg.maxSequencerDrift),
    seq_window_size: num(cfg.seqWindowSize),
    channel_timeout: num(cfg.channelTimeoutBedrock),
    l1_chain_id: num(cfg.l1ChainId),
    l2_chain_id: num(cfg.l2ChainId),
  };
  // op-node's field order: regolith ... holocene, pectra_blob_schedule, isthmus, jovian, interop.
  for (const fork of L2_FORKS) {
    if (fork === "isthmus" && cfg.pectraBlobScheduleTime !== undefined) {
      out.pectra_blob_schedule_time = num(cfg.pectraBlobScheduleTime);
    }
    const at = cfg.forks[fork];
    if (at !== undefined) out[`${fork}_time`] = num(at);
  }
  out.batch_inbox_address = toChecksumAddress(cfg.batchInboxAddress);
  out.deposit_contract_address = toChecksumAddress(cfg.depositContractAddress);
  out.l1_system_config_address = toChecksumAddress(cfg.l1SystemConfigAddress);
  out.protocol_versions_address = toChecksumAddress(cfg.protocolVersionsAddress);
  if (cfg.daChallengeAddress) out.da_challenge_contract_address = toChecksumAddress(cfg.daChallengeAddress);
  if (cfg.altDA) {
    const altDA: Record<string, unknown> = {};
    if (cfg.altDA.daChallengeAddress) {
      altDA.da_challenge_contract_address = toChecksumAddress(cfg.altDA.daChallengeAddress);
    }
    altDA.da_commitment_type = cfg.altDA.commitmentType;
    altDA.da_challenge_window = num(cfg.altDA.daChallengeWindow);
    altDA.da_resolve_window = num(cfg.altDA.daResolveWindow);
    out.alt_da = altDA;
  }
  if (cfg.chainOpConfig) {
    out.chain_op_config = {
      eip1559Elasticity: num(cfg.chainOpConfig.eip1559Elasticity),
      eip1559Denominator: num(cfg.chainOpConfig.eip1559Denominator),
      eip1559DenominatorCanyon: num(cfg.chainOpConfig.eip1559DenominatorCanyon),
    };
  }
  return out;
}

/** The rollup config of an embedded network preset (networks/mod.ts `NetworkPreset`). */
export function rollupConfigFromPreset(preset: { rollupConfigJson: unknown }): RollupConfig {
  return parseRollupConfigJson(preset.rollupConfigJson);
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
