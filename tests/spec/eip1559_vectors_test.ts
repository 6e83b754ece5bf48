/**
 * OP base-fee vectors transcribed from op-geth consensus/misc/eip1559/eip1559_test.go
 * (https://github.com/ethereum-optimism/op-geth/blob/optimism/consensus/misc/eip1559/eip1559_test.go):
 * TestCalcBaseFeeOptimism (Canyon), TestCalcBaseFeeOptimismHolocene, TestCalcBaseFeeJovian,
 * TestMinBaseFeeExtraData. opConfig(): elasticity 6, denominator 50, Canyon denominator 250, Canyon at 10,
 * Holocene at 12; the Jovian config adds Jovian at 14.
 */
import { bytesToHex } from "../../lib/common/bytes.ts";
import {
  type BaseFeeParent,
  encodeHoloceneExtraData,
  encodeJovianExtraData,
  nextBaseFee,
} from "../../lib/protocol/eip1559.ts";
import type { ForkSchedule } from "../../lib/protocol/hardforks.ts";
import { assertEquals } from "../assert.ts";

const CHAIN = { elasticity: 6n, denominator: 50n, denominatorCanyon: 250n };
const OP_FORKS: ForkSchedule = { regolith: 0n, canyon: 10n, holocene: 12n };
const JOVIAN_FORKS: ForkSchedule = { ...OP_FORKS, jovian: 14n };
const INITIAL_BASE_FEE = 1_000_000_000n;

Deno.test("eip1559 vectors: Canyon switches the denominator to 250 (TestCalcBaseFeeOptimism)", () => {
  const cases: [bigint, bigint, boolean][] = [
    [5_000_000n, INITIAL_BASE_FEE, false], // usage == target
    [4_000_000n, 996_000_000n, false], // below target
    [10_000_000n, 1_020_000_000n, false], // above target
    [5_000_000n, INITIAL_BASE_FEE, true],
    [4_000_000n, 999_200_000n, true],
    [10_000_000n, 1_004_000_000n, true],
  ];
  for (const [gasUsed, expected, postCanyon] of cases) {
    const parent: BaseFeeParent = {
      gasLimit: 30_000_000n,
      gasUsed,
      baseFee: INITIAL_BASE_FEE,
      extraData: new Uint8Array(),
      timestamp: postCanyon ? 8n : 6n,
    };
    assertEquals(nextBaseFee(parent, CHAIN, OP_FORKS, parent.timestamp + 2n), expected, `${gasUsed}`);
    if (postCanyon) {
      // Parent at 10 is still before Holocene: the chain constants apply.
      const p = { ...parent, timestamp: 10n };
      assertEquals(nextBaseFee(p, CHAIN, OP_FORKS, 12n), expected);
    }
  }
});

Deno.test("eip1559 vectors: Holocene reads the parent's extraData (TestCalcBaseFeeOptimismHolocene)", () => {
  const cases: [bigint, bigint, bigint, bigint][] = [
    [15_000_000n, 10_000_000n, 10n, 2n], // target
    [10_000_000n, 9_666_667n, 10n, 2n], // below
    [20_000_000n, 10_333_333n, 10n, 2n], // above
    [3_000_000n, 10_000_000n, 2n, 10n], // target
    [1_000_000n, 6_666_667n, 2n, 10n], // below
    [30_000_000n, 55_000_000n, 2n, 10n], // above
  ];
  for (const [gasUsed, expected, denom, elasticity] of cases) {
    const parent: BaseFeeParent = {
      gasLimit: 30_000_000n,
      gasUsed,
      baseFee: 10_000_000n,
      extraData: encodeHoloceneExtraData(denom, elasticity),
      timestamp: 12n,
    };
    assertEquals(nextBaseFee(parent, CHAIN, OP_FORKS, 14n), expected, `${gasUsed}/${denom}/${elasticity}`);
  }
});

Deno.test("eip1559 vectors: Jovian clamps to the parent's minBaseFee (TestCalcBaseFeeJovian)", () => {
  const denom = 50n, elasticity = 3n, minBaseFee = 1_000_000_000n;
  const target = 30_000_000n / elasticity;
  const jovianExtra = (min: bigint) => encodeJovianExtraData(denom, elasticity, min);
  const cases: [string, bigint, bigint, bigint, Uint8Array, bigint][] = [
    [
      "pre-Jovian parent is not clamped",
      1n,
      target - 1_000_000n,
      12n,
      encodeHoloceneExtraData(denom, elasticity),
      1n,
    ],
    ["gas used at target is clamped", 1n, target, 14n, jovianExtra(minBaseFee), minBaseFee],
    ["gas used above target is clamped", 1n, target + 1_000_000n, 14n, jovianExtra(minBaseFee), minBaseFee],
    // 2e9 + 2e9 * 10_000_000 / 10_000_000 / 50
    [
      "above target, above minimum",
      2_000_000_000n,
      target + 10_000_000n,
      14n,
      jovianExtra(minBaseFee),
      2_040_000_000n,
    ],
    [
      "below target is clamped",
      1_000_000_000n,
      target - 1_000_000n,
      14n,
      jovianExtra(minBaseFee),
      minBaseFee,
    ],
    // 2e9 - 2e9 * 1_000_000 / 10_000_000 / 50
    [
      "below target, above minimum",
      2_000_000_000n,
      target - 1_000_000n,
      14n,
      jovianExtra(minBaseFee),
      1_996_000_000n,
    ],
    ["zero minimum is not enforced", 1_000_000_000n, target - 1_000_000n, 14n, jovianExtra(0n), 998_000_000n],
  ];
  for (const [name, baseFee, gasUsed, timestamp, extraData, expected] of cases) {
    const parent: BaseFeeParent = { gasLimit: 30_000_000n, gasUsed, baseFee, extraData, timestamp };
    assertEquals(nextBaseFee(parent, CHAIN, JOVIAN_FORKS, timestamp + 2n), expected, name);
  }
});

Deno.test("eip1559 vectors: Jovian extraData layout (TestMinBaseFeeExtraData)", () => {
  // version | denominator | elasticity | minBaseFee
  assertEquals(
    bytesToHex(encodeJovianExtraData(250n, 6n, 1_000_000_000n)),
    "0x01" + "000000fa" + "00000006" + "000000003b9aca00",
  );
  assertEquals(bytesToHex(encodeHoloceneExtraData(250n, 6n)), "0x00000000fa00000006");
});
