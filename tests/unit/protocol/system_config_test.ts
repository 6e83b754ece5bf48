import { encodeAbiParameters, encodeEventTopics, parseAbiItem } from "viem";
import { bigIntToBytes, bytesToHex, concatBytes, hexToBytes } from "../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import type { L1Log, L1Receipt } from "../../../lib/protocol/deposit_event.ts";
import type { GenesisSystemConfig } from "../../../lib/protocol/rollup_config.ts";
import {
  applySystemConfigLog,
  CONFIG_UPDATE_TOPIC,
  CONFIG_UPDATE_VERSION_0,
  decodeEcotoneScalars,
  decodeOperatorFeeParams,
  encodeEcotoneScalar,
  encodeOperatorFeeParams,
  encodeSystemConfigLog,
  SYSTEM_CONFIG_UPDATE_TYPE,
  type SystemConfig,
  systemConfigFromGenesis,
  type SystemConfigUpdate,
  systemConfigUpdatesFromReceipts,
} from "../../../lib/protocol/system_config.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";

const SYS = hexToBytes("0x229047fed2591dbec1eF1118d64F7aF3dB9EB290");
const OTHER = hexToBytes("0x8efB6B5c4767B09Dc9AA6Af4eAA89F749522BaE2");
const BATCHER = hexToBytes("0x6887246668a3b87F54DeB3b94Ba47a6f63F32985");
const ECOTONE = { forks: { ecotone: 1000n } };

const BASE: SystemConfig = {
  batcherAddr: hexToBytes("0x00000000000000000000000000000000000000b0"),
  overhead: bigIntToBytes(188n, 32),
  scalar: bigIntToBytes(684_000n, 32),
  gasLimit: 30_000_000n,
  eip1559Params: new Uint8Array(8),
  operatorFeeParams: new Uint8Array(32),
  minBaseFee: 0n,
  daFootprintGasScalar: 0n,
};

function word(value: bigint): Uint8Array {
  return bigIntToBytes(value, 32);
}

/** A ConfigUpdate log of `type` with raw data. */
function rawLog(type: number, data: Uint8Array, version = 0n): L1Log {
  return { address: SYS, topics: [CONFIG_UPDATE_TOPIC, word(version), word(BigInt(type))], data };
}

/** abi.encode(bytes(payload)). */
function abiBytes(payload: Uint8Array): Uint8Array {
  return concatBytes(word(32n), word(BigInt(payload.length)), payload);
}

function expectError(fn: () => unknown, code: string, fragment: string): void {
  const err = assertThrows(fn);
  assert(isErrorCode(err, code), `${code}: ${err}`);
  assert(err.message.includes(fragment), err.message);
}

function apply(
  update: SystemConfigUpdate,
  l1Time = 0n,
  rollup?: { forks: { ecotone?: bigint } },
): SystemConfig {
  return applySystemConfigLog(BASE, encodeSystemConfigLog(SYS, update), l1Time, rollup);
}

Deno.test("system_config: topic 0 and update type numbers", () => {
  assertEquals(
    bytesToHex(CONFIG_UPDATE_TOPIC),
    "0x1d2b0bda21d56b8bd12d4f94ebacffdfb35f5e226f84b461103bb8beab6353be",
  );
  assertEquals(CONFIG_UPDATE_VERSION_0, new Uint8Array(32));
  assertEquals(SYSTEM_CONFIG_UPDATE_TYPE, {
    batcher: 0,
    feeScalars: 1,
    gasLimit: 2,
    unsafeBlockSigner: 3,
    eip1559Params: 4,
    operatorFeeParams: 5,
    minBaseFee: 6,
    daFootprintGasScalar: 7,
  });
});

Deno.test("system_config: genesis config fills absent fields with zeros and copies the rest", () => {
  const genesis: GenesisSystemConfig = {
    batcherAddr: BATCHER,
    overhead: new Uint8Array(32),
    scalar: encodeEcotoneScalar({ baseFeeScalar: 1368n, blobBaseFeeScalar: 810949n }),
    gasLimit: 60_000_000n,
  };
  const cfg = systemConfigFromGenesis(genesis);
  assertEquals(cfg, {
    ...genesis,
    eip1559Params: new Uint8Array(8),
    operatorFeeParams: new Uint8Array(32),
    minBaseFee: 0n,
    daFootprintGasScalar: 0n,
  });
  assert(cfg.batcherAddr !== genesis.batcherAddr);
  const withParams = systemConfigFromGenesis({ ...genesis, eip1559Params: hexToBytes("0x000000fa00000006") });
  assertEquals(withParams.eip1559Params, hexToBytes("0x000000fa00000006"));
  // a SystemConfig is usable where a GenesisSystemConfig is expected
  const back: GenesisSystemConfig = cfg;
  assertEquals(back.gasLimit, 60_000_000n);
});

