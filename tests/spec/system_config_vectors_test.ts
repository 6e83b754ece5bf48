/**
 * ConfigUpdate vectors transcribed from op-node's own tests: github.com/ethereum-optimism/optimism
 * op-node/rollup/derive/system_config_test.go, `TestProcessSystemConfigUpdateLogEvent` (every case
 * applies one log to a zero SystemConfig; EcotoneTime unset unless stated) and
 * `TestUpdateSystemConfigWithL1Receipts_Atomicity`. The log data there is built with go-ethereum's
 * `abi.Arguments.Pack`; here it is written out as the 32-byte words that call produces.
 * Topic hashes: op-node `ConfigUpdateEventABIHash`, kona `CONFIG_UPDATE_TOPIC`.
 */
import { bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import { isErrorCode } from "../../lib/common/errors.ts";
import type { L1Log } from "../../lib/protocol/deposit_event.ts";
import {
  applySystemConfigLog,
  CONFIG_UPDATE_TOPIC,
  type SystemConfig,
  systemConfigUpdatesFromReceipts,
} from "../../lib/protocol/system_config.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";

const ZERO_WORD = "00".repeat(32);
const PTR = "00".repeat(31) + "20";

/** Concatenate 32-byte words given as hex without 0x. */
function words(...hex: string[]): Uint8Array {
  for (const h of hex) assert(h.length === 64, `word ${h} is not 32 bytes`);
  return hexToBytes("0x" + hex.join(""));
}

function low(hex: string): string {
  return hex.padStart(64, "0");
}

const ZERO: SystemConfig = {
  batcherAddr: new Uint8Array(20),
  overhead: new Uint8Array(32),
  scalar: new Uint8Array(32),
  gasLimit: 0n,
  eip1559Params: new Uint8Array(8),
  operatorFeeParams: new Uint8Array(32),
  minBaseFee: 0n,
  daFootprintGasScalar: 0n,
};

const VERSION_0 = ZERO_WORD;

function log(updateType: number, data: Uint8Array, version = VERSION_0): L1Log {
  return {
    address: new Uint8Array(20),
    topics: [
      CONFIG_UPDATE_TOPIC,
      hexToBytes("0x" + version),
      hexToBytes("0x" + low(updateType.toString(16))),
    ],
    data,
  };
}

interface Case {
  name: string;
  log: L1Log;
  expected: SystemConfig;
  err: boolean;
  ecotoneTime?: bigint;
  l1Time?: bigint;
}

const CASES: Case[] = [
  {
    // addressArgs.Pack(zero address), not wrapped in bytes: the data is never read
    name: "UnsafeBlockSigner",
    log: log(3, words(ZERO_WORD)),
    expected: ZERO,
    err: false,
  },
  {
    name: "Batcher",
    log: log(0, words(PTR, low("20"), low("aa"))),
    expected: { ...ZERO, batcherAddr: hexToBytes("0x" + low("aa").slice(24)) },
    err: false,
  },
  {
    name: "GasConfig",
    log: log(1, words(PTR, low("40"), low("ff"), low("aa"))),
    expected: { ...ZERO, overhead: hexToBytes("0x" + low("ff")), scalar: hexToBytes("0x" + low("aa")) },
    err: false,
  },
  {
    name: "GasLimit",
    log: log(2, words(PTR, low("20"), low("bb"))),
    expected: { ...ZERO, gasLimit: 0xbbn },
    err: false,
  },
  {
    name: "GasConfigEcotone",
    log: log(1, words(PTR, low("40"), low("ff"), "01" + "00".repeat(26) + "b3000000bb")),
    expected: { ...ZERO, scalar: hexToBytes("0x01" + "00".repeat(26) + "b3000000bb") },
    err: false,
    ecotoneTime: 0n,
    l1Time: 200n,
  },
  {
    name: "OneTopic",
    log: { address: new Uint8Array(20), topics: [CONFIG_UPDATE_TOPIC], data: new Uint8Array(0) },
    expected: ZERO,
    err: true,
  },
  {
    name: "EIP1559Params",
    log: log(4, words(PTR, low("20"), low("0102030405060708"))),
    expected: { ...ZERO, eip1559Params: hexToBytes("0x0102030405060708") },
    err: false,
  },
  {
    name: "EIP1559Params_ZeroDenominatorNonZeroElasticity",
    log: log(4, words(PTR, low("20"), low("0000000000000001"))),
    expected: ZERO,
    err: true,
  },
  {
    name: "EIP1559Params_NonZeroDenominatorZeroElasticity",
    log: log(4, words(PTR, low("20"), low("0000000100000000"))),
    expected: ZERO,
    err: true,
  },
  {
    name: "EIP1559Params_BothZero",
    log: log(4, words(PTR, low("20"), ZERO_WORD)),
    expected: ZERO,
    err: false,
  },
  {
    name: "OperatorFeeParams",
    log: log(5, words(PTR, low("20"), low("050000000000070d08"))),
    expected: { ...ZERO, operatorFeeParams: hexToBytes("0x" + low("050000000000070d08")) },
    err: false,
  },
  {
    name: "UpdateMinBaseFee",
    log: log(6, words(PTR, low("20"), low("3b9aca00"))),
    expected: { ...ZERO, minBaseFee: 1_000_000_000n },
    err: false,
  },
  {
    name: "DAFootprintGasScalar",
    log: log(7, words(PTR, low("20"), low("64"))),
    expected: { ...ZERO, daFootprintGasScalar: 100n },
    err: false,
  },
];

Deno.test("system_config vectors: ConfigUpdate topic", () => {
  assertEquals(
    bytesToHex(CONFIG_UPDATE_TOPIC),
    "0x1d2b0bda21d56b8bd12d4f94ebacffdfb35f5e226f84b461103bb8beab6353be",
  );
});

for (const c of CASES) {
  Deno.test(`system_config vectors: op-node TestProcessSystemConfigUpdateLogEvent/${c.name}`, () => {
    const rollup = c.ecotoneTime === undefined ? undefined : { forks: { ecotone: c.ecotoneTime } };
    let config = ZERO;
    let failed = false;
    try {
      config = applySystemConfigLog(ZERO, c.log, c.l1Time ?? 0n, rollup);
    } catch (err) {
      failed = true;
      assert(
        isErrorCode(err, "INVALID_SYSTEM_CONFIG_LOG") || isErrorCode(err, "INVALID_EIP1559_PARAMS"),
        String(err),
      );
    }
    assertEquals(failed, c.err);
    assertEquals(config, c.expected);
  });
}

Deno.test("system_config vectors: op-node TestUpdateSystemConfigWithL1Receipts_Atomicity (invalid updates)", () => {
  const address = hexToBytes("0x" + low("43").slice(24));
  const at = (l: L1Log) => ({ ...l, address });
  const initial: SystemConfig = {
    ...ZERO,
    batcherAddr: hexToBytes("0x" + low("11").slice(24)),
    gasLimit: 0x1234n,
  };
  const batcherData = words(PTR, low("20"), low("aa"));
  const futureType = "61" + "00".repeat(30) + "07";
  const receipts = [
    { status: 1 as const, logs: [at(log(0, batcherData))] },
    { status: 1 as const, logs: [at(log(2, hexToBytes("0x00")))] },
    {
      status: 1 as const,
      logs: [{
        address,
        topics: [CONFIG_UPDATE_TOPIC, hexToBytes("0x" + VERSION_0), hexToBytes("0x" + futureType)],
        data: new Uint8Array(0),
      }],
    },
    { status: 1 as const, logs: [at(log(0, batcherData, low("01")))] },
  ];
  const { config, errors } = systemConfigUpdatesFromReceipts(initial, receipts, address);
  assertEquals(config, { ...initial, batcherAddr: hexToBytes("0x" + low("aa").slice(24)) });
  assertEquals(errors.map((e) => e.error.code), [
    "INVALID_SYSTEM_CONFIG_LOG",
    "UNKNOWN_SYSTEM_CONFIG_UPDATE_TYPE",
    "UNKNOWN_SYSTEM_CONFIG_VERSION",
  ]);
  assert(errors[0].error.message.includes("invalid pointer field"), errors[0].error.message);
  const err = assertThrows(() => applySystemConfigLog(initial, receipts[1].logs[0]));
  assert(isErrorCode(err, "INVALID_SYSTEM_CONFIG_LOG"), String(err));
});

Deno.test("system_config vectors: op-node TestUpdateSystemConfigWithL1Receipts_Atomicity (several receipts)", () => {
  const address = hexToBytes("0x" + low("45").slice(24));
  const receipts = [
    { status: 1 as const, logs: [{ ...log(0, words(PTR, low("20"), low("cc"))), address }] },
    { status: 1 as const, logs: [{ ...log(2, words(PTR, low("20"), low("dd"))), address }] },
    { status: 1 as const, logs: [{ ...log(6, words(PTR, low("20"), low("3b9aca00"))), address }] },
  ];
  const { config, errors } = systemConfigUpdatesFromReceipts(ZERO, receipts, address);
  assertEquals(errors, []);
  assertEquals(config, {
    ...ZERO,
    batcherAddr: hexToBytes("0x" + low("cc").slice(24)),
    gasLimit: 0xddn,
    minBaseFee: 1_000_000_000n,
  });
});
