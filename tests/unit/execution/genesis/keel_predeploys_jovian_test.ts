/**
 * keel's L1Block and GasPriceOracle under Jovian, run in a real EVM on the dev genesis state:
 * - the Jovian L1-info deposit that lib/protocol encodes (jovian/l1-attributes.md) writes every value
 *   the getters, `l1BlockStorage` and `readL1CostParams(…, "jovian")` read (jovian/exec-engine.md
 *   "Scalar loading": daFootprintGasScalar is a uint16 in slot 8 at offset 12);
 * - `setJovian` only from the depositor, once, after Isthmus (jovian/derivation.md "GasPriceOracle Enable
 *   Jovian", specs/experimental/contracts/L2/gas-price-oracle.md "setJovian");
 * - `getOperatorFee` against lib/protocol/l1_cost.ts `operatorFee` before and after Jovian
 *   (jovian/exec-engine.md "Fee Formula Update"), the L1 data fee unchanged by Jovian;
 * - the dev genesis with Jovian active sets isJovian and the default DA footprint gas scalar.
 */
import { assert, assertEquals, assertThrows } from "../../../assert.ts";
import { bigIntToBytes, bytesToBigInt, bytesToHex, concatBytes } from "../../../../lib/common/bytes.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import {
  buildL2Alloc,
  implementationAddress,
  KEEL_PREDEPLOYS,
  type L2AllocOptions,
} from "../../../../lib/execution/genesis/mod.ts";
import {
  GAS_PRICE_ORACLE_ADDRESS,
  L1_ATTRIBUTES_DEPOSITOR_ADDRESS,
  L1_BLOCK_ADDRESS,
} from "../../../../lib/protocol/predeploys.ts";
import {
  decodeL1InfoCalldata,
  encodeL1InfoCalldata,
  L1_BLOCK_SLOTS,
  L1_INFO_LENGTHS,
  L1_INFO_SELECTORS,
  type L1BlockInfo,
  l1BlockStorage,
  type L1InfoFormat,
  readL1CostParams,
} from "../../../../lib/protocol/l1_block_info.ts";
import { DEFAULT_DA_FOOTPRINT_GAS_SCALAR, operatorFee } from "../../../../lib/protocol/l1_cost.ts";
import type { OpFork } from "../../../../lib/protocol/hardforks.ts";
import {
  bytesArg,
  call,
  devState,
  MAX_UINT256,
  revertReason,
  run,
  selector,
  TIMESTAMP,
  u256,
  word,
} from "./predeploy_calls.ts";

const enc = new TextEncoder();
const DEPOSITOR = { caller: L1_ATTRIBUTES_DEPOSITOR_ADDRESS, commit: true };
const STRANGER = bigIntToBytes(0xbeefn, 20);

const INFO: L1BlockInfo = {
  number: 0x1234_5678n,
  timestamp: TIMESTAMP + 12n,
  baseFee: 7_000_000_123n,
  blockHash: keccak256(enc.encode("jovian l1 block")),
  sequenceNumber: 2n,
  batcherHash: u256(0xba7c4e7n),
  l1FeeOverhead: 0n,
  l1FeeScalar: 0n,
  blobBaseFee: 99n,
  baseFeeScalar: 0x0102_0304n,
  blobBaseFeeScalar: 0x0a0b_0c0dn,
  operatorFeeScalar: 0xf1f2_f3f4n,
  operatorFeeConstant: 0x0102_0304_0506_0708n,
  daFootprintGasScalar: 0xabcdn,
};

/** The L1Block getters and the value each must return for `info`. */
function getters(info: L1BlockInfo): [string, bigint][] {
  return [
    ["number()", info.number],
    ["timestamp()", info.timestamp],
    ["basefee()", info.baseFee],
    ["hash()", bytesToBigInt(info.blockHash)],
    ["sequenceNumber()", info.sequenceNumber],
    ["batcherHash()", bytesToBigInt(info.batcherHash)],
    ["blobBaseFee()", info.blobBaseFee],
    ["baseFeeScalar()", info.baseFeeScalar],
    ["blobBaseFeeScalar()", info.blobBaseFeeScalar],
    ["operatorFeeScalar()", info.operatorFeeScalar],
    ["operatorFeeConstant()", info.operatorFeeConstant],
    ["daFootprintGasScalar()", info.daFootprintGasScalar],
  ];
}

