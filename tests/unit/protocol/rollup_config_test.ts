/**
 * The rollup config's rules (lib/protocol/rollup_config.ts): op-node's `Config.Check()` on config
 * objects, fork overrides, the Granite / Fjord derived limits, block number <-> timestamp, and the
 * EIP-55 checksum. The rollup.json codec is tested in rollup_config_json_test.ts.
 */
import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { BaseError, isErrorCode } from "../../../lib/common/errors.ts";
import { hexToBytes } from "../../../lib/common/bytes.ts";
import {
  applyForkOverrides,
  channelTimeout,
  checkRollupConfig,
  isPectraBlobScheduleActive,
  isRollupForkActive,
  maxChannelBankSize,
  maxRlpBytesPerChannel,
  maxSequencerDrift,
  type RollupConfig,
  targetBlockNumber,
  timestampForBlock,
  toChecksumAddress,
} from "../../../lib/protocol/rollup_config.ts";
import { rollupConfigFromPreset } from "../../../lib/protocol/rollup_config_json.ts";
import { getNetworkPreset } from "../../../networks/mod.ts";

/** Asserts that checkRollupConfig rejects `cfg` with INVALID_ROLLUP_CONFIG naming `field`. */
function assertRejected(cfg: RollupConfig, field: string, text: string): void {
  const err = assertThrows(() => checkRollupConfig(cfg), BaseError, text);
  assert(isErrorCode(err, "INVALID_ROLLUP_CONFIG"), `code ${(err as BaseError).code}`);
  assertEquals((err as BaseError).meta.field, field);
}

Deno.test("rollup config: checkRollupConfig applies op-node's Config.Check to config objects", () => {
  const cfg = rollupConfigFromPreset(getNetworkPreset("op-mainnet"));
  checkRollupConfig(cfg);
  const forks = (over: RollupConfig["forks"]): RollupConfig => ({ ...cfg, forks: { ...cfg.forks, ...over } });
  assertRejected(forks({ delta: cfg.forks.canyon! - 1n }), "delta_time", "before the prior fork canyon");
  assertRejected(forks({ jovian: cfg.forks.isthmus! - 1n }), "jovian_time", "before the prior fork isthmus");
  const { ecotone: _, ...noEcotone } = cfg.forks;
  assertRejected({ ...cfg, forks: noEcotone }, "fjord_time", "prior fork ecotone is not");
  // Equal times and absent later forks are fine.
  const { jovian: _j, interop: _i, ...noJovian } = cfg.forks;
  checkRollupConfig({ ...cfg, forks: { ...noJovian, isthmus: cfg.forks.holocene } });
  assertRejected({ ...cfg, blockTime: 0n }, "block_time", "greater than 0");
  assertRejected({ ...cfg, l2ChainId: cfg.l1ChainId }, "l2_chain_id", "must differ from l1_chain_id");
  assertRejected(
    { ...cfg, genesis: { ...cfg.genesis, l2: { ...cfg.genesis.l2, hash: cfg.genesis.l1.hash } } },
    "genesis.l2.hash",
    "differ",
  );
  // max_sequencer_drift 0 is allowed only with Fjord at genesis.
  assertRejected({ ...cfg, maxSequencerDrift: 0n }, "max_sequencer_drift", "Fjord");
  const t = cfg.genesis.l2Time;
  const fjordAtGenesis = forks({ regolith: t, canyon: t, delta: t, ecotone: t, fjord: t }).forks;
  checkRollupConfig({ ...cfg, maxSequencerDrift: 0n, forks: fjordAtGenesis });
});

Deno.test("rollup config: EIP-55 checksum (vectors in tests/spec/rollup_config_test.ts)", () => {
  // The registry writes some addresses in lower case; they come out checksummed.
  const portal = hexToBytes("0x16fc5058f25648194471939df75cf27a2fdc48bc");
  assertEquals(toChecksumAddress(portal), "0x16Fc5058F25648194471939df75CF27A2fdC48BC");
  assertThrows(() => toChecksumAddress(new Uint8Array(19)), BaseError, "length is 19");
});

