import { bytesToHex, hexToBytes } from "../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import {
  decodeL1InfoCalldata,
  DEV_L1_BLOCK_INFO,
  encodeL1InfoCalldata,
  L1_BLOCK_SLOTS,
  L1_INFO_LENGTHS,
  type L1BlockInfo,
  l1BlockStorage,
  l1InfoFormatAt,
  l1InfoFormatOf,
  readL1CostParams,
} from "../../../lib/protocol/l1_block_info.ts";
import { l1Cost, operatorFee } from "../../../lib/protocol/l1_cost.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";

const INFO: L1BlockInfo = {
  number: 0x1234n,
  timestamp: 0x5678n,
  baseFee: 7_000_000_000n,
  blockHash: new Uint8Array(32).fill(0xaa),
  sequenceNumber: 3n,
  batcherHash: hexToBytes("0x000000000000000000000000" + "bb".repeat(20)),
  l1FeeOverhead: 188n,
  l1FeeScalar: 684_000n,
  blobBaseFee: 5n,
  baseFeeScalar: 1368n,
  blobBaseFeeScalar: 810_949n,
  operatorFeeScalar: 0x01020304n,
  operatorFeeConstant: 0x0506070809n,
  daFootprintGasScalar: 400n,
};

function expectInvalid(fn: () => unknown, fragment: string) {
  const err = assertThrows(fn);
  assert(isErrorCode(err, "INVALID_L1_INFO"), String(err));
  assert(err.message.includes(fragment), err.message);
}

Deno.test("l1 block info: every format round-trips the fields it carries", () => {
  const bedrock = decodeL1InfoCalldata(encodeL1InfoCalldata("bedrock", INFO));
  assertEquals(bedrock.format, "bedrock");
  assertEquals(bedrock.info, {
    ...INFO,
    blobBaseFee: 0n,
    baseFeeScalar: 0n,
    blobBaseFeeScalar: 0n,
    operatorFeeScalar: 0n,
    operatorFeeConstant: 0n,
    daFootprintGasScalar: 0n,
  });
  const ecotone = decodeL1InfoCalldata(encodeL1InfoCalldata("fjord", INFO));
  assertEquals(ecotone.format, "ecotone");
  assertEquals(ecotone.info, {
    ...INFO,
    l1FeeOverhead: 0n,
    l1FeeScalar: 0n,
    operatorFeeScalar: 0n,
    operatorFeeConstant: 0n,
    daFootprintGasScalar: 0n,
  });
  const isthmus = decodeL1InfoCalldata(encodeL1InfoCalldata("isthmus", INFO));
  assertEquals(isthmus.info, { ...INFO, l1FeeOverhead: 0n, l1FeeScalar: 0n, daFootprintGasScalar: 0n });
  const jovian = decodeL1InfoCalldata(encodeL1InfoCalldata("jovian", INFO));
  assertEquals(jovian.info, { ...INFO, l1FeeOverhead: 0n, l1FeeScalar: 0n });
  for (const [format, length] of Object.entries(L1_INFO_LENGTHS)) {
    assertEquals(encodeL1InfoCalldata(format as keyof typeof L1_INFO_LENGTHS, INFO).length, length, format);
  }
});

Deno.test("l1 block info: packed layouts put each field at the spec's byte offsets", () => {
  // isthmus/l1-attributes.md and jovian/l1-attributes.md tables.
  const data = encodeL1InfoCalldata("jovian", INFO);
  assertEquals(bytesToHex(data.subarray(0, 4)), "0x3db6be2b");
  assertEquals(bytesToHex(data.subarray(4, 8)), "0x00000558"); // baseFeeScalar 1368
  assertEquals(bytesToHex(data.subarray(12, 20)), "0x0000000000000003"); // sequenceNumber
  assertEquals(bytesToHex(data.subarray(28, 36)), "0x0000000000001234"); // l1BlockNumber
  assertEquals(bytesToHex(data.subarray(164, 168)), "0x01020304"); // operatorFeeScalar
  assertEquals(bytesToHex(data.subarray(168, 176)), "0x0000000506070809"); // operatorFeeConstant
  assertEquals(bytesToHex(data.subarray(176, 178)), "0x0190"); // daFootprintGasScalar 400
  // Bedrock: ABI words, number first, scalar last.
  const bedrock = encodeL1InfoCalldata("regolith", INFO);
  assertEquals(bytesToHex(bedrock.subarray(0, 4)), "0x015d8eb9");
  assertEquals(bytesToHex(bedrock.subarray(4 + 31, 4 + 32)), "0x34");
  assertEquals(bytesToHex(bedrock.subarray(4 + 32 * 7 + 29, 4 + 32 * 8)), "0x0a6fe0"); // 684000
});