Deno.test("system_config: each update type round-trips through its log", () => {
  assertEquals(apply({ type: "batcher", batcherAddr: BATCHER }), { ...BASE, batcherAddr: BATCHER });
  assertEquals(apply({ type: "gasLimit", gasLimit: 60_000_000n }), { ...BASE, gasLimit: 60_000_000n });
  assertEquals(apply({ type: "unsafeBlockSigner", signer: BATCHER }), BASE);
  assertEquals(apply({ type: "eip1559Params", denominator: 250n, elasticity: 6n }), {
    ...BASE,
    eip1559Params: hexToBytes("0x000000fa00000006"),
  });
  assertEquals(apply({ type: "operatorFeeParams", operatorFeeScalar: 5n, operatorFeeConstant: 2008n }), {
    ...BASE,
    operatorFeeParams: hexToBytes("0x" + "00".repeat(23) + "05" + "00000000000007d8"),
  });
  assertEquals(apply({ type: "minBaseFee", minBaseFee: 10n ** 9n }), { ...BASE, minBaseFee: 10n ** 9n });
  assertEquals(apply({ type: "daFootprintGasScalar", daFootprintGasScalar: 400n }), {
    ...BASE,
    daFootprintGasScalar: 400n,
  });
  const fee = { type: "feeScalars" as const, overhead: word(2100n), scalar: word(1_000_000n) };
  assertEquals(apply(fee), { ...BASE, overhead: word(2100n), scalar: word(1_000_000n) });
});

Deno.test("system_config: the input config is not changed", () => {
  const before = structuredClone(BASE);
  apply({ type: "batcher", batcherAddr: BATCHER });
  apply({ type: "gasLimit", gasLimit: 1n });
  assertEquals(BASE, before);
});

Deno.test("system_config: FEE_SCALARS from Ecotone keeps a valid versioned scalar and zeroes the overhead", () => {
  const v1 = encodeEcotoneScalar({ baseFeeScalar: 1368n, blobBaseFeeScalar: 810949n });
  const update = { type: "feeScalars" as const, overhead: word(188n), scalar: v1 };
  // before Ecotone (by L1 time) both are stored as given
  assertEquals(apply(update, 999n, ECOTONE), { ...BASE, overhead: word(188n), scalar: v1 });
  // without a rollup config: pre-Ecotone rules
  assertEquals(apply(update, 5000n), { ...BASE, overhead: word(188n), scalar: v1 });
  assertEquals(apply(update, 1000n, ECOTONE), { ...BASE, overhead: new Uint8Array(32), scalar: v1 });
  // version 0 with clean padding is valid from Ecotone
  const v0 = word(684_000n);
  assertEquals(apply({ ...update, scalar: v0 }, 1000n, ECOTONE), {
    ...BASE,
    overhead: new Uint8Array(32),
    scalar: v0,
  });
});

Deno.test("system_config: invalid Ecotone scalars are ignored without error (op-node)", () => {
  const dirtyV0 = word(684_000n);
  dirtyV0[5] = 1;
  const dirtyV1 = encodeEcotoneScalar({ baseFeeScalar: 1n, blobBaseFeeScalar: 2n });
  dirtyV1[23] = 1;
  const v2 = word(1n);
  v2[0] = 2;
  for (const scalar of [dirtyV0, dirtyV1, v2]) {
    assertEquals(apply({ type: "feeScalars", overhead: word(1n), scalar }, 1000n, ECOTONE), BASE);
    // pre-Ecotone they are just uint256 values
    assertEquals(apply({ type: "feeScalars", overhead: word(1n), scalar }, 999n, ECOTONE).scalar, scalar);
  }
});

