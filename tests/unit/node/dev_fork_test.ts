/**
 * Fork mode's reading of an OP block's fork from its header (dev_fork.ts opForkOfHeader): the fields each
 * fork's exec-engine.md added; fork_history.ts joinFeeHistory. The fork mode itself runs on real processes in tests/e2e/dev_fork_test.ts.
 */
import { assertEquals } from "../../assert.ts";
import { opForkOfHeader, presetChainConfig } from "../../../lib/node/dev_fork.ts";
import { joinFeeHistory } from "../../../lib/node/fork_history.ts";
import { activeFork } from "../../../lib/protocol/hardforks.ts";
import { parseChainConfig } from "../../../lib/protocol/chain_config.ts";

const ZERO32 = `0x${"00".repeat(32)}`;

Deno.test("opForkOfHeader: Jovian, Isthmus, Holocene, Ecotone..Granite, Canyon/Delta, Bedrock/Regolith", () => {
  const base = {
    extraData: "0x",
    requestsHash: undefined,
    parentBeaconBlockRoot: undefined,
    withdrawalsRoot: undefined,
  };
  // jovian/exec-engine.md: version 1, denominator, elasticity, minBaseFee (17 bytes).
  assertEquals(
    opForkOfHeader({
      ...base,
      extraData: `0x01${"00".repeat(16)}`,
      requestsHash: ZERO32,
      parentBeaconBlockRoot: ZERO32,
    }),
    "jovian",
  );
  assertEquals(
    opForkOfHeader({
      ...base,
      extraData: `0x00${"00".repeat(8)}`,
      requestsHash: ZERO32,
      parentBeaconBlockRoot: ZERO32,
    }),
    "isthmus",
  );
  // holocene/exec-engine.md: version 0, denominator, elasticity (9 bytes).
  assertEquals(
    opForkOfHeader({ ...base, extraData: `0x00${"00".repeat(8)}`, parentBeaconBlockRoot: ZERO32 }),
    "holocene",
  );
  assertEquals(
    opForkOfHeader({ ...base, parentBeaconBlockRoot: ZERO32, withdrawalsRoot: ZERO32 }),
    "granite",
  );
  assertEquals(opForkOfHeader({ ...base, withdrawalsRoot: ZERO32 }), "delta");
  assertEquals(opForkOfHeader(base), "regolith");
});

Deno.test("presetChainConfig: a fork of a known network runs its fork schedule and EIP-1559 parameters", () => {
  // op-mainnet (chain id 10) from the embedded superchain presets.
  const preset = presetChainConfig(10n, 10n)!;
  assertEquals(preset.config.chainId, 10);
  assertEquals([preset.config.ecotoneTime, preset.config.cancunTime], [1710374401, 1710374401]);
  assertEquals([preset.config.isthmusTime, preset.config.pragueTime], [1746806401, 1746806401]);
  assertEquals(preset.config.canyonTime, preset.config.shanghaiTime);
  assertEquals(preset.config.optimism, {
    eip1559Denominator: 50,
    eip1559DenominatorCanyon: 250,
    eip1559Elasticity: 6,
  });
  // A block between Ecotone and Fjord runs Ecotone (the header alone could not tell it from Granite).
  assertEquals(activeFork(preset.forks, 1715000000n), "ecotone");
  assertEquals(activeFork(preset.forks, 1764691201n), "jovian");
  // The chain id a fork is given (--networkid) names the chain; the remote's finds the preset.
  assertEquals(presetChainConfig(901n, 10n)!.config.chainId, 901);
  assertEquals(presetChainConfig(901n, 901n), undefined);
  // It parses as a chain config.
  assertEquals(parseChainConfig(preset.config).op?.forks.fjord, 1720627201n);
});

Deno.test("joinFeeHistory: the remote's blocks then the fork's, the remote's next base fee left out; lists it lacks filled", () => {
  const theirs = {
    oldestBlock: "0x8",
    baseFeePerGas: ["0x10", "0x11", "0x12"],
    gasUsedRatio: [0.5, 0.25],
    reward: [["0x1"], ["0x2"]],
  };
  const ours = {
    oldestBlock: "0xa",
    baseFeePerGas: ["0x13", "0x14"],
    gasUsedRatio: [0],
    baseFeePerBlobGas: ["0x1", "0x1"],
    blobGasUsedRatio: [0],
    reward: [["0x0"]],
  };
  assertEquals(joinFeeHistory(theirs, ours), {
    oldestBlock: "0x8",
    baseFeePerGas: ["0x10", "0x11", "0x13", "0x14"],
    gasUsedRatio: [0.5, 0.25, 0],
    baseFeePerBlobGas: ["0x0", "0x0", "0x1", "0x1"],
    blobGasUsedRatio: [0, 0, 0],
    reward: [["0x1"], ["0x2"], ["0x0"]],
  });
  // Without reward percentiles neither has a reward list.
  const { reward: _t, ...plainTheirs } = theirs;
  const { reward: _o, ...plainOurs } = ours;
  assertEquals("reward" in joinFeeHistory(plainTheirs, plainOurs), false);
});
