/**
 * The execution layer's chain configuration, as op-geth reads it from `genesis.json` `config`.
 * `op` is present for an OP-Stack L2 and absent for a plain Ethereum chain (the devnet's L1).
 */
import { BaseError } from "../common/errors.ts";
import { hexToBytes } from "../common/bytes.ts";
import { type ForkSchedule, OP_FORKS } from "./hardforks.ts";

/** Ethereum L1 forks that matter to keel's engine, activation by timestamp (post-merge chains). */
export interface L1ForkSchedule {
  shanghaiTime?: bigint;
  cancunTime?: bigint;
  pragueTime?: bigint;
  osakaTime?: bigint;
}

export interface Eip1559Params {
  /** op-geth `optimism.eip1559Elasticity` (6 on OP Mainnet). */
  elasticity: bigint;
  /** op-geth `optimism.eip1559Denominator` (50 on OP Mainnet), before Canyon. */
  denominator: bigint;
  /** op-geth `optimism.eip1559DenominatorCanyon` (250 on OP Mainnet), from Canyon. */
  denominatorCanyon: bigint;
}

export interface ChainConfig {
  chainId: bigint;
  /** L1 fork times. For an OP chain they follow the OP forks (Canyon = Shanghai, Ecotone = Cancun, Isthmus = Prague). */
  l1: L1ForkSchedule;
  /** OP-Stack parameters; undefined for a plain Ethereum chain. */
  op?: {
    forks: ForkSchedule;
    eip1559: Eip1559Params;
  };
  /**
   * Dev mode only, never from a genesis file: the EIP-170 contract code size limit in bytes instead of
   * 24,576, with the EIP-3860 initcode limit at twice it (anvil `--code-size-limit`, as revm derives
   * the initcode limit). A chain that sets it leaves the protocol: only `keel execution --dev` does.
   */
  codeSizeLimit?: number;
}

// ---------------------------------------------------------------------------------------------
// Parsing op-geth's `genesis.json` `config` (go-ethereum params/config.go `ChainConfig` JSON names,
// plus op-geth's OP fields).

/** Block-numbered forks of Ethereum, in geth's `CheckConfigForkOrder` order. */
export const L1_BLOCK_FORKS = [
  "homestead",
  "daoFork",
  "eip150",
  "eip155",
  "eip158",
  "byzantium",
  "constantinople",
  "petersburg",
  "istanbul",
  "muirGlacier",
  "berlin",
  "london",
  "arrowGlacier",
  "grayGlacier",
  "mergeNetsplit",
] as const;
export type L1BlockFork = typeof L1_BLOCK_FORKS[number];

/** Forks geth lets a chain skip (difficulty-bomb delays, the DAO fork, the netsplit marker). */
const OPTIONAL_BLOCK_FORKS: ReadonlySet<string> = new Set([
  "daoFork",
  "muirGlacier",
  "arrowGlacier",
  "grayGlacier",
  "mergeNetsplit",
]);

const L1_TIME_FORKS = ["shanghai", "cancun", "prague", "osaka"] as const;

/** EIP-7840 blob parameters per fork (`config.blobSchedule`). */
export interface BlobParams {
  target: bigint;
  max: bigint;
  baseFeeUpdateFraction: bigint;
}

/**
 * Fields of the parsed config that the header rules and the L1 engine need beyond the
 * timestamp forks. Kept apart from `L1ForkSchedule` so existing users of that type are unaffected.
 */
export interface ChainConfigExtras {
  /** Block-numbered forks (`homesteadBlock`, ..., `mergeNetsplitBlock`); absent = not scheduled. */
  blockForks: Partial<Record<L1BlockFork, bigint>>;
  terminalTotalDifficulty?: bigint;
  /** `blobSchedule` keyed by lower-case fork name ("cancun", "prague", ...). */
  blobSchedule?: Record<string, BlobParams>;
  /** op-geth `bedrockBlock` (0 on chains born after Bedrock). */
  bedrockBlock?: bigint;
  /** op-geth `depositContractAddress` (L1 chains). */
  depositContractAddress?: Uint8Array;
}

/** A `ChainConfig` as produced by `parseChainConfig`, with the extra fields op-geth's JSON carries. */
export type ParsedChainConfig = ChainConfig & { extras: ChainConfigExtras };

function configError(message: string, field: string): BaseError {
  return new BaseError("INVALID_CHAIN_CONFIG", `Invalid chain config: ${message}`, { meta: { field } });
}

/**
 * A JSON number or a decimal / 0x-hex string as an unsigned bigint, the way geth's
 * `math.HexOrDecimal256` and `*big.Int` JSON fields accept them.
 */
export function parseJsonUint(value: unknown, field: string, errorCode = "INVALID_CHAIN_CONFIG"): bigint {
  const fail = (why: string) =>
    new BaseError(errorCode, `Cannot parse ${field}: ${why}`, { meta: { field, value } });
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw fail(`${value} is not a non-negative safe integer (quote large numbers)`);
    }
    return BigInt(value);
  }
  if (typeof value === "bigint") {
    if (value < 0n) throw fail(`${value} is negative`);
    return value;
  }
  if (typeof value === "string") {
    const s = value.trim();
    if (/^0[xX][0-9a-fA-F]+$/.test(s) || /^[0-9]+$/.test(s)) return BigInt(s);
    throw fail(`"${s.slice(0, 80)}" is not a decimal or 0x-hex integer`);
  }
  throw fail(`expected a number or a string, got ${value === null ? "null" : typeof value}`);
}