Deno.test("keel predeploys (Jovian): lib/protocol's L1-info selectors and lengths are the contract's", () => {
  const abi = new Set(
    (KEEL_PREDEPLOYS.L1Block.abi as { type: string; name?: string; inputs?: { type: string }[] }[])
      .filter((e) => e.type === "function")
      .map((e) => `${e.name}(${(e.inputs ?? []).map((i) => i.type).join(",")})`),
  );
  const signatures: Record<L1InfoFormat, string> = {
    bedrock: "setL1BlockValues(uint64,uint64,uint256,bytes32,uint64,bytes32,uint256,uint256)",
    ecotone: "setL1BlockValuesEcotone()",
    isthmus: "setL1BlockValuesIsthmus()",
    jovian: "setL1BlockValuesJovian()",
  };
  for (const [format, signature] of Object.entries(signatures) as [L1InfoFormat, string][]) {
    assert(abi.has(signature), `L1Block has ${signature}`);
    assertEquals(bytesToHex(L1_INFO_SELECTORS[format]), bytesToHex(selector(signature)), format);
  }
  // jovian/l1-attributes.md: 0x3db6be2b, the Isthmus layout and a uint16 at bytes 176-177.
  assertEquals(bytesToHex(L1_INFO_SELECTORS.jovian), "0x3db6be2b");
  const data = encodeL1InfoCalldata("jovian", INFO);
  assertEquals(data.length, L1_INFO_LENGTHS.jovian);
  assertEquals(data.length, 178);
  assertEquals(bytesToHex(data.subarray(176)), "0xabcd");
  assertEquals(
    bytesToHex(data.subarray(4, 176)),
    bytesToHex(encodeL1InfoCalldata("isthmus", INFO).subarray(4)),
  );
  assertEquals(decodeL1InfoCalldata(data).info.daFootprintGasScalar, INFO.daFootprintGasScalar);
});

