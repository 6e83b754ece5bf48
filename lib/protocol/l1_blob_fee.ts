/**
 * The L1 blob base fee that the L1-info deposit carries from Ecotone (ecotone/l1-attributes.md: "the L1
 * blob base fee of the L1 origin block, or 1 if the L1 block does not support blobs"). L1 headers carry
 * only `excessBlobGas`; the fee is EIP-4844's `fake_exponential(MIN_BASE_FEE_PER_BLOB_GAS, excess,
 * BLOB_BASE_FEE_UPDATE_FRACTION)`, and the update fraction depends on the L1 fork active at the header's
 * time: Cancun 3,338,477 (EIP-4844), Prague and Osaka 5,007,716 (EIP-7691), then the blob-parameter-only
 * forks of EIP-7892 (go-ethereum `params.DefaultBPO1BlobConfig` 8,346,193, `DefaultBPO2BlobConfig`
 * 11,684,671).
 *
 * op-node reads the fraction from the L1 chain config (`eth.BlockInfo.BlobBaseFee(l1ChainConfig)`), and
 * then keeps the Cancun fraction for every L1 block before the rollup config's `pectraBlobScheduleTime`:
 * Sepolia and Holesky OP chains kept the Cancun formula after L1 Pectra by mistake, and that history is
 * canonical (op-node `l1_block_info.go`, compared against the L1 block time, not the L2 one).
 */
import { BaseError } from "../common/errors.ts";
import type { L1Header } from "./block_ref.ts";
import { isPectraBlobScheduleActive, type RollupConfig } from "./rollup_config.ts";
import { parseChainConfig, parseJsonUint } from "./chain_config.ts";

/** EIP-4844 `MIN_BASE_FEE_PER_BLOB_GAS`, also the value used when the L1 block has no blobs. */
export const MIN_BLOB_BASE_FEE = 1n;

/** `BLOB_BASE_FEE_UPDATE_FRACTION` of each L1 fork that set one (EIP-4844, EIP-7691, EIP-7892 BPO1/BPO2). */
export const BLOB_BASE_FEE_UPDATE_FRACTION = {
  cancun: 3_338_477n,
  prague: 5_007_716n,
  osaka: 5_007_716n,
  bpo1: 8_346_193n,
  bpo2: 11_684_671n,
} as const;

/** From L1 timestamp `time` on, `updateFraction` applies (until a later step). */
export interface L1BlobFeeStep {
  /** The L1 fork's name, lower case ("cancun", "prague", "bpo1", ...). */
  fork: string;
  time: bigint;
  updateFraction: bigint;
}

/** A known L1 chain's blob fee steps, in activation order. */
export type L1BlobFeeSchedule = readonly L1BlobFeeStep[];

/** The L1 forks that change the blob parameters, in activation order (EIP-7892 allows up to BPO5 in geth). */
export const L1_BLOB_FORKS = ["cancun", "prague", "osaka", "bpo1", "bpo2", "bpo3", "bpo4", "bpo5"] as const;
export type L1BlobFork = typeof L1_BLOB_FORKS[number];

/** Activation times (L1 timestamps) of the blob-changing forks of an L1 chain; absent = not scheduled. */
export type L1BlobForkTimes = Partial<Record<`${L1BlobFork}Time`, bigint>>;

/**
 * EIP-4844 `fake_exponential(factor, numerator, denominator)`: an integer approximation of
 * `factor * e ** (numerator / denominator)` by its Taylor series.
 */
export function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  if (factor < 0n || numerator < 0n || denominator <= 0n) {
    throw new BaseError(
      "INVALID_BLOB_FEE",
      `Cannot compute fake_exponential: factor ${factor}, numerator ${numerator}, denominator ${denominator}`,
    );
  }
  let i = 1n;
  let output = 0n;
  let accum = factor * denominator;
  while (accum > 0n) {
    output += accum;
    accum = (accum * numerator) / (denominator * i);
    i++;
  }
  return output / denominator;
}

/** The blob base fee for `excessBlobGas` under `updateFraction` (EIP-4844 `get_base_fee_per_blob_gas`). */
export function blobBaseFee(excessBlobGas: bigint, updateFraction: bigint): bigint {
  return fakeExponential(MIN_BLOB_BASE_FEE, excessBlobGas, updateFraction);
}

/**
 * The blob fee schedule of an L1 chain from its fork times, like go-ethereum's `BlobScheduleConfig`:
 * a fork's fraction is `fractions[fork]` when given (an L1 genesis `config.blobSchedule` entry), else the
 * mainnet default; BPO3 and later have no default and must be given. Throws `INVALID_BLOB_SCHEDULE` when a
 * fork time is earlier than the one before it.
 */
