import { createBlockHeader } from "@ethereumjs/block";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { BaseError } from "../../../lib/common/errors.ts";
import {
  BLOB_BASE_FEE_UPDATE_FRACTION,
  blobBaseFee,
  blobBaseFeeUpdateFraction,
  fakeExponential,
  HOLESKY_L1_BLOB_FEE_SCHEDULE,
  HOODI_L1_BLOB_FEE_SCHEDULE,
  knownL1BlobFeeSchedule,
  l1BlobFeeSchedule,
  l1BlobFeeScheduleFor,
  l1BlobFeeScheduleFromChainConfig,
  l1HeaderBlobBaseFee,
  MAINNET_L1_BLOB_FEE_SCHEDULE,
  MIN_BLOB_BASE_FEE,
  SEPOLIA_L1_BLOB_FEE_SCHEDULE,
} from "../../../lib/protocol/l1_blob_fee.ts";
import { rollupFixture } from "../rollup/derive/rollup_fixture.ts";
import { buildL1DevGenesis } from "../../../lib/execution/genesis/mod.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../assert.ts";

const CANCUN = 3_338_477n;
const PRAGUE = 5_007_716n;
const BPO1 = 8_346_193n;
const BPO2 = 11_684_671n;

/**
 * EIP-4844's fake_exponential written out term by term: term_0 = factor * denominator,
 * term_i = floor(term_{i-1} * numerator / (denominator * i)), result = floor(sum / denominator).
 */
function referenceFakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  const terms: bigint[] = [factor * denominator];
  for (let i = 1n; terms[terms.length - 1] !== 0n; i++) {
    terms.push((terms[terms.length - 1] * numerator) / (denominator * i));
  }
  return terms.reduce((a, b) => a + b, 0n) / denominator;
}

Deno.test("fake_exponential: go-ethereum's eip4844 TestFakeExponential vectors", () => {
  const vectors: [bigint, bigint, bigint, bigint][] = [
    [1n, 0n, 1n, 1n],
    [38493n, 0n, 1000n, 38493n],
    [0n, 1234567890n, 1n, 0n],
    [1n, 2n, 1n, 6n], // e^2 = 7.389
    [1n, 4n, 2n, 6n],
    [1n, 3n, 1n, 16n], // e^3 = 20.08
    [1n, 6n, 2n, 18n],
    [1n, 4n, 1n, 49n], // e^4 = 54.60
    [1n, 8n, 2n, 50n],
    [10n, 8n, 2n, 542n], // 10 * e^4 = 546.0
    [11n, 8n, 2n, 596n], // 11 * e^4 = 600.6
    [1n, 5n, 1n, 136n], // e^5 = 148.4
    [1n, 5n, 2n, 11n], // e^2.5 = 12.18
    [2n, 5n, 2n, 23n], // 2 * e^2.5 = 24.36
    [1n, 50_000_000n, 2_225_652n, 5_709_098_764n],
  ];
  for (const [factor, numerator, denominator, want] of vectors) {
    assertEquals(
      fakeExponential(factor, numerator, denominator),
      want,
      `${factor} ${numerator} ${denominator}`,
    );
    assertEquals(referenceFakeExponential(factor, numerator, denominator), want);
  }
});

Deno.test("fake_exponential: rejects a zero denominator and negative inputs", () => {
  const cases: [bigint, bigint, bigint][] = [[1n, 1n, 0n], [-1n, 1n, 1n], [1n, -1n, 1n]];
  for (const [f, n, d] of cases) {
    const err = assertThrows(() => fakeExponential(f, n, d), BaseError);
    assertEquals((err as BaseError).code, "INVALID_BLOB_FEE");
  }
});

Deno.test("blobBaseFee: excess 0 is the minimum 1 wei, and the Cancun step points of go-ethereum's TestCalcBlobFee", () => {
  assertEquals(MIN_BLOB_BASE_FEE, 1n);
  for (const fraction of [CANCUN, PRAGUE, BPO1, BPO2]) assertEquals(blobBaseFee(0n, fraction), 1n);
  assertEquals(blobBaseFee(2_314_057n, CANCUN), 1n);
  assertEquals(blobBaseFee(2_314_058n, CANCUN), 2n);
  assertEquals(blobBaseFee(10n * 1024n * 1024n, CANCUN), 23n);
});