function optionalUint(obj: Record<string, unknown>, key: string): bigint | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  return parseJsonUint(v, key);
}

/**
 * Checks that forks that are set are set in order, and that no mandatory fork is skipped
 * (go-ethereum `CheckConfigForkOrder`).
 */
function checkOrder(
  forks: readonly { field: string; at: bigint | undefined; optional: boolean }[],
): void {
  let last: { field: string; at: bigint | undefined } | undefined;
  for (const f of forks) {
    if (last !== undefined) {
      if (last.at === undefined && f.at !== undefined) {
        throw configError(`${f.field} is set but the earlier ${last.field} is not`, f.field);
      }
      if (last.at !== undefined && f.at !== undefined && f.at < last.at) {
        throw configError(`${f.field} (${f.at}) is before ${last.field} (${last.at})`, f.field);
      }
    }
    if (!f.optional || f.at !== undefined) last = f;
  }
}

/** The fork fields this parser knows (a name ending in Block or Time). */
const KNOWN_FORK_FIELDS: ReadonlySet<string> = new Set([
  ...L1_BLOCK_FORKS.map((f) => `${f}Block`),
  ...L1_TIME_FORKS.map((f) => `${f}Time`),
  ...OP_FORKS.filter((f) => f !== "bedrock").map((f) => `${f}Time`),
  "bedrockBlock",
]);

/**
 * Refuses a fork keel does not implement that the config schedules (op-geth's `karstTime`, geth's
 * `bpo1Time`, `amsterdamTime`, ...). Go's JSON decoding would skip a field it does not know, and a node
 * that skipped a scheduled fork would follow other rules than the chain from that time on.
 */
function checkUnknownForks(c: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(c)) {
    if (!/^[a-z][A-Za-z0-9]*(Block|Time)$/.test(key) || KNOWN_FORK_FIELDS.has(key)) continue;
    if (value === null || value === undefined) continue;
    throw configError(
      `${key} schedules a fork keel does not implement (it knows the OP forks ${OP_FORKS.join(", ")} ` +
        `and the L1 forks up to ${L1_TIME_FORKS.at(-1)}): a node without it would leave the chain when ` +
        `it activates. Remove the field, or set it to null, if the chain never activates it.`,
      key,
    );
  }
}

/**
 * Parses op-geth's `genesis.json` `config` object into a `ChainConfig`.
 *
 * - `chainId` is required.
 * - An OP chain is recognised by the `optimism` object, `bedrockBlock` or any of `regolithTime`…`interopTime`;
 *   for it `op.forks` holds those times and `op.eip1559` the `optimism` EIP-1559 parameters.
 * - On an OP chain the L1 forks follow the OP ones unless given explicitly:
 *   Shanghai = Canyon, Cancun = Ecotone, Prague = Isthmus
 *   (specs/protocol/{canyon,ecotone,isthmus}/exec-engine.md).
 * - Fork order is checked as geth's `CheckConfigForkOrder` does, and the OP forks must be in
 *   `OP_FORKS` order with none skipped.
 * - A fork field it does not know (`karstTime`, ...) that is set is refused (checkUnknownForks), unless
 *   `unknownForks: "ignore"` (a config read for something else than executing the chain: an L1's blob
 *   fee schedule).
 */
