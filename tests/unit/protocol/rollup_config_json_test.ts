/**
 * op-node's rollup.json shape (lib/protocol/rollup_config_json.ts): every embedded preset parses and
 * round-trips, OP Mainnet's values, the rollupnode_rollupConfig fields of interfaces.md 2.7, and parse
 * errors that name the field (unknown keys, bad hex, numbers beyond JSON's exact range, op-node's checks).
 */
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../assert.ts";
import { BaseError, isErrorCode } from "../../../lib/common/errors.ts";
import { bytesToHex, hexToBytes } from "../../../lib/common/bytes.ts";
import {
  parseRollupConfigJson,
  rollupConfigFromPreset,
  rollupConfigToJson,
} from "../../../lib/protocol/rollup_config_json.ts";
import { toChecksumAddress } from "../../../lib/protocol/rollup_config.ts";
import { getNetworkPreset, NETWORK_NAMES } from "../../../networks/mod.ts";

type Json = Record<string, unknown>;

function opMainnetJson(): Json {
  return getNetworkPreset("op-mainnet").rollupConfigJson;
}

function lowerStrings(value: unknown): unknown {
  if (typeof value === "string") return value.toLowerCase();
  if (Array.isArray(value)) return value.map(lowerStrings);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, lowerStrings(v)]));
  }
  return value;
}

/** Asserts that parsing `json` fails with INVALID_ROLLUP_CONFIG naming `field`. */
function assertInvalid(json: unknown, field: string, text?: string): void {
  const err = assertThrows(() => parseRollupConfigJson(json), BaseError);
  assert(isErrorCode(err, "INVALID_ROLLUP_CONFIG"), `code ${(err as BaseError).code}`);
  assertEquals((err as BaseError).meta.field, field);
  assertStringIncludes(err.message, field);
  if (text) assertStringIncludes(err.message, text);
}

function edit(
  mutate: (j: Json & { genesis: Json & { system_config: Json; l1: Json; l2: Json } }) => void,
): Json {
  const j = opMainnetJson() as Json & { genesis: Json & { system_config: Json; l1: Json; l2: Json } };
  mutate(j);
  return j;
}

Deno.test("rollup.json: all 63 presets parse and round-trip through rollupConfigToJson", () => {
  assertEquals(NETWORK_NAMES.length, 63);
  for (const name of NETWORK_NAMES) {
    const preset = getNetworkPreset(name);
    const cfg = rollupConfigFromPreset(preset);
    assertEquals(cfg.l2ChainId, preset.chainId, name);
    assertEquals(cfg.l1ChainId, preset.l1ChainId, name);
    assertEquals(cfg.blockTime, preset.blockTime, name);
    const json = rollupConfigToJson(cfg);
    // Same fields and values as the preset; only the case of addresses may differ (EIP-55 out).
    assertEquals(lowerStrings(json), lowerStrings(preset.rollupConfigJson), name);
    const again = parseRollupConfigJson(JSON.parse(JSON.stringify(json)));
    assertEquals(again, cfg, name);
  }
});

Deno.test("rollup.json: OP Mainnet values match chains.json", () => {
  const cfg = parseRollupConfigJson(opMainnetJson());
  assertEquals(cfg.l2ChainId, 10n);
  assertEquals(cfg.l1ChainId, 1n);
  assertEquals(cfg.genesis.l2.number, 105235063n);
  assertEquals(
    bytesToHex(cfg.genesis.l2.hash),
    "0xdbf6a80fef073de06add9b0d14026d6e5a86c85f6d102c36d3d8e9cf89c2afd3",
  );
  assertEquals(cfg.genesis.l1.number, 17422590n);
  assertEquals(cfg.genesis.l2Time, 1686068903n);
  assertEquals(cfg.genesis.systemConfig.gasLimit, 30000000n);
  assertEquals(bytesToHex(cfg.genesis.systemConfig.overhead), "0x" + "00".repeat(31) + "bc");
  assertEquals(cfg.blockTime, 2n);
  assertEquals(cfg.seqWindowSize, 3600n);
  assertEquals(cfg.maxSequencerDrift, 600n);
  assertEquals(cfg.channelTimeoutBedrock, 300n);
  assertEquals(cfg.forks, {
    regolith: 0n,
    canyon: 1704992401n,
    delta: 1708560000n,
    ecotone: 1710374401n,
    fjord: 1720627201n,
    granite: 1726070401n,
    holocene: 1736445601n,
    isthmus: 1746806401n,
    jovian: 1764691201n,
  });
  assertEquals(cfg.pectraBlobScheduleTime, undefined);
  assertEquals(toChecksumAddress(cfg.batchInboxAddress), "0xFF00000000000000000000000000000000000010");
  assertEquals(toChecksumAddress(cfg.depositContractAddress), "0xbEb5Fc579115071764c7423A4f12eDde41f106Ed");
  assertEquals(toChecksumAddress(cfg.l1SystemConfigAddress), "0x229047fed2591dbec1eF1118d64F7aF3dB9EB290");
  assertEquals(toChecksumAddress(cfg.protocolVersionsAddress), "0x8062AbC286f5e7D9428a0Ccb9AbD71e50d93b935");
  assertEquals(cfg.chainOpConfig, {
    eip1559Elasticity: 6n,
    eip1559Denominator: 50n,
    eip1559DenominatorCanyon: 250n,
  });
  assertEquals(cfg.altDA, undefined);
});