Deno.test("system_config: encoding equals viem's ABI encoding of ConfigUpdate", () => {
  const event = parseAbiItem(
    "event ConfigUpdate(uint256 indexed version, uint8 indexed updateType, bytes data)",
  );
  const cases: [SystemConfigUpdate, `0x${string}`][] = [
    [
      { type: "batcher", batcherAddr: BATCHER },
      encodeAbiParameters([{ type: "address" }], [bytesToHex(BATCHER)]),
    ],
    [
      { type: "feeScalars", overhead: word(188n), scalar: word(684_000n) },
      encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [188n, 684_000n]),
    ],
    [{ type: "gasLimit", gasLimit: 30_000_000n }, encodeAbiParameters([{ type: "uint64" }], [30_000_000n])],
    [
      { type: "eip1559Params", denominator: 250n, elasticity: 6n },
      encodeAbiParameters([{ type: "uint256" }], [(250n << 32n) | 6n]),
    ],
    [
      { type: "operatorFeeParams", operatorFeeScalar: 7n, operatorFeeConstant: 9n },
      encodeAbiParameters([{ type: "uint256" }], [(7n << 64n) | 9n]),
    ],
    [{ type: "minBaseFee", minBaseFee: 10n ** 9n }, encodeAbiParameters([{ type: "uint64" }], [10n ** 9n])],
    [
      { type: "daFootprintGasScalar", daFootprintGasScalar: 400n },
      encodeAbiParameters([{ type: "uint16" }], [400]),
    ],
  ];
  for (const [update, payload] of cases) {
    const log = encodeSystemConfigLog(SYS, update);
    const topics = encodeEventTopics({
      abi: [event],
      eventName: "ConfigUpdate",
      args: { version: 0n, updateType: SYSTEM_CONFIG_UPDATE_TYPE[update.type] },
    });
    assertEquals(log.topics.map(bytesToHex), topics, update.type);
    assertEquals(bytesToHex(log.data), encodeAbiParameters([{ type: "bytes" }], [payload]), update.type);
  }
});

Deno.test("system_config: topic count, topic 0, version and update type are checked", () => {
  const log = encodeSystemConfigLog(SYS, { type: "gasLimit", gasLimit: 1n });
  expectError(
    () => applySystemConfigLog(BASE, { ...log, topics: [CONFIG_UPDATE_TOPIC] }),
    "INVALID_SYSTEM_CONFIG_LOG",
    "expected 3 event topics",
  );
  expectError(
    () => applySystemConfigLog(BASE, { ...log, topics: [...log.topics, word(0n)] }),
    "INVALID_SYSTEM_CONFIG_LOG",
    "got 4",
  );
  expectError(
    () => applySystemConfigLog(BASE, { ...log, topics: [word(1n), log.topics[1], log.topics[2]] }),
    "INVALID_SYSTEM_CONFIG_LOG",
    "topic 0 is not ConfigUpdate",
  );
  expectError(
    () => applySystemConfigLog(BASE, rawLog(2, log.data, 1n)),
    "UNKNOWN_SYSTEM_CONFIG_VERSION",
    "version 0x" + "00".repeat(31) + "01",
  );
  expectError(
    () => applySystemConfigLog(BASE, rawLog(8, log.data)),
    "UNKNOWN_SYSTEM_CONFIG_UPDATE_TYPE",
    "type 0x",
  );
  // op-node compares the whole 32-byte topic: a known low byte with high bytes set is unknown
  const dirtyType = word(7n);
  dirtyType[0] = 0x61;
  expectError(
    () => applySystemConfigLog(BASE, { ...log, topics: [log.topics[0], log.topics[1], dirtyType] }),
    "UNKNOWN_SYSTEM_CONFIG_UPDATE_TYPE",
    "0x61",
  );
});