Deno.test("keel predeploys (Jovian): an L1-info deposit sets every getter and the slots readL1CostParams reads", async () => {
  const sm = await devState({ upTo: "jovian" });
  const data = encodeL1InfoCalldata("jovian", INFO);

  const stranger = await run(sm, L1_BLOCK_ADDRESS, data, { caller: STRANGER, commit: true });
  assert(!stranger.ok);
  assertEquals(bytesToHex(stranger.data), bytesToHex(selector("NotDepositor()")));
  // The dev genesis value is still there: DA footprint scalar 400, nothing else in slot 8.
  assertEquals(await word(sm, L1_BLOCK_ADDRESS, L1_BLOCK_SLOTS.operatorFee), 400n << 96n);

  assert((await run(sm, L1_BLOCK_ADDRESS, data, DEPOSITOR)).ok);
  for (const [sig, expected] of getters(INFO)) {
    assertEquals(await call(sm, L1_BLOCK_ADDRESS, selector(sig)), expected, sig);
  }
  const storage = l1BlockStorage(INFO);
  for (const slot of [0n, 1n, 2n, 3n, 4n, 7n, 8n]) {
    assertEquals(await word(sm, L1_BLOCK_ADDRESS, slot), storage.get(slot) ?? 0n, `slot ${slot}`);
  }
  // Slot 8 packs, from the low-order end: constant (8 bytes), scalar (4), DA footprint scalar (2).
  assertEquals(
    bytesToHex(u256(await word(sm, L1_BLOCK_ADDRESS, 8n)).subarray(18)),
    "0xabcdf1f2f3f40102030405060708",
  );
  // The implementation's own storage is untouched: the proxy delegates.
  assertEquals(await word(sm, implementationAddress(L1_BLOCK_ADDRESS), 8n), 0n);

  // What the execution engine reads out of the same storage.
  const slots = new Map<bigint, bigint>();
  for (let slot = 0n; slot <= 8n; slot++) slots.set(slot, await word(sm, L1_BLOCK_ADDRESS, slot));
  const params = readL1CostParams((slot) => slots.get(slot) ?? 0n, "jovian");
  assertEquals(params.l1BaseFee, INFO.baseFee);
  assertEquals(params.l1BlobBaseFee, INFO.blobBaseFee);
  assertEquals(params.baseFeeScalar, INFO.baseFeeScalar);
  assertEquals(params.blobBaseFeeScalar, INFO.blobBaseFeeScalar);
  assertEquals(params.operatorFeeScalar, INFO.operatorFeeScalar);
  assertEquals(params.operatorFeeConstant, INFO.operatorFeeConstant);
  assertEquals(params.daFootprintGasScalar, INFO.daFootprintGasScalar);
  // The GasPriceOracle reads the new values through L1Block.
  assertEquals(await call(sm, GAS_PRICE_ORACLE_ADDRESS, selector("baseFeeScalar()")), INFO.baseFeeScalar);
  assertEquals(await call(sm, GAS_PRICE_ORACLE_ADDRESS, selector("blobBaseFee()")), INFO.blobBaseFee);

  // Extremes of every packed field survive the round trip.
  const max: L1BlockInfo = {
    ...INFO,
    number: (1n << 64n) - 1n,
    timestamp: (1n << 64n) - 1n,
    sequenceNumber: (1n << 64n) - 1n,
    baseFee: MAX_UINT256,
    blobBaseFee: MAX_UINT256,
    baseFeeScalar: 0xffff_ffffn,
    blobBaseFeeScalar: 0xffff_ffffn,
    operatorFeeScalar: 0xffff_ffffn,
    operatorFeeConstant: (1n << 64n) - 1n,
    daFootprintGasScalar: 0xffffn,
  };
  assert((await run(sm, L1_BLOCK_ADDRESS, encodeL1InfoCalldata("jovian", max), DEPOSITOR)).ok);
  for (const [sig, expected] of getters(max)) {
    assertEquals(await call(sm, L1_BLOCK_ADDRESS, selector(sig)), expected, `max ${sig}`);
  }
  // A zero scalar is stored as given (the derivation pipeline puts the default 400 in the calldata).
  const zero = { ...INFO, daFootprintGasScalar: 0n };
  assert((await run(sm, L1_BLOCK_ADDRESS, encodeL1InfoCalldata("jovian", zero), DEPOSITOR)).ok);
  assertEquals(await call(sm, L1_BLOCK_ADDRESS, selector("daFootprintGasScalar()")), 0n);
  assertEquals(await word(sm, L1_BLOCK_ADDRESS, 8n), l1BlockStorage(zero).get(8n));

  // An Isthmus-format deposit (the Jovian activation block's) writes slot 8 whole: the DA scalar is 0.
  assert((await run(sm, L1_BLOCK_ADDRESS, encodeL1InfoCalldata("jovian", INFO), DEPOSITOR)).ok);
  const isthmus = { ...INFO, sequenceNumber: 3n, operatorFeeScalar: 5n, operatorFeeConstant: 6n };
  assert((await run(sm, L1_BLOCK_ADDRESS, encodeL1InfoCalldata("isthmus", isthmus), DEPOSITOR)).ok);
  assertEquals(await word(sm, L1_BLOCK_ADDRESS, 8n), (5n << 64n) | 6n);
  assertEquals(await call(sm, L1_BLOCK_ADDRESS, selector("daFootprintGasScalar()")), 0n);
  // An Ecotone-format deposit leaves slot 8 alone.
  assert((await run(sm, L1_BLOCK_ADDRESS, encodeL1InfoCalldata("jovian", INFO), DEPOSITOR)).ok);
  assert((await run(sm, L1_BLOCK_ADDRESS, encodeL1InfoCalldata("ecotone", INFO), DEPOSITOR)).ok);
  assertEquals(await word(sm, L1_BLOCK_ADDRESS, 8n), l1BlockStorage(INFO).get(8n));
});