Deno.test("blobBaseFee: large excess values match the term-by-term reference and e^(excess/fraction)", () => {
  for (const fraction of [CANCUN, PRAGUE, BPO1, BPO2]) {
    let previous = 0n;
    for (let excess = 0n; excess <= 400_000_000n; excess += 7_654_321n) {
      const fee = blobBaseFee(excess, fraction);
      assertEquals(
        fee,
        referenceFakeExponential(1n, excess, fraction),
        `excess ${excess} fraction ${fraction}`,
      );
      assert(fee >= previous, "the fee never decreases with the excess");
      previous = fee;
      const exact = Math.exp(Number(excess) / Number(fraction));
      if (exact > 1e6 && exact < 1e15) {
        // The truncated series stays within a part in a million of the true exponential here.
        assert(Math.abs(Number(fee) - exact) / exact < 1e-6, `excess ${excess}: ${fee} vs ${exact}`);
      }
    }
  }
});

Deno.test("blobBaseFee: agrees with @ethereumjs/block headers under Cancun, Prague, BPO1 and BPO2", () => {
  const forks: [string, bigint][] = [
    [Hardfork.Cancun, CANCUN],
    [Hardfork.Prague, PRAGUE],
    [Hardfork.Bpo1, BPO1],
    [Hardfork.Bpo2, BPO2],
  ];
  for (const [hardfork, fraction] of forks) {
    const common = new Common({ chain: Mainnet, hardfork });
    for (const excess of [0n, 3_338_477n, 50_000_000n, 193_000_000n]) {
      const header = createBlockHeader({ excessBlobGas: excess, blobGasUsed: 0n }, { common });
      assertEquals(blobBaseFee(excess, fraction), header.getBlobGasPrice(), `${hardfork} excess ${excess}`);
    }
  }
});

Deno.test("update fractions: EIP-4844, EIP-7691 and the BPO1/BPO2 defaults", () => {
  assertEquals(BLOB_BASE_FEE_UPDATE_FRACTION, {
    cancun: CANCUN,
    prague: PRAGUE,
    osaka: PRAGUE,
    bpo1: BPO1,
    bpo2: BPO2,
  });
});

Deno.test("l1BlobFeeSchedule: fork times in order with default or given fractions", () => {
  assertEquals(l1BlobFeeSchedule({ pragueTime: 20n, cancunTime: 10n }), [
    { fork: "cancun", time: 10n, updateFraction: CANCUN },
    { fork: "prague", time: 20n, updateFraction: PRAGUE },
  ]);
  assertEquals(l1BlobFeeSchedule({ cancunTime: 0n, bpo3Time: 5n }, { cancun: 7n, bpo3: 20_609_697n }), [
    { fork: "cancun", time: 0n, updateFraction: 7n },
    { fork: "bpo3", time: 5n, updateFraction: 20_609_697n },
  ]);
  assertEquals(l1BlobFeeSchedule({}), []);
});

Deno.test("l1BlobFeeSchedule: rejects forks out of order and forks without a fraction", () => {
  const order = assertThrows(
    () => l1BlobFeeSchedule({ cancunTime: 10n, pragueTime: 9n }),
    BaseError,
    "before cancun",
  );
  assertEquals((order as BaseError).code, "INVALID_BLOB_SCHEDULE");
  const missing = assertThrows(() => l1BlobFeeSchedule({ bpo3Time: 1n }), BaseError, "bpo3");
  assertEquals((missing as BaseError).code, "INVALID_BLOB_SCHEDULE");
  assertThrows(() => l1BlobFeeSchedule({ cancunTime: 1n }, { cancun: 0n }), BaseError, "positive");
});