Deno.test("system_config: the ABI pointer, length, padding and size of data are checked", () => {
  const bad = (type: number, data: Uint8Array, fragment: string) =>
    expectError(() => applySystemConfigLog(BASE, rawLog(type, data)), "INVALID_SYSTEM_CONFIG_LOG", fragment);
  const gas = word(30_000_000n);
  bad(2, new Uint8Array([0]), "invalid pointer field");
  bad(2, concatBytes(word(64n), word(32n), gas), "invalid pointer field");
  const dirtyPointer = word(32n);
  dirtyPointer[0] = 1;
  bad(2, concatBytes(dirtyPointer, word(32n), gas), "invalid pointer field");
  bad(2, word(32n), "invalid length field");
  bad(2, concatBytes(word(32n), word(64n), gas), "invalid length field");
  bad(1, abiBytes(word(1n)), "invalid length field"); // FEE_SCALARS needs 64
  bad(0, concatBytes(word(32n), word(32n)), "could not read address");
  bad(0, concatBytes(word(32n), word(32n), new Uint8Array(31)), "could not read address");
  bad(0, abiBytes(new Uint8Array(32).fill(1)), "could not read address");
  bad(0, concatBytes(abiBytes(word(1n)), new Uint8Array(1)), "too many bytes");
  bad(1, concatBytes(word(32n), word(64n), word(1n)), "could not read scalar");
  bad(1, concatBytes(word(32n), word(64n)), "could not read overhead");
  bad(1, concatBytes(abiBytes(concatBytes(word(1n), word(2n))), word(0n)), "too many bytes");
  const bigGas = word(1n << 64n);
  bad(2, abiBytes(bigGas), "could not read gas limit");
  bad(2, concatBytes(abiBytes(gas), new Uint8Array(32)), "too many bytes");
  bad(4, concatBytes(word(32n), word(32n), new Uint8Array(8)), "could not read eip-1559 params");
  bad(5, concatBytes(word(32n), word(32n)), "could not read operator fee params");
  bad(6, abiBytes(word(1n << 64n)), "could not read minBaseFee");
  bad(7, abiBytes(word(1n << 16n)), "could not read DA footprint gas scalar");
  bad(7, concatBytes(abiBytes(word(1n)), new Uint8Array(32)), "too many bytes");
  // UNSAFE_BLOCK_SIGNER data is never read
  assertEquals(applySystemConfigLog(BASE, rawLog(3, new Uint8Array([1, 2, 3]))), BASE);
});

Deno.test("system_config: EIP-1559 params must be both zero or both non-zero", () => {
  const eip = (params: bigint) => applySystemConfigLog(BASE, rawLog(4, abiBytes(word(params))));
  expectError(() => eip(1n), "INVALID_EIP1559_PARAMS", "denominator 0 and elasticity 1");
  expectError(() => eip(1n << 32n), "INVALID_EIP1559_PARAMS", "denominator 1 and elasticity 0");
  assertEquals(eip(0n).eip1559Params, new Uint8Array(8));
  // only bytes [24, 32) are kept (op-node copies params[24:32])
  assertEquals(eip((1n << 200n) | (250n << 32n) | 6n).eip1559Params, hexToBytes("0x000000fa00000006"));
});

Deno.test("system_config: Ecotone scalar helpers decode both versions", () => {
  assertEquals(
    encodeEcotoneScalar({ baseFeeScalar: 0xbbn, blobBaseFeeScalar: 0xb3n }),
    hexToBytes("0x01" + "00".repeat(23) + "000000b3" + "000000bb"),
  );
  assertEquals(
    decodeEcotoneScalars(encodeEcotoneScalar({ baseFeeScalar: 1368n, blobBaseFeeScalar: 810949n })),
    {
      baseFeeScalar: 1368n,
      blobBaseFeeScalar: 810949n,
    },
  );
  assertEquals(decodeEcotoneScalars(word(684_000n)), { baseFeeScalar: 684_000n, blobBaseFeeScalar: 0n });
  const dirtyV0 = word(5n);
  dirtyV0[10] = 1;
  // spec: non-zero padding in a version-0 scalar means baseFeeScalar = MaxUint32
  assertEquals(decodeEcotoneScalars(dirtyV0), { baseFeeScalar: 0xffff_ffffn, blobBaseFeeScalar: 0n });
  const dirtyV1 = encodeEcotoneScalar({ baseFeeScalar: 1n, blobBaseFeeScalar: 1n });
  dirtyV1[1] = 1;
  expectError(() => decodeEcotoneScalars(dirtyV1), "INVALID_FEE_SCALAR", "padding");
  const v2 = word(1n);
  v2[0] = 2;
  expectError(() => decodeEcotoneScalars(v2), "INVALID_FEE_SCALAR", "unknown version 2");
  expectError(() => decodeEcotoneScalars(new Uint8Array(31)), "INVALID_FEE_SCALAR", "length is 31");
  expectError(
    () => encodeEcotoneScalar({ baseFeeScalar: 1n << 32n, blobBaseFeeScalar: 0n }),
    "INVALID_FEE_SCALAR",
    "baseFeeScalar",
  );
});