export function parseChainConfig(
  json: unknown,
  options: { unknownForks?: "refuse" | "ignore" } = {},
): ParsedChainConfig {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw configError("config must be a JSON object", "config");
  }
  const c = json as Record<string, unknown>;
  if (c.chainId === undefined || c.chainId === null) throw configError("chainId is required", "chainId");
  const chainId = parseJsonUint(c.chainId, "chainId");
  if (chainId === 0n) throw configError("chainId must not be 0", "chainId");
  if (options.unknownForks !== "ignore") checkUnknownForks(c);

  const blockForks: Partial<Record<L1BlockFork, bigint>> = {};
  for (const fork of L1_BLOCK_FORKS) {
    const at = optionalUint(c, `${fork}Block`);
    if (at !== undefined) blockForks[fork] = at;
  }
  checkOrder(
    L1_BLOCK_FORKS.map((fork) => ({
      field: `${fork}Block`,
      at: blockForks[fork],
      optional: OPTIONAL_BLOCK_FORKS.has(fork),
    })),
  );

  const opTimes: Record<string, bigint | undefined> = {};
  for (const fork of OP_FORKS) {
    if (fork === "bedrock") continue;
    opTimes[fork] = optionalUint(c, `${fork}Time`);
  }
  const bedrockBlock = optionalUint(c, "bedrockBlock");
  const optimism = c.optimism;
  if (
    optimism !== undefined && optimism !== null && (typeof optimism !== "object" || Array.isArray(optimism))
  ) {
    throw configError("optimism must be an object", "optimism");
  }
  const isOp = (optimism !== undefined && optimism !== null) || bedrockBlock !== undefined ||
    Object.values(opTimes).some((t) => t !== undefined);

  const l1: L1ForkSchedule = {};
  const explicit: Record<string, bigint | undefined> = {};
  for (const fork of L1_TIME_FORKS) explicit[fork] = optionalUint(c, `${fork}Time`);
  const derived: Record<string, bigint | undefined> = isOp
    ? { shanghai: opTimes.canyon, cancun: opTimes.ecotone, prague: opTimes.isthmus, osaka: undefined }
    : {};
  for (const fork of L1_TIME_FORKS) {
    const at = explicit[fork] ?? derived[fork];
    if (at !== undefined) l1[`${fork}Time`] = at;
  }
  checkOrder(L1_TIME_FORKS.map((fork) => ({ field: `${fork}Time`, at: l1[`${fork}Time`], optional: false })));
  if (l1.shanghaiTime !== undefined && blockForks.london === undefined) {
    throw configError("shanghaiTime is set but londonBlock is not", "shanghaiTime");
  }

  const extras: ChainConfigExtras = { blockForks };
  const ttd = optionalUint(c, "terminalTotalDifficulty");
  if (ttd !== undefined) extras.terminalTotalDifficulty = ttd;
  if (bedrockBlock !== undefined) extras.bedrockBlock = bedrockBlock;
  if (typeof c.depositContractAddress === "string") {
    if (!/^0x[0-9a-fA-F]{40}$/.test(c.depositContractAddress)) {
      throw configError("depositContractAddress is not a 20-byte hex address", "depositContractAddress");
    }
    extras.depositContractAddress = hexToBytes(c.depositContractAddress);
  }
  if (c.blobSchedule !== undefined && c.blobSchedule !== null) {
    if (typeof c.blobSchedule !== "object" || Array.isArray(c.blobSchedule)) {
      throw configError("blobSchedule must be an object", "blobSchedule");
    }
    const schedule: Record<string, BlobParams> = {};
    for (const [fork, raw] of Object.entries(c.blobSchedule as Record<string, unknown>)) {
      if (typeof raw !== "object" || raw === null) {
        throw configError(`blobSchedule.${fork} must be an object`, `blobSchedule.${fork}`);
      }
      const p = raw as Record<string, unknown>;
      const field = (k: string) => {
        if (p[k] === undefined) {
          throw configError(`blobSchedule.${fork}.${k} is required`, `blobSchedule.${fork}.${k}`);
        }
        return parseJsonUint(p[k], `blobSchedule.${fork}.${k}`);
      };
      schedule[fork.toLowerCase()] = {
        target: field("target"),
        max: field("max"),
        baseFeeUpdateFraction: field("baseFeeUpdateFraction"),
      };
    }
    extras.blobSchedule = schedule;
  }

  const config: ParsedChainConfig = { chainId, l1, extras };
  if (!isOp) return config;

  const forks: ForkSchedule = {};
  for (const fork of OP_FORKS) {
    if (fork === "bedrock") continue;
    const at = opTimes[fork];
    if (at !== undefined) forks[fork] = at;
  }
  checkOrder(
    OP_FORKS.filter((f) => f !== "bedrock").map((fork) => ({
      field: `${fork}Time`,
      at: opTimes[fork],
      optional: false,
    })),
  );
  const o = (optimism ?? {}) as Record<string, unknown>;
  const param = (key: string): bigint => {
    if (o[key] === undefined || o[key] === null) {
      throw configError(`optimism.${key} is required`, `optimism.${key}`);
    }
    const v = parseJsonUint(o[key], `optimism.${key}`);
    if (v === 0n) throw configError(`optimism.${key} must not be 0`, `optimism.${key}`);
    return v;
  };
  const eip1559: Eip1559Params = {
    elasticity: param("eip1559Elasticity"),
    denominator: param("eip1559Denominator"),
    // op-geth: Canyon's denominator is required only once Canyon is scheduled.
    denominatorCanyon: forks.canyon === undefined && o.eip1559DenominatorCanyon === undefined
      ? param("eip1559Denominator")
      : param("eip1559DenominatorCanyon"),
  };
  config.op = { forks, eip1559 };
  return config;
}

/** geth `IsLondon(number)`. */
export function isLondonAt(config: ParsedChainConfig, blockNumber: bigint): boolean {
  const at = config.extras.blockForks.london;
  return at !== undefined && blockNumber >= at;
}

/**
 * geth `IsShanghai/IsCancun/IsPrague/IsOsaka(number, time)`: London at `number` and the fork time reached.
 */
export function isL1TimeForkActive(
  config: ParsedChainConfig,
  fork: typeof L1_TIME_FORKS[number],
  blockNumber: bigint,
  timestamp: bigint,
): boolean {
  const at = config.l1[`${fork}Time`];
  return isLondonAt(config, blockNumber) && at !== undefined && timestamp >= at;
}