Deno.test("known schedules: go-ethereum's mainnet, Sepolia, Holesky and Hoodi fork times, by chain id", () => {
  const times = (s: typeof MAINNET_L1_BLOB_FEE_SCHEDULE) => s.map((x) => [x.fork, x.time]);
  assertEquals(times(MAINNET_L1_BLOB_FEE_SCHEDULE), [
    ["cancun", 1710338135n],
    ["prague", 1746612311n],
    ["osaka", 1764798551n],
    ["bpo1", 1765290071n],
    ["bpo2", 1767747671n],
  ]);
  assertEquals(times(SEPOLIA_L1_BLOB_FEE_SCHEDULE)[1], ["prague", 1741159776n]);
  assertEquals(times(HOLESKY_L1_BLOB_FEE_SCHEDULE)[1], ["prague", 1740434112n]);
  assertEquals(times(HOODI_L1_BLOB_FEE_SCHEDULE)[0], ["cancun", 0n]);
  assertEquals(knownL1BlobFeeSchedule(1n), MAINNET_L1_BLOB_FEE_SCHEDULE);
  assertEquals(knownL1BlobFeeSchedule(11_155_111n), SEPOLIA_L1_BLOB_FEE_SCHEDULE);
  assertEquals(knownL1BlobFeeSchedule(17_000n), HOLESKY_L1_BLOB_FEE_SCHEDULE);
  assertEquals(knownL1BlobFeeSchedule(560_048n), HOODI_L1_BLOB_FEE_SCHEDULE);
  assertEquals(knownL1BlobFeeSchedule(900n), undefined);
});

Deno.test("blobBaseFeeUpdateFraction: a known L1 schedule decides by the L1 time", () => {
  const cfg = rollupFixture();
  const s = MAINNET_L1_BLOB_FEE_SCHEDULE;
  assertEquals(blobBaseFeeUpdateFraction(cfg, s, 1_700_000_000n), CANCUN, "before Cancun");
  assertEquals(blobBaseFeeUpdateFraction(cfg, s, 1_746_612_310n), CANCUN);
  assertEquals(blobBaseFeeUpdateFraction(cfg, s, 1_746_612_311n), PRAGUE, "at Prague");
  assertEquals(blobBaseFeeUpdateFraction(cfg, s, 1_764_798_551n), PRAGUE, "Osaka keeps Prague's");
  assertEquals(blobBaseFeeUpdateFraction(cfg, s, 1_765_290_071n), BPO1);
  assertEquals(blobBaseFeeUpdateFraction(cfg, s, 1_767_747_671n), BPO2);
});

Deno.test("blobBaseFeeUpdateFraction: Cancun's before pectraBlobScheduleTime even on a Prague L1", () => {
  const fix = 1_742_486_400n; // the Sepolia superchain's pectra_blob_schedule_time
  const cfg = { ...rollupFixture(), pectraBlobScheduleTime: fix };
  const s = SEPOLIA_L1_BLOB_FEE_SCHEDULE; // Prague at 1741159776, before the fix
  assertEquals(blobBaseFeeUpdateFraction(cfg, s, 1_741_159_776n), CANCUN);
  assertEquals(blobBaseFeeUpdateFraction(cfg, s, fix - 1n), CANCUN);
  assertEquals(blobBaseFeeUpdateFraction(cfg, s, fix), PRAGUE);
  assertEquals(blobBaseFeeUpdateFraction(cfg, s, 1_761_017_184n), BPO1, "after the fix the schedule rules");
});

Deno.test("blobBaseFeeUpdateFraction: unknown L1 uses Cancun's, Prague's once pectraBlobScheduleTime is reached", () => {
  assertEquals(blobBaseFeeUpdateFraction(rollupFixture(), undefined, 1_800_000_000n), CANCUN);
  const cfg = { ...rollupFixture(), pectraBlobScheduleTime: 1000n };
  assertEquals(blobBaseFeeUpdateFraction(cfg, undefined, 999n), CANCUN);
  assertEquals(blobBaseFeeUpdateFraction(cfg, undefined, 1000n), PRAGUE);
});

Deno.test("l1HeaderBlobBaseFee: 1 without excessBlobGas, else the fee under the chosen fraction", () => {
  const cfg = rollupFixture();
  assertEquals(l1HeaderBlobBaseFee(cfg, MAINNET_L1_BLOB_FEE_SCHEDULE, { timestamp: 1_800_000_000n }), 1n);
  const excess = 193_000_000n;
  const cancun = l1HeaderBlobBaseFee(cfg, MAINNET_L1_BLOB_FEE_SCHEDULE, {
    timestamp: 1_746_612_310n,
    excessBlobGas: excess,
  });
  const prague = l1HeaderBlobBaseFee(cfg, MAINNET_L1_BLOB_FEE_SCHEDULE, {
    timestamp: 1_746_612_311n,
    excessBlobGas: excess,
  });
  assertEquals(cancun, referenceFakeExponential(1n, excess, CANCUN));
  assertEquals(prague, referenceFakeExponential(1n, excess, PRAGUE));
  assert(cancun > prague * 1_000_000n, "Cancun's fraction makes the fee far larger at this excess");
});

