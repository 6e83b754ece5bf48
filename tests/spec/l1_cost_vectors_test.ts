/**
 * L1 data fee vectors transcribed from op-geth core/types/rollup_cost_test.go
 * (https://github.com/ethereum-optimism/op-geth/blob/optimism/core/types/rollup_cost_test.go):
 * TestBedrockL1CostFunc, TestEcotoneL1CostFunc, TestFjordL1CostFuncMinimumBounds,
 * TestFjordL1CostSolidityParity, TestNewL1CostFunc (first Ecotone block cases).
 */
import { hexToBytes } from "../../lib/common/bytes.ts";
import { l1Cost, l1CostFromCostData, type L1CostParams } from "../../lib/protocol/l1_cost.ts";
import { assert, assertEquals } from "../assert.ts";

/** op-geth transaction_test.go `emptyTx` (unsigned legacy tx, 30 non-zero bytes). */
const EMPTY_TX = hexToBytes("0xdd80808094095e7baea6a6c7c4c2dfeb977efac326af552d878080808080");

/** rollup_cost_test.go package-level parameters. */
const PARAMS: L1CostParams = {
  l1BaseFee: 1000n * 1_000_000n,
  overhead: 50n,
  scalar: 7n * 1_000_000n,
  l1BlobBaseFee: 10n * 1_000_000n,
  baseFeeScalar: 2n,
  blobBaseFeeScalar: 3n,
  operatorFeeScalar: 0n,
  operatorFeeConstant: 0n,
};

Deno.test("l1 cost vectors: Bedrock and Regolith (TestBedrockL1CostFunc)", () => {
  assertEquals(l1Cost("bedrock", PARAMS, EMPTY_TX), { fee: 11_326_000_000_000n, l1GasUsed: 1618n });
  assertEquals(l1Cost("regolith", PARAMS, EMPTY_TX), { fee: 3_710_000_000_000n, l1GasUsed: 530n });
  assertEquals(l1Cost("delta", PARAMS, EMPTY_TX), { fee: 3_710_000_000_000n, l1GasUsed: 530n });
});

Deno.test("l1 cost vectors: Ecotone (TestEcotoneL1CostFunc)", () => {
  // (480/16)*(2*16*1000 + 3*10) == 960900
  assertEquals(l1Cost("ecotone", PARAMS, EMPTY_TX), { fee: 960_900n, l1GasUsed: 480n });
});

Deno.test("l1 cost vectors: Fjord minimum size (TestFjordL1CostFuncMinimumBounds, TestNewL1CostFunc)", () => {
  // 100_000_000 * (2 * 1000 * 1e6 * 16 + 3 * 10 * 1e6) / 1e12 = 3203000; gas = 100 * 16
  const minimum = { fee: 3_203_000n, l1GasUsed: 1600n };
  assertEquals(l1Cost("fjord", PARAMS, EMPTY_TX), minimum);
  assertEquals(l1Cost("isthmus", PARAMS, EMPTY_TX), minimum);
  for (const fastlzSize of [100n, 150n, 170n]) {
    assertEquals(l1CostFromCostData("fjord", PARAMS, { zeroes: 0n, ones: 0n, fastlzSize }), minimum);
  }
  for (const fastlzSize of [171n, 175n, 200n]) {
    const got = l1CostFromCostData("fjord", PARAMS, { zeroes: 0n, ones: 0n, fastlzSize });
    assert(got.l1GasUsed > minimum.l1GasUsed && got.fee > minimum.fee, `fastlz ${fastlzSize}`);
  }
});

Deno.test("l1 cost vectors: Fjord matches the Solidity GasPriceOracle (TestFjordL1CostSolidityParity)", () => {
  const params = {
    ...PARAMS,
    l1BaseFee: 2_000_000n,
    l1BlobBaseFee: 3_000_000n,
    baseFeeScalar: 20n,
    blobBaseFeeScalar: 15n,
  };
  assertEquals(
    l1CostFromCostData("fjord", params, { zeroes: 0n, ones: 0n, fastlzSize: 235n }),
    { fee: 105_484n, l1GasUsed: 2463n },
  );
});

Deno.test("l1 cost vectors: the Ecotone activation block still uses the Regolith function (TestNewL1CostFunc)", () => {
  const firstBlock = { ...PARAMS, baseFeeScalar: 0n, blobBaseFeeScalar: 0n, l1BlobBaseFee: 0n };
  assertEquals(l1Cost("ecotone", firstBlock, EMPTY_TX).fee, 3_710_000_000_000n);
  assertEquals(l1Cost("fjord", firstBlock, EMPTY_TX).fee, 3_710_000_000_000n);
});