export function l1BlobFeeSchedule(
  times: L1BlobForkTimes,
  fractions: Partial<Record<string, bigint>> = {},
): L1BlobFeeSchedule {
  const steps: L1BlobFeeStep[] = [];
  for (const fork of L1_BLOB_FORKS) {
    const time = times[`${fork}Time`];
    if (time === undefined) continue;
    const fraction = fractions[fork] ??
      (fork in BLOB_BASE_FEE_UPDATE_FRACTION
        ? BLOB_BASE_FEE_UPDATE_FRACTION[fork as keyof typeof BLOB_BASE_FEE_UPDATE_FRACTION]
        : undefined);
    if (fraction === undefined || fraction <= 0n) {
      throw new BaseError(
        "INVALID_BLOB_SCHEDULE",
        `Invalid L1 blob schedule: ${fork} is scheduled without a positive update fraction`,
        { meta: { fork } },
      );
    }
    const previous = steps[steps.length - 1];
    if (previous !== undefined && time < previous.time) {
      throw new BaseError(
        "INVALID_BLOB_SCHEDULE",
        `Invalid L1 blob schedule: ${fork} at ${time} is before ${previous.fork} at ${previous.time}`,
        { meta: { fork } },
      );
    }
    steps.push({ fork, time, updateFraction: fraction });
  }
  return steps;
}

/** Ethereum mainnet (go-ethereum `params.MainnetChainConfig`). */
export const MAINNET_L1_BLOB_FEE_SCHEDULE: L1BlobFeeSchedule = l1BlobFeeSchedule({
  cancunTime: 1_710_338_135n,
  pragueTime: 1_746_612_311n,
  osakaTime: 1_764_798_551n,
  bpo1Time: 1_765_290_071n,
  bpo2Time: 1_767_747_671n,
});

/** Sepolia (go-ethereum `params.SepoliaChainConfig`). */
export const SEPOLIA_L1_BLOB_FEE_SCHEDULE: L1BlobFeeSchedule = l1BlobFeeSchedule({
  cancunTime: 1_706_655_072n,
  pragueTime: 1_741_159_776n,
  osakaTime: 1_760_427_360n,
  bpo1Time: 1_761_017_184n,
  bpo2Time: 1_761_607_008n,
});

/** Holesky (go-ethereum `params.HoleskyChainConfig`). */
export const HOLESKY_L1_BLOB_FEE_SCHEDULE: L1BlobFeeSchedule = l1BlobFeeSchedule({
  cancunTime: 1_707_305_664n,
  pragueTime: 1_740_434_112n,
  osakaTime: 1_759_308_480n,
  bpo1Time: 1_759_800_000n,
  bpo2Time: 1_760_389_824n,
});

/** Hoodi (go-ethereum `params.HoodiChainConfig`). */
export const HOODI_L1_BLOB_FEE_SCHEDULE: L1BlobFeeSchedule = l1BlobFeeSchedule({
  cancunTime: 0n,
  pragueTime: 1_742_999_832n,
  osakaTime: 1_761_677_592n,
  bpo1Time: 1_762_365_720n,
  bpo2Time: 1_762_955_544n,
});

const KNOWN_SCHEDULES: ReadonlyMap<bigint, L1BlobFeeSchedule> = new Map([
  [1n, MAINNET_L1_BLOB_FEE_SCHEDULE],
  [11_155_111n, SEPOLIA_L1_BLOB_FEE_SCHEDULE],
  [17_000n, HOLESKY_L1_BLOB_FEE_SCHEDULE],
  [560_048n, HOODI_L1_BLOB_FEE_SCHEDULE],
]);

/** The built-in schedule of a public L1 by chain id (op-node `eth.L1ChainConfigByChainID`), if known. */
export function knownL1BlobFeeSchedule(l1ChainId: bigint): L1BlobFeeSchedule | undefined {
  return KNOWN_SCHEDULES.get(l1ChainId);
}

/** The L1s whose built-in schedule wins over an L1 chain config file (op-node: mainnet and Sepolia). */
const BUILT_IN_ONLY: ReadonlySet<bigint> = new Set([1n, 11_155_111n]);

/**
 * The blob fee schedule in an L1 chain config (op-node --rollup.l1-chain-config): a go-ethereum chain
 * config, as the file's top-level object or under `config` (a genesis file). Fork times are
 * `cancunTime`, `pragueTime`, `osakaTime` and `bpo1Time`..`bpo5Time`; fractions come from
 * `blobSchedule.<fork>.baseFeeUpdateFraction`, defaulting to the mainnet values. Throws
 * INVALID_CHAIN_CONFIG or INVALID_BLOB_SCHEDULE naming the field.
 */