Deno.test("keel predeploys (Jovian): setJovian only from the depositor, once, after Isthmus", async () => {
  const set = selector("setJovian()");
  const isJovian = selector("isJovian()");
  const holocene = await devState({ upTo: "holocene" });
  const early = await run(holocene, GAS_PRICE_ORACLE_ADDRESS, set, DEPOSITOR);
  assert(!early.ok);
  assertEquals(revertReason(early.data), "GasPriceOracle: Jovian can only be activated after Isthmus");
  assertEquals(await call(holocene, GAS_PRICE_ORACLE_ADDRESS, isJovian), 0n);

  const sm = await devState({ upTo: "isthmus" });
  assertEquals(await call(sm, GAS_PRICE_ORACLE_ADDRESS, isJovian), 0n);
  const stranger = await run(sm, GAS_PRICE_ORACLE_ADDRESS, set, { caller: STRANGER, commit: true });
  assert(!stranger.ok);
  assertEquals(
    revertReason(stranger.data),
    "GasPriceOracle: only the depositor account can set isJovian flag",
  );
  assertEquals(await call(sm, GAS_PRICE_ORACLE_ADDRESS, isJovian), 0n);

  assert((await run(sm, GAS_PRICE_ORACLE_ADDRESS, set, DEPOSITOR)).ok);
  assertEquals(await call(sm, GAS_PRICE_ORACLE_ADDRESS, isJovian), 1n);
  // isEcotone, isFjord, isIsthmus, isJovian packed in slot 0 of the proxy.
  assertEquals(await word(sm, GAS_PRICE_ORACLE_ADDRESS, 0n), 0x0101_0101n);
  const again = await run(sm, GAS_PRICE_ORACLE_ADDRESS, set, DEPOSITOR);
  assert(!again.ok);
  assertEquals(revertReason(again.data), "GasPriceOracle: Jovian already active");
});

/** getOperatorFee(gas) of the oracle at `sm`. */
const gpoOperatorFee = (sm: Awaited<ReturnType<typeof devState>>, gas: bigint) =>
  call(sm, GAS_PRICE_ORACLE_ADDRESS, concatBytes(selector("getOperatorFee(uint256)"), u256(gas)));

Deno.test("keel predeploys (Jovian): getOperatorFee before and after setJovian equals l1_cost.ts operatorFee", async () => {
  const sm = await devState({ upTo: "isthmus" });
  // Parameters from an L1-info deposit, as a chain would get them.
  const info = { ...INFO, operatorFeeScalar: 2_500_000n, operatorFeeConstant: 7_000n };
  assert((await run(sm, L1_BLOCK_ADDRESS, encodeL1InfoCalldata("isthmus", info), DEPOSITOR)).ok);
  const slots = new Map<bigint, bigint>();
  for (let slot = 0n; slot <= 8n; slot++) slots.set(slot, await word(sm, L1_BLOCK_ADDRESS, slot));
  const gases = [0n, 1n, 21_000n, 999_999n, 30_000_000n, (1n << 64n) - 1n];
  const check = async (fork: OpFork) => {
    const params = readL1CostParams((slot) => slots.get(slot) ?? 0n, fork);
    for (const gas of gases) {
      assertEquals(await gpoOperatorFee(sm, gas), operatorFee(fork, params, gas), `${fork} gas ${gas}`);
    }
  };
  await check("isthmus");
  assertEquals(await gpoOperatorFee(sm, 21_000n), 21_000n * 2_500_000n / 1_000_000n + 7_000n);

  // The L1 data fee does not change with Jovian (specs/experimental/contracts/L2/gas-price-oracle.md).
  const tx = keccak256(enc.encode("tx")).subarray(0, 30);
  const l1Calls = [
    bytesArg("getL1Fee(bytes)", tx),
    bytesArg("getL1GasUsed(bytes)", tx),
    concatBytes(selector("getL1FeeUpperBound(uint256)"), u256(500n)),
  ];
  const before = await Promise.all(l1Calls.map((d) => call(sm, GAS_PRICE_ORACLE_ADDRESS, d)));
  assert(before[0] > 0n, "a non-zero L1 fee to compare");

  assert((await run(sm, GAS_PRICE_ORACLE_ADDRESS, selector("setJovian()"), DEPOSITOR)).ok);
  await check("jovian");
  // jovian/exec-engine.md: gas * scalar * 100 + constant (no division).
  assertEquals(await gpoOperatorFee(sm, 21_000n), 21_000n * 2_500_000n * 100n + 7_000n);
  assertEquals(await gpoOperatorFee(sm, 0n), 7_000n);
  assertEquals(
    await Promise.all(l1Calls.map((d) => call(sm, GAS_PRICE_ORACLE_ADDRESS, d))),
    before,
    "L1 fee, gas used and upper bound as before Jovian",
  );
  // The largest fee a uint64 gas can produce fits (103 bits, jovian/exec-engine.md "Maximum value").
  const top = { ...info, operatorFeeScalar: 0xffff_ffffn, operatorFeeConstant: (1n << 64n) - 1n };
  assert((await run(sm, L1_BLOCK_ADDRESS, encodeL1InfoCalldata("jovian", top), DEPOSITOR)).ok);
  assertEquals(
    await gpoOperatorFee(sm, (1n << 64n) - 1n),
    ((1n << 64n) - 1n) * 0xffff_ffffn * 100n + (1n << 64n) - 1n,
  );
  // A gas argument whose fee overflows uint256 reverts with Panic(0x11) (checked arithmetic).
  const overflow = await run(
    sm,
    GAS_PRICE_ORACLE_ADDRESS,
    concatBytes(selector("getOperatorFee(uint256)"), u256(MAX_UINT256)),
  );
  assert(!overflow.ok);
  assertEquals(bytesToHex(overflow.data), bytesToHex(concatBytes(selector("Panic(uint256)"), u256(0x11n))));
});