Deno.test("l1 block info: bad calldata is rejected", () => {
  expectInvalid(() => decodeL1InfoCalldata(new Uint8Array(3)), "data length is 3");
  expectInvalid(() => decodeL1InfoCalldata(hexToBytes("0xdeadbeef")), "unknown selector 0xdeadbeef");
  const ecotone = encodeL1InfoCalldata("ecotone", INFO);
  expectInvalid(
    () => decodeL1InfoCalldata(ecotone.subarray(0, 163)),
    "ecotone data length is 163, expected 164",
  );
  const bedrock = encodeL1InfoCalldata("bedrock", INFO);
  const tooBig = bedrock.slice();
  tooBig[4] = 1; // number word with a bit above uint64
  expectInvalid(() => decodeL1InfoCalldata(tooBig), "number does not fit in uint64");
  expectInvalid(
    () => encodeL1InfoCalldata("ecotone", { ...INFO, baseFeeScalar: 1n << 32n }),
    "baseFeeScalar",
  );
  expectInvalid(
    () => encodeL1InfoCalldata("jovian", { ...INFO, daFootprintGasScalar: 1n << 16n }),
    "daFootprintGasScalar",
  );
  expectInvalid(
    () => encodeL1InfoCalldata("ecotone", { ...INFO, blockHash: new Uint8Array(31) }),
    "blockHash length is 31",
  );
});

Deno.test("l1 block info: the activation block of a fork uses the previous format", () => {
  const forks = { regolith: 0n, canyon: 0n, delta: 0n, ecotone: 10n, fjord: 10n, isthmus: 20n, jovian: 30n };
  assertEquals(l1InfoFormatAt(forks, 8n, 2n), "bedrock");
  assertEquals(l1InfoFormatAt(forks, 10n, 2n), "bedrock");
  assertEquals(l1InfoFormatAt(forks, 12n, 2n), "ecotone");
  assertEquals(l1InfoFormatAt(forks, 20n, 2n), "ecotone");
  assertEquals(l1InfoFormatAt(forks, 22n, 2n), "isthmus");
  assertEquals(l1InfoFormatAt(forks, 30n, 2n), "isthmus");
  assertEquals(l1InfoFormatAt(forks, 32n, 2n), "jovian");
  assertEquals(l1InfoFormatOf("holocene"), "ecotone");
});

Deno.test("l1 block info: storage written from info reads back as the fee params of each fork", () => {
  const storage = l1BlockStorage(INFO);
  const get = (slot: bigint) => storage.get(slot) ?? 0n;
  // Slot 3 packs baseFeeScalar in bytes [16:20), blobBaseFeeScalar in [20:24), sequenceNumber in [24:32).
  assertEquals(
    get(L1_BLOCK_SLOTS.scalars).toString(16).padStart(64, "0"),
    "00000000000000000000000000000000" + "00000558000c5fc50000000000000003",
  );
  // Slot 8: op-geth ExtractOperatorFeeParams reads the scalar at [20:24) and the constant at [24:32).
  const slot8 = get(L1_BLOCK_SLOTS.operatorFee).toString(16).padStart(64, "0");
  assertEquals(slot8.slice(40, 48), "01020304");
  assertEquals(slot8.slice(48, 64), "0000000506070809");
  assertEquals(slot8.slice(36, 40), "0190");

  const bedrock = readL1CostParams(get, "regolith");
  assertEquals([bedrock.l1BaseFee, bedrock.overhead, bedrock.scalar, bedrock.baseFeeScalar], [
    7_000_000_000n,
    188n,
    684_000n,
    0n,
  ]);
  const fjord = readL1CostParams(get, "fjord");
  assertEquals([fjord.baseFeeScalar, fjord.blobBaseFeeScalar, fjord.l1BlobBaseFee, fjord.overhead], [
    1368n,
    810_949n,
    5n,
    0n,
  ]);
  assertEquals(fjord.operatorFeeScalar, 0n);
  const isthmus = readL1CostParams(get, "isthmus");
  assertEquals([isthmus.operatorFeeScalar, isthmus.operatorFeeConstant, isthmus.daFootprintGasScalar], [
    0x01020304n,
    0x0506070809n,
    undefined,
  ]);
  assertEquals(readL1CostParams(get, "jovian").daFootprintGasScalar, 400n);
});

Deno.test("l1 block info: only the slots a fork needs are read", () => {
  const read: bigint[] = [];
  const storage = l1BlockStorage(INFO);
  readL1CostParams((slot) => (read.push(slot), storage.get(slot) ?? 0n), "bedrock");
  assertEquals(read.sort(), [1n, 5n, 6n]);
  read.length = 0;
  readL1CostParams((slot) => (read.push(slot), storage.get(slot) ?? 0n), "isthmus");
  assertEquals(read.sort(), [1n, 3n, 7n, 8n]);
});

Deno.test("l1 block info: the Ecotone activation block reads the pre-Ecotone values", () => {
  // Storage as a Bedrock-format deposit leaves it: no Ecotone scalars, no blob base fee.
  const storage = l1BlockStorage({ ...INFO, baseFeeScalar: 0n, blobBaseFeeScalar: 0n, blobBaseFee: 0n });
  const params = readL1CostParams((slot) => storage.get(slot) ?? 0n, "ecotone");
  assertEquals([params.overhead, params.scalar], [188n, 684_000n]);
  const tx = new Uint8Array(10).fill(1);
  assertEquals(l1Cost("ecotone", params, tx), l1Cost("regolith", params, tx));
});

Deno.test("l1 block info: the dev genesis values give a non-zero L1 fee and no operator fee", () => {
  const storage = l1BlockStorage(DEV_L1_BLOCK_INFO);
  assert(!storage.has(L1_BLOCK_SLOTS.hash), "zero slots are left out");
  const params = readL1CostParams((slot) => storage.get(slot) ?? 0n, "isthmus");
  assert(l1Cost("isthmus", params, new Uint8Array(120).fill(1)).fee > 0n);
  assertEquals(operatorFee("isthmus", params, 21_000n), 0n);
});