Deno.test("rollup.json: rollupConfigToJson has every field of interfaces.md 2.7 with its type", () => {
  // op-sepolia's batch inbox is lower case in the registry; the output is checksummed.
  const json = rollupConfigToJson(rollupConfigFromPreset(getNetworkPreset("op-sepolia")));
  const get = (path: string): unknown =>
    path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], json);
  const isInt = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v);
  const isHash = (v: unknown) => typeof v === "string" && /^0x[0-9a-f]{64}$/.test(v);
  const isAddress = (v: unknown) =>
    typeof v === "string" && /^0x[0-9a-fA-F]{40}$/.test(v) && toChecksumAddress(hexToBytes(v)) === v;
  const spec: [string, (v: unknown) => boolean][] = [
    ["genesis.l1.hash", isHash],
    ["genesis.l1.number", isInt],
    ["genesis.l2.hash", isHash],
    ["genesis.l2.number", isInt],
    ["genesis.l2_time", isInt],
    ["genesis.system_config.batcherAddr", isAddress],
    ["genesis.system_config.overhead", isHash],
    ["genesis.system_config.scalar", isHash],
    ["genesis.system_config.gasLimit", isInt],
    ["block_time", isInt],
    ["max_sequencer_drift", isInt],
    ["seq_window_size", isInt],
    ["channel_timeout", isInt],
    ["l1_chain_id", isInt],
    ["l2_chain_id", isInt],
    ["regolith_time", isInt],
    ["canyon_time", isInt],
    ["batch_inbox_address", isAddress],
    ["deposit_contract_address", isAddress],
    ["l1_system_config_address", isAddress],
    ["protocol_versions_address", isAddress],
  ];
  for (const [path, ok] of spec) assert(ok(get(path)), `${path} = ${JSON.stringify(get(path))}`);
  assertEquals(json.batch_inbox_address, "0xff00000000000000000000000000000011155420");
  assertEquals(json.deposit_contract_address, "0x16Fc5058F25648194471939df75CF27A2fdC48BC");
  assertEquals(json.l2_chain_id, 11155420);
  assertEquals(json.channel_timeout, 300);
  // op-node's key order.
  assertEquals(Object.keys(json).slice(0, 8), [
    "genesis",
    "block_time",
    "max_sequencer_drift",
    "seq_window_size",
    "channel_timeout",
    "l1_chain_id",
    "l2_chain_id",
    "regolith_time",
  ]);
});

Deno.test("rollup.json: invalid configs name the field", () => {
  assertInvalid(null, "rollup config", "must be a JSON object");
  assertInvalid(edit((j) => (j.block_time = 0)), "block_time", "greater than 0");
  assertInvalid(edit((j) => (j.seq_window_size = 1)), "seq_window_size", "at least 2");
  assertInvalid(edit((j) => (j.channel_timeout = 0)), "channel_timeout");
  assertInvalid(edit((j) => delete j.channel_timeout), "channel_timeout", "is missing");
  assertInvalid(edit((j) => (j.l1_chain_id = 0)), "l1_chain_id", "greater than 0");
  assertInvalid(edit((j) => (j.l2_chain_id = 0)), "l2_chain_id", "greater than 0");
  assertInvalid(edit((j) => (j.l2_chain_id = 1)), "l2_chain_id", "must differ from l1_chain_id");
  assertInvalid(edit((j) => (j.genesis.l2_time = 0)), "genesis.l2_time");
  assertInvalid(edit((j) => delete j.genesis.l1.hash), "genesis.l1.hash", "is missing");
  assertInvalid(edit((j) => (j.genesis.l1.hash = "0x1234")), "genesis.l1.hash", "32 bytes");
  assertInvalid(edit((j) => (j.genesis.l2.hash = "0x" + "00".repeat(32))), "genesis.l2.hash", "empty");
  assertInvalid(edit((j) => (j.genesis.l2.hash = j.genesis.l1.hash)), "genesis.l2.hash", "differ");
  assertInvalid(
    edit((j) => (j.genesis.system_config.batcherAddr = "0x" + "00".repeat(20))),
    "genesis.system_config.batcherAddr",
  );
  assertInvalid(
    edit((j) => (j.genesis.system_config.scalar = "0x" + "00".repeat(32))),
    "genesis.system_config.scalar",
  );
  assertInvalid(edit((j) => (j.genesis.system_config.gasLimit = 0)), "genesis.system_config.gasLimit");
  assertInvalid(
    edit((j) => (j.genesis.system_config.gasLimit = -1)),
    "genesis.system_config.gasLimit",
    "outside",
  );
  assertInvalid(edit((j) => (j.batch_inbox_address = "0x" + "00".repeat(20))), "batch_inbox_address");
  assertInvalid(edit((j) => (j.deposit_contract_address = "0xzz")), "deposit_contract_address", "20 bytes");
  assertInvalid(edit((j) => delete j.l1_system_config_address), "l1_system_config_address", "is missing");
  assertInvalid(edit((j) => (j.block_time = "2")), "block_time", "must be an integer");
  assertInvalid(edit((j) => (j.block_time = 2.5)), "block_time", "must be an integer");
  assertInvalid(edit((j) => (j.l2_chain_id = 2 ** 60)), "l2_chain_id", "exact range");
  assertInvalid(edit((j) => (j.karst_time = 1)), "karst_time", "not a known field");
  assertInvalid(
    edit((j) => (j.genesis.system_config.extra = 1)),
    "genesis.system_config.extra",
    "not a known field",
  );
  assertInvalid(
    edit((j) => (j.genesis.system_config.eip1559Params = "0x01")),
    "genesis.system_config.eip1559Params",
  );
});