Deno.test("keel predeploys (Jovian): the dev genesis with Jovian active sets isJovian and the DA scalar", async () => {
  const sm = await devState({ upTo: "jovian" });
  for (const flag of ["isEcotone()", "isFjord()", "isIsthmus()", "isJovian()"]) {
    assertEquals(await call(sm, GAS_PRICE_ORACLE_ADDRESS, selector(flag)), 1n, flag);
  }
  assertEquals(
    await call(sm, L1_BLOCK_ADDRESS, selector("daFootprintGasScalar()")),
    DEFAULT_DA_FOOTPRINT_GAS_SCALAR,
  );
  const priced = await devState({
    upTo: "jovian",
    l1BlockOperatorFee: { operatorFeeScalar: 3n, operatorFeeConstant: 11n },
  });
  assertEquals(await gpoOperatorFee(priced, 1_000n), 1_000n * 3n * 100n + 11n);
  assertEquals(await call(priced, L1_BLOCK_ADDRESS, selector("daFootprintGasScalar()")), 400n);
  // Isthmus at genesis: not yet.
  const isthmus = await devState({ upTo: "isthmus" });
  assertEquals(await call(isthmus, GAS_PRICE_ORACLE_ADDRESS, selector("isJovian()")), 0n);
  assertEquals(await word(isthmus, GAS_PRICE_ORACLE_ADDRESS, 0n), 0x01_0101n);
  assertEquals(await call(isthmus, L1_BLOCK_ADDRESS, selector("daFootprintGasScalar()")), 0n);
});

Deno.test("keel predeploys (Jovian): buildL2Alloc writes isJovian and wants Isthmus first", () => {
  const a = (n: number) => bigIntToBytes(BigInt(n), 20);
  const vault = { recipient: a(2), minWithdrawalAmount: 1n, withdrawalNetwork: 0 as const };
  const options: L2AllocOptions = {
    l1ChainId: 900n,
    l2ChainId: 901n,
    proxyAdminOwner: a(1),
    sequencerFeeVault: vault,
    baseFeeVault: vault,
    l1FeeVault: vault,
    l1CrossDomainMessenger: a(5),
    l1StandardBridge: a(6),
    l1ERC721Bridge: a(7),
    gasPriceOracle: { ecotone: true, fjord: true, isthmus: true, jovian: true },
    preinstalls: false,
    historyStorage: false,
    precompileBalances: false,
  };
  const alloc = buildL2Alloc(options);
  assertEquals(
    alloc[bytesToHex(GAS_PRICE_ORACLE_ADDRESS)].storage?.[bytesToHex(u256(0n))],
    bytesToHex(u256(0x0101_0101n)),
  );
  assertThrows(
    () => buildL2Alloc({ ...options, gasPriceOracle: { ecotone: true, fjord: true, jovian: true } }),
    BaseError,
    "Isthmus before Jovian",
  );
  // The L1Block implementation in the alloc is keel's compiled Jovian-level one.
  const impl = alloc[bytesToHex(implementationAddress(L1_BLOCK_ADDRESS))];
  assertEquals(impl.code, KEEL_PREDEPLOYS.L1Block.deployedBytecode.object);
  assert(impl.code?.includes(bytesToHex(L1_INFO_SELECTORS.jovian).slice(2)), "dispatches the Jovian setter");
});
