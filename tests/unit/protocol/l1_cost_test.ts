import { hexToBytes } from "../../../lib/common/bytes.ts";
import {
  daFootprint,
  DEFAULT_DA_FOOTPRINT_GAS_SCALAR,
  estimatedDaSize,
  formatFeeScalar,
  l1Cost,
  type L1CostParams,
  operatorFee,
  receiptL1Fields,
  rollupCostData,
  rollupDataGas,
} from "../../../lib/protocol/l1_cost.ts";
import { assertEquals, assertThrows } from "../../assert.ts";

const PARAMS: L1CostParams = {
  l1BaseFee: 1_000_000_000n,
  overhead: 188n,
  scalar: 684_000n,
  l1BlobBaseFee: 10_000_000n,
  baseFeeScalar: 2n,
  blobBaseFeeScalar: 3n,
  operatorFeeScalar: 1_500_000n,
  operatorFeeConstant: 1_000n,
};

Deno.test("l1 cost: rollupDataGas counts zero and non-zero bytes, plus 68 bytes before Regolith", () => {
  const data = hexToBytes("0x00ff0001");
  assertEquals(rollupCostData(data).zeroes, 2n);
  assertEquals(rollupCostData(data).ones, 2n);
  assertEquals(rollupDataGas(data, "regolith"), 2n * 4n + 2n * 16n);
  assertEquals(rollupDataGas(data, "bedrock"), 2n * 4n + (2n + 68n) * 16n);
  assertEquals(rollupDataGas(data, "jovian"), 40n);
});

Deno.test("l1 cost: empty data is free", () => {
  assertEquals(l1Cost("bedrock", PARAMS, new Uint8Array()), { fee: 0n, l1GasUsed: 0n });
  assertEquals(l1Cost("fjord", PARAMS, new Uint8Array()), { fee: 0n, l1GasUsed: 0n });
});

Deno.test("l1 cost: operator fee is zero before Isthmus, /1e6 in Isthmus, *100 in Jovian", () => {
  assertEquals(operatorFee("holocene", PARAMS, 21_000n), 0n);
  // isthmus/exec-engine.md: 21000 * 1_500_000 / 1e6 + 1000
  assertEquals(operatorFee("isthmus", PARAMS, 21_000n), 32_500n);
  // jovian/exec-engine.md: 21000 * 1_500_000 * 100 + 1000
  assertEquals(operatorFee("jovian", PARAMS, 21_000n), 3_150_000_001_000n);
  assertEquals(operatorFee("isthmus", { ...PARAMS, operatorFeeScalar: 1n }, 999_999n), 1_000n);
  assertThrows(() => operatorFee("isthmus", PARAMS, -1n), Error, "gas is -1");
});

Deno.test("l1 cost: operator fee maxima have 77 (Isthmus) and 103 (Jovian) bits, as the spec states", () => {
  const u64 = (1n << 64n) - 1n;
  const u32 = (1n << 32n) - 1n;
  const max = { ...PARAMS, operatorFeeScalar: u32, operatorFeeConstant: u64 };
  assertEquals(operatorFee("isthmus", max, u64).toString(2).length, 77);
  assertEquals(operatorFee("jovian", max, u64).toString(2).length, 103);
});

Deno.test("l1 cost: Fjord estimated DA size has a 100-byte floor and Jovian footprint scales it", () => {
  assertEquals(estimatedDaSize(0n), 100n);
  assertEquals(estimatedDaSize(171n), 100n); // -42.5856 + 0.8365*171 = 100.4559
  assertEquals(estimatedDaSize(1000n), 793n); // -42.5856 + 836.5 = 793.9144
  assertEquals(daFootprint(new Uint8Array(50), DEFAULT_DA_FOOTPRINT_GAS_SCALAR), 40_000n);
});

Deno.test("l1 cost: l1FeeScalar formats like op-geth's big.Float Text('g', -1)", () => {
  assertEquals(formatFeeScalar(684_000n), "0.684");
  assertEquals(formatFeeScalar(1_000_000n), "1");
  assertEquals(formatFeeScalar(7_000_000n), "7");
  assertEquals(formatFeeScalar(1_500_000n), "1.5");
  assertEquals(formatFeeScalar(0n), "0");
  assertEquals(formatFeeScalar(123n), "0.000123");
  assertEquals(formatFeeScalar(50n), "5e-05");
  assertEquals(formatFeeScalar(1n), "1e-06");
  assertEquals(formatFeeScalar(999_999_000_000n), "999999");
  assertEquals(formatFeeScalar(1_000_000_000_000n), "1e+06");
  assertEquals(formatFeeScalar(1_500_000_000_000n), "1.5e+06");
});

Deno.test("l1 cost: receipt fields per fork", () => {
  const tx = new Uint8Array(40).fill(1);
  const bedrock = receiptL1Fields("regolith", PARAMS, tx);
  assertEquals(bedrock.l1FeeScalar, "0.684");
  assertEquals(bedrock.l1GasPrice, 1_000_000_000n);
  assertEquals(bedrock.l1GasUsed, 40n * 16n + 188n);
  assertEquals(bedrock.l1BaseFeeScalar, undefined);

  const ecotone = receiptL1Fields("ecotone", PARAMS, tx);
  assertEquals(ecotone.l1FeeScalar, undefined);
  assertEquals([ecotone.l1BaseFeeScalar, ecotone.l1BlobBaseFee, ecotone.l1BlobBaseFeeScalar], [
    2n,
    10_000_000n,
    3n,
  ]);
  assertEquals(ecotone.operatorFeeScalar, undefined);
  assertEquals(ecotone.l1Fee, l1Cost("ecotone", PARAMS, tx).fee);

  const isthmus = receiptL1Fields("isthmus", PARAMS, tx);
  assertEquals([isthmus.operatorFeeScalar, isthmus.operatorFeeConstant], [1_500_000n, 1_000n]);
  const noOperatorFee = receiptL1Fields("isthmus", {
    ...PARAMS,
    operatorFeeScalar: 0n,
    operatorFeeConstant: 0n,
  }, tx);
  assertEquals("operatorFeeScalar" in noOperatorFee, false);

  const jovian = receiptL1Fields("jovian", { ...PARAMS, daFootprintGasScalar: 400n }, tx);
  assertEquals(jovian.daFootprintGasScalar, 400n);
  assertEquals(jovian.blobGasUsed, 100n * 400n);

  // Ecotone activation block: pre-Ecotone values still in the L1Block predeploy.
  const first = receiptL1Fields("ecotone", {
    ...PARAMS,
    baseFeeScalar: 0n,
    blobBaseFeeScalar: 0n,
    l1BlobBaseFee: 0n,
  }, tx);
  assertEquals(first.l1FeeScalar, "0.684");
  assertEquals(first.l1BlobBaseFee, undefined);
});