Deno.test("rollup.json: fork order is enforced like op-node's checkFork", () => {
  assertInvalid(edit((j) => (j.delta_time = 1704992400)), "delta_time", "before the prior fork canyon");
  assertInvalid(edit((j) => delete j.canyon_time), "delta_time", "prior fork canyon is not");
  assertInvalid(edit((j) => (j.regolith_time = 1800000000)), "canyon_time", "before the prior fork regolith");
  assertInvalid(edit((j) => (j.interop_time = 1)), "interop_time", "before the prior fork isthmus");
  // Forks after the last scheduled one may simply be absent; equal times are fine.
  const ok = parseRollupConfigJson(edit((j) => {
    delete j.jovian_time;
    delete j.isthmus_time;
    j.holocene_time = j.granite_time;
  }));
  assertEquals(ok.forks.holocene, ok.forks.granite);
  assertEquals(ok.forks.isthmus, undefined);
});

Deno.test("rollup.json: optional fields and alt-DA", () => {
  // max_sequencer_drift may be omitted only when Fjord is active at genesis.
  assertInvalid(edit((j) => delete j.max_sequencer_drift), "max_sequencer_drift", "Fjord");
  const unichain = getNetworkPreset("unichain-mainnet").rollupConfigJson;
  delete unichain.max_sequencer_drift;
  assertEquals(parseRollupConfigJson(unichain).maxSequencerDrift, 0n);
  // A missing overhead and protocol_versions_address decode as zero, as in op-node.
  const noOverhead = parseRollupConfigJson(edit((j) => {
    delete j.genesis.system_config.overhead;
    delete j.protocol_versions_address;
    delete j.chain_op_config;
  }));
  assertEquals(noOverhead.genesis.systemConfig.overhead, new Uint8Array(32));
  assertEquals(noOverhead.protocolVersionsAddress, new Uint8Array(20));
  assertEquals(noOverhead.chainOpConfig, undefined);
  // Holocene / Isthmus system config fields survive a round trip.
  const withParams = parseRollupConfigJson(edit((j) => {
    j.genesis.system_config.eip1559Params = "0x000000fa00000006";
    j.genesis.system_config.operatorFeeParams = "0x" + "00".repeat(31) + "07";
    j.pectra_blob_schedule_time = 1742486400;
  }));
  assertEquals(bytesToHex(withParams.genesis.systemConfig.eip1559Params!), "0x000000fa00000006");
  assertEquals(parseRollupConfigJson(rollupConfigToJson(withParams)), withParams);
  assertEquals(withParams.pectraBlobScheduleTime, 1742486400n);

  const redstone = rollupConfigFromPreset(getNetworkPreset("redstone-mainnet"));
  assertEquals(redstone.altDA?.commitmentType, "KeccakCommitment");
  assert(redstone.altDA?.daChallengeAddress?.some((b) => b !== 0));
  const celo = rollupConfigFromPreset(getNetworkPreset("celo-sep-sepolia"));
  assertEquals(celo.altDA?.commitmentType, "GenericCommitment");
  const altDA = (over: Json) =>
    edit((j) => (j.alt_da = { da_challenge_window: 1, da_resolve_window: 1, ...over }));
  assertInvalid(
    altDA({ da_commitment_type: "KeccakCommitment" }),
    "alt_da.da_challenge_contract_address",
    "keccak",
  );
  assertInvalid(
    altDA({ da_commitment_type: "GenericCommitment", da_challenge_contract_address: "0x" + "01".repeat(20) }),
    "alt_da.da_challenge_contract_address",
    "generic",
  );
  assertInvalid(altDA({ da_commitment_type: "Foo" }), "alt_da.da_commitment_type", "Foo");
  assertEquals(
    parseRollupConfigJson(altDA({ da_commitment_type: "GenericCommitment" })).altDA?.daChallengeAddress,
    undefined,
  );
});