Deno.test("system_config: operator fee params helpers", () => {
  const params = encodeOperatorFeeParams({
    operatorFeeScalar: 0xffff_ffffn,
    operatorFeeConstant: (1n << 64n) - 1n,
  });
  assertEquals(params, hexToBytes("0x" + "00".repeat(20) + "ff".repeat(12)));
  assertEquals(decodeOperatorFeeParams(params), {
    operatorFeeScalar: 0xffff_ffffn,
    operatorFeeConstant: (1n << 64n) - 1n,
  });
  expectError(
    () => encodeOperatorFeeParams({ operatorFeeScalar: 1n << 32n, operatorFeeConstant: 0n }),
    "INVALID_OPERATOR_FEE_PARAMS",
    "operatorFeeScalar",
  );
  expectError(() => decodeOperatorFeeParams(new Uint8Array(8)), "INVALID_OPERATOR_FEE_PARAMS", "length is 8");
});

Deno.test("system_config: encodeSystemConfigLog rejects out-of-range values", () => {
  const bad = (update: SystemConfigUpdate, fragment: string) =>
    expectError(() => encodeSystemConfigLog(SYS, update), "INVALID_SYSTEM_CONFIG_UPDATE", fragment);
  bad({ type: "gasLimit", gasLimit: 1n << 64n }, "gasLimit");
  bad({ type: "daFootprintGasScalar", daFootprintGasScalar: 1n << 16n }, "daFootprintGasScalar");
  bad({ type: "eip1559Params", denominator: 1n << 32n, elasticity: 1n }, "denominator");
  bad({ type: "batcher", batcherAddr: new Uint8Array(32) }, "batcherAddr is 32 bytes");
  bad({ type: "feeScalars", overhead: new Uint8Array(31), scalar: word(1n) }, "overhead is 31 bytes");
  expectError(
    () => encodeSystemConfigLog(new Uint8Array(3), { type: "gasLimit", gasLimit: 1n }),
    "INVALID_SYSTEM_CONFIG_UPDATE",
    "SystemConfig address",
  );
});

Deno.test("system_config: receipts: valid updates apply in order, bad ones are reported and skipped", () => {
  const log = (update: SystemConfigUpdate, address = SYS) => encodeSystemConfigLog(address, update);
  const receipts: L1Receipt[] = [
    {
      status: 1,
      logs: [log({ type: "batcher", batcherAddr: BATCHER }), log({ type: "gasLimit", gasLimit: 1n })],
    },
    { status: 1, logs: [rawLog(2, new Uint8Array([0]))] }, // malformed gas limit
    { status: 0, logs: [log({ type: "gasLimit", gasLimit: 2n })] }, // failed receipt
    { status: 1, logs: [log({ type: "gasLimit", gasLimit: 3n }, OTHER)] }, // other contract (e.g. ProtocolVersions)
    { status: 1, logs: [{ address: SYS, topics: [word(5n)], data: new Uint8Array(0) }] }, // other event
    { status: 1, logs: [{ address: SYS, topics: [], data: new Uint8Array(0) }] }, // anonymous
    { status: 1, logs: [rawLog(9, new Uint8Array(0)), rawLog(0, abiBytes(word(1n)), 1n)] }, // unknown type, version
    { status: 1, logs: [log({ type: "minBaseFee", minBaseFee: 7n })] },
  ];
  const { config, errors } = systemConfigUpdatesFromReceipts(BASE, receipts, SYS);
  assertEquals(config, { ...BASE, batcherAddr: BATCHER, gasLimit: 1n, minBaseFee: 7n });
  assertEquals(errors.map((e) => [e.receipt, e.log, e.error.code]), [
    [1, 0, "INVALID_SYSTEM_CONFIG_LOG"],
    [6, 0, "UNKNOWN_SYSTEM_CONFIG_UPDATE_TYPE"],
    [6, 1, "UNKNOWN_SYSTEM_CONFIG_VERSION"],
  ]);
  assert(errors[0].error.message.includes("invalid pointer field"), errors[0].error.message);
  assertEquals(systemConfigUpdatesFromReceipts(BASE, [], SYS), { config: BASE, errors: [] });
});

Deno.test("system_config: receipts: the Ecotone rule follows the L1 time given", () => {
  const v1 = encodeEcotoneScalar({ baseFeeScalar: 1n, blobBaseFeeScalar: 2n });
  const receipts: L1Receipt[] = [{
    status: 1,
    logs: [encodeSystemConfigLog(SYS, { type: "feeScalars", overhead: word(9n), scalar: v1 })],
  }];
  assertEquals(systemConfigUpdatesFromReceipts(BASE, receipts, SYS, 999n, ECOTONE).config.overhead, word(9n));
  assertEquals(
    systemConfigUpdatesFromReceipts(BASE, receipts, SYS, 1000n, ECOTONE).config.overhead,
    new Uint8Array(32),
  );
});