/** A devnet L1's chain config (direct form) with later Prague, Osaka and BPO1 and their blob schedule. */
const L1_CONFIG = {
  ...buildL1DevGenesis({ chainId: 900n }).config,
  pragueTime: 100,
  osakaTime: 200,
  bpo1Time: 300,
  blobSchedule: {
    cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
    prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    bpo1: { target: 9, max: 12, baseFeeUpdateFraction: 7000000 },
  },
};

Deno.test("L1 chain config: the blob schedule of a chain config, direct or under .config (a genesis)", () => {
  const want = [
    { fork: "cancun", time: 0n, updateFraction: 3_338_477n },
    { fork: "prague", time: 100n, updateFraction: 5_007_716n },
    { fork: "osaka", time: 200n, updateFraction: 5_007_716n },
    { fork: "bpo1", time: 300n, updateFraction: 7_000_000n },
  ];
  assertEquals(l1BlobFeeScheduleFromChainConfig(L1_CONFIG), { chainId: 900n, schedule: want });
  const genesis = { ...buildL1DevGenesis({ chainId: 900n }), config: L1_CONFIG };
  assertEquals(l1BlobFeeScheduleFromChainConfig(genesis).schedule, want);
  // Without blobSchedule entries the mainnet fractions apply.
  const { blobSchedule: _, ...bare } = L1_CONFIG;
  assertEquals(l1BlobFeeScheduleFromChainConfig(bare).schedule[3], {
    fork: "bpo1",
    time: 300n,
    updateFraction: 8_346_193n,
  });
});

Deno.test("L1 chain config: a file is used for other L1s and ignored for mainnet and Sepolia", () => {
  const text = JSON.stringify(L1_CONFIG);
  assertEquals(l1BlobFeeScheduleFor(900n, text)?.map((s) => s.fork), ["cancun", "prague", "osaka", "bpo1"]);
  assertEquals(l1BlobFeeScheduleFor(900n), undefined);
  const mainnet = JSON.stringify({ ...L1_CONFIG, chainId: 1 });
  assertEquals(l1BlobFeeScheduleFor(1n, mainnet), MAINNET_L1_BLOB_FEE_SCHEDULE);
  assertEquals(l1BlobFeeScheduleFor(11_155_111n, text), SEPOLIA_L1_BLOB_FEE_SCHEDULE);
  // Holesky has a built-in schedule, which a file replaces.
  assertEquals(l1BlobFeeScheduleFor(17_000n), HOLESKY_L1_BLOB_FEE_SCHEDULE);
  const holesky = l1BlobFeeScheduleFor(17_000n, JSON.stringify({ ...L1_CONFIG, chainId: 17000 }));
  assertEquals(holesky?.[3].updateFraction, 7_000_000n);
  // The fraction picked for an L1 time follows the file.
  const cfg = rollupFixture();
  assertEquals(blobBaseFeeUpdateFraction(cfg, l1BlobFeeScheduleFor(900n, text), 350n), 7_000_000n);
});

Deno.test("L1 chain config: a file for another chain, not JSON, or with forks out of order is refused", () => {
  const other = assertThrows(() => l1BlobFeeScheduleFor(901n, JSON.stringify(L1_CONFIG)), BaseError);
  assertStringIncludes(other.message, "it is for chain 900, the rollup config's L1 is chain 901");
  assertThrows(() => l1BlobFeeScheduleFor(900n, "{nope"), BaseError, "not JSON");
  assertThrows(
    () => l1BlobFeeScheduleFor(900n, JSON.stringify({ ...L1_CONFIG, bpo1Time: 150 })),
    BaseError,
    "bpo1 at 150 is before osaka at 200",
  );
});