Deno.test("rollup config: fork overrides replace a fork time when given, including 0 (op-node ctx.IsSet)", () => {
  const cfg = rollupConfigFromPreset(getNetworkPreset("op-mainnet"));
  const before = structuredClone(cfg.forks);
  const out = applyForkOverrides(cfg, { jovian: 1900000000n, interop: 2000000000n, pectrablobschedule: 5n });
  assertEquals(out.forks.jovian, 1900000000n);
  assertEquals(out.forks.interop, 2000000000n);
  assertEquals(out.pectraBlobScheduleTime, 5n);
  assertEquals(out.forks.isthmus, cfg.forks.isthmus);
  assertEquals(cfg.forks, before, "the input is not mutated");
  assertEquals(cfg.pectraBlobScheduleTime, undefined);
  // 0 is a value: the fork activates at genesis.
  const genesis = applyForkOverrides(cfg, { canyon: 0n });
  assertEquals(genesis.forks.canyon, 0n);
  assert(isRollupForkActive(genesis, "canyon", cfg.genesis.l2Time));
  // Undefined entries are ignored; no overrides is the identity.
  assertEquals(applyForkOverrides(cfg, { delta: undefined }), cfg);
  // The result is re-validated.
  const err = assertThrows(() => applyForkOverrides(cfg, { delta: 1n }), BaseError, "delta_time");
  assert(isErrorCode(err, "INVALID_ROLLUP_CONFIG"));
  assertThrows(() => applyForkOverrides(cfg, { bogus: 1n } as never), BaseError, "unknown fork bogus");
  assertThrows(() => applyForkOverrides(cfg, { holocene: -1n }), BaseError, "override.holocene");
});

Deno.test("rollup config: Granite channel timeout, Fjord sequencer drift and limits", () => {
  const cfg: RollupConfig = rollupConfigFromPreset(getNetworkPreset("op-mainnet"));
  const granite = cfg.forks.granite!;
  const fjord = cfg.forks.fjord!;
  assertEquals(channelTimeout(cfg, granite - 1n), 300n);
  assertEquals(channelTimeout(cfg, granite), 50n);
  assertEquals(maxSequencerDrift(cfg, fjord - 1n), 600n);
  assertEquals(maxSequencerDrift(cfg, fjord), 1800n);
  assertEquals(maxChannelBankSize(cfg, fjord - 1n), 100_000_000n);
  assertEquals(maxChannelBankSize(cfg, fjord), 1_000_000_000n);
  assertEquals(maxRlpBytesPerChannel(cfg, fjord - 1n), 10_000_000n);
  assertEquals(maxRlpBytesPerChannel(cfg, fjord), 100_000_000n);
  // A chain without Granite keeps its configured timeout.
  const swan = rollupConfigFromPreset(getNetworkPreset("swan-mainnet"));
  assertEquals(channelTimeout(swan, 10n ** 12n), 300n);
  assertEquals(maxSequencerDrift(swan, 10n ** 12n), swan.maxSequencerDrift);
  assert(!isRollupForkActive(swan, "fjord", 10n ** 12n));
  assert(isRollupForkActive(swan, "bedrock", 0n));
  const sepolia = rollupConfigFromPreset(getNetworkPreset("base-devnet-0-sepolia-dev-0"));
  assert(!isPectraBlobScheduleActive(sepolia, 1742486399n));
  assert(isPectraBlobScheduleActive(sepolia, 1742486400n));
  assert(!isPectraBlobScheduleActive(cfg, 10n ** 12n));
});

Deno.test("rollup config: block number and timestamp from genesis", () => {
  const cfg = rollupConfigFromPreset(getNetworkPreset("op-mainnet"));
  assertEquals(timestampForBlock(cfg, 105235063n), 1686068903n);
  assertEquals(timestampForBlock(cfg, 105235064n), 1686068905n);
  assertEquals(targetBlockNumber(cfg, 1686068903n), 105235063n);
  assertEquals(targetBlockNumber(cfg, 1686068906n), 105235064n);
  assertThrows(() => timestampForBlock(cfg, 1n), BaseError, "before L2 genesis");
  assertThrows(() => targetBlockNumber(cfg, 1n), BaseError, "before L2 genesis time");
});
