/**
 * The rollup configuration at its edge: op-node's `rollup.json` shape (snake_case keys, integers as
 * JSON numbers, EIP-55 addresses, 32-byte hex), which is also what `rollupnode_rollupConfig` returns
 * (interfaces.md section 2.7). Parsing validates like op-node (unknown keys rejected, then
 * `checkRollupConfig`); encoding writes op-node's field order. The config itself is rollup_config.ts.
 */
import { BaseError } from "../common/errors.ts";
import { bytesToHex, hexToBytes } from "../common/bytes.ts";
import { type ForkSchedule, OP_FORKS, type OpFork } from "./hardforks.ts";
import {
  checkRollupConfig,
  type GenesisBlockId,
  type GenesisSystemConfig,
  type RollupConfig,
  toChecksumAddress,
} from "./rollup_config.ts";

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