export function l1BlobFeeScheduleFromChainConfig(
  json: unknown,
): { chainId: bigint; schedule: L1BlobFeeSchedule } {
  const outer = json as Record<string, unknown> | null;
  const raw = typeof outer === "object" && outer !== null && !Array.isArray(outer) &&
      typeof outer.config === "object" && outer.config !== null
    ? outer.config
    : json;
  // An L1's config names forks keel does not execute (bpo1Time, amsterdamTime...): only its blob fee
  // schedule is read here.
  const parsed = parseChainConfig(raw, { unknownForks: "ignore" });
  const fields = raw as Record<string, unknown>;
  const times: L1BlobForkTimes = {};
  for (const fork of L1_BLOB_FORKS) {
    const v = fields[`${fork}Time`];
    if (v !== undefined && v !== null) times[`${fork}Time`] = parseJsonUint(v, `${fork}Time`);
  }
  const fractions: Record<string, bigint> = {};
  for (const [fork, params] of Object.entries(parsed.extras.blobSchedule ?? {})) {
    fractions[fork.toLowerCase()] = params.baseFeeUpdateFraction;
  }
  return { chainId: parsed.chainId, schedule: l1BlobFeeSchedule(times, fractions) };
}

/**
 * The L1 blob fee schedule a node uses: the built-in one for mainnet and Sepolia (a file is ignored
 * there, as by op-node), else the one of the L1 chain config file `text` when given (its chain id must
 * be the rollup config's L1 chain id), else the built-in one if the L1 is known (Holesky, Hoodi).
 */
export function l1BlobFeeScheduleFor(
  l1ChainId: bigint,
  chainConfigText?: string,
): L1BlobFeeSchedule | undefined {
  if (chainConfigText === undefined || BUILT_IN_ONLY.has(l1ChainId)) return knownL1BlobFeeSchedule(l1ChainId);
  let json: unknown;
  try {
    json = JSON.parse(chainConfigText);
  } catch (e) {
    throw new BaseError(
      "INVALID_CHAIN_CONFIG",
      `Invalid L1 chain config: not JSON (${(e as Error).message})`,
    );
  }
  const { chainId, schedule } = l1BlobFeeScheduleFromChainConfig(json);
  if (chainId !== l1ChainId) {
    throw new BaseError(
      "INVALID_CHAIN_CONFIG",
      `Invalid L1 chain config: it is for chain ${chainId}, the rollup config's L1 is chain ${l1ChainId}`,
      { meta: { field: "chainId" } },
    );
  }
  return schedule;
}

/**
 * The update fraction for the blob base fee of the L1 block at `l1Time`, as op-node picks it:
 * - before the rollup config's `pectraBlobScheduleTime` (when set), Cancun's, whatever L1 runs;
 * - with a known L1 schedule, that of the latest step active at `l1Time` (Cancun's before any);
 * - without one (L1 chain config unknown), Prague's once `pectraBlobScheduleTime` is reached, else
 *   Cancun's. op-node itself refuses to run without an L1 chain config; this fallback is keel's.
 */
export function blobBaseFeeUpdateFraction(
  config: RollupConfig,
  l1Schedule: L1BlobFeeSchedule | undefined,
  l1Time: bigint,
): bigint {
  const pectraFixActive = isPectraBlobScheduleActive(config, l1Time);
  if (config.pectraBlobScheduleTime !== undefined && !pectraFixActive) {
    return BLOB_BASE_FEE_UPDATE_FRACTION.cancun;
  }
  if (l1Schedule === undefined) {
    return pectraFixActive ? BLOB_BASE_FEE_UPDATE_FRACTION.prague : BLOB_BASE_FEE_UPDATE_FRACTION.cancun;
  }
  let fraction: bigint = BLOB_BASE_FEE_UPDATE_FRACTION.cancun;
  for (const step of l1Schedule) {
    if (step.time <= l1Time) fraction = step.updateFraction;
  }
  return fraction;
}

/**
 * The blob base fee of an L1 header for the L1-info deposit: `MIN_BLOB_BASE_FEE` (1) when the header has
 * no `excessBlobGas` (pre-Cancun L1), else `blobBaseFee` with the fraction `blobBaseFeeUpdateFraction` picks.
 */
export function l1HeaderBlobBaseFee(
  config: RollupConfig,
  l1Schedule: L1BlobFeeSchedule | undefined,
  header: Pick<L1Header, "timestamp" | "excessBlobGas">,
): bigint {
  if (header.excessBlobGas === undefined) return MIN_BLOB_BASE_FEE;
  return blobBaseFee(header.excessBlobGas, blobBaseFeeUpdateFraction(config, l1Schedule, header.timestamp));
}
