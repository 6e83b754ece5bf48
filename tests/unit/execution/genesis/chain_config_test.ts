/** parseChainConfig (lib/protocol/chain_config.ts): op-geth `config` JSON -> ChainConfig. */
import { assertEquals, assertThrows } from "../../../assert.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import { parseChainConfig } from "../../../../lib/protocol/chain_config.ts";

const L1_BLOCKS = {
  homesteadBlock: 0,
  eip150Block: 0,
  eip155Block: 0,
  eip158Block: 0,
  byzantiumBlock: 0,
  constantinopleBlock: 0,
  petersburgBlock: 0,
  istanbulBlock: 0,
  muirGlacierBlock: 0,
  berlinBlock: 0,
  londonBlock: 0,
  arrowGlacierBlock: 0,
  grayGlacierBlock: 0,
  mergeNetsplitBlock: 0,
};

/** The shape of an OP Mainnet op-geth config (superchain registry values). */
const OP_MAINNET = {
  chainId: 10,
  ...L1_BLOCKS,
  bedrockBlock: 105235063,
  terminalTotalDifficulty: 0,
  regolithTime: 0,
  canyonTime: 1704992401,
  deltaTime: 1708560000,
  ecotoneTime: 1710374401,
  fjordTime: 1720627201,
  graniteTime: 1726070401,
  holoceneTime: 1736445601,
  isthmusTime: 1746806401,
  optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
};

Deno.test("chain config: OP chain forks, derived L1 forks and EIP-1559 params", () => {
  const c = parseChainConfig(OP_MAINNET);
  assertEquals(c.chainId, 10n);
  assertEquals(c.op?.forks.canyon, 1704992401n);
  assertEquals(c.op?.forks.isthmus, 1746806401n);
  assertEquals(c.op?.forks.jovian, undefined);
  assertEquals(c.op?.eip1559, { elasticity: 6n, denominator: 50n, denominatorCanyon: 250n });
  // Shanghai = Canyon, Cancun = Ecotone, Prague = Isthmus when not given.
  assertEquals(c.l1, { shanghaiTime: 1704992401n, cancunTime: 1710374401n, pragueTime: 1746806401n });
  assertEquals(c.extras.bedrockBlock, 105235063n);
  assertEquals(c.extras.blockForks.london, 0n);
});

Deno.test("chain config: explicit L1 times win over derived ones; hex and decimal strings parse", () => {
  const c = parseChainConfig({
    ...OP_MAINNET,
    chainId: "0xa",
    shanghaiTime: "1704992400",
    cancunTime: "0x65f23e01",
  });
  assertEquals(c.chainId, 10n);
  assertEquals(c.l1.shanghaiTime, 1704992400n);
  assertEquals(c.l1.cancunTime, 0x65f23e01n);
  assertEquals(c.l1.pragueTime, 1746806401n);
});

Deno.test("chain config: an L1 chain has no op section and keeps blobSchedule and TTD", () => {
  const c = parseChainConfig({
    chainId: 1,
    ...L1_BLOCKS,
    terminalTotalDifficulty: "58750000000000000000000",
    shanghaiTime: 1681338455,
    cancunTime: 1710338135,
    blobSchedule: { cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 } },
    depositContractAddress: "0x00000000219ab540356cbb839cbe05303d7705fa",
  });
  assertEquals(c.op, undefined);
  assertEquals(c.l1, { shanghaiTime: 1681338455n, cancunTime: 1710338135n });
  assertEquals(c.extras.terminalTotalDifficulty, 58750000000000000000000n);
  assertEquals(c.extras.blobSchedule?.cancun, { target: 3n, max: 6n, baseFeeUpdateFraction: 3338477n });
  assertEquals(c.extras.depositContractAddress?.length, 20);
});

Deno.test("chain config: errors name the field", () => {
  const bad = (json: unknown, text: string) => {
    const err = assertThrows(() => parseChainConfig(json), BaseError, text) as BaseError;
    assertEquals(err.code, "INVALID_CHAIN_CONFIG");
  };
  bad({ homesteadBlock: 0 }, "chainId is required");
  bad({ chainId: 0 }, "chainId must not be 0");
  bad({ chainId: -1 }, "chainId");
  bad({ chainId: "ten" }, "chainId");
  bad({ chainId: 1, homesteadBlock: 5, eip150Block: 2 }, "eip150Block (2) is before homesteadBlock (5)");
  bad(
    { chainId: 1, homesteadBlock: 0, byzantiumBlock: 0 },
    "byzantiumBlock is set but the earlier eip158Block is not",
  );
  bad({ chainId: 1, ...L1_BLOCKS, cancunTime: 5 }, "cancunTime is set but the earlier shanghaiTime is not");
  bad({ chainId: 1, shanghaiTime: 0 }, "shanghaiTime is set but londonBlock is not");
  bad({ ...OP_MAINNET, graniteTime: 1 }, "graniteTime (1) is before fjordTime");
  bad({ ...OP_MAINNET, deltaTime: undefined }, "ecotoneTime is set but the earlier deltaTime is not");
  bad({ ...OP_MAINNET, optimism: {} }, "optimism.eip1559Elasticity is required");
  bad({ ...OP_MAINNET, optimism: { ...OP_MAINNET.optimism, eip1559Denominator: 0 } }, "must not be 0");
  bad({ ...OP_MAINNET, chainId: 2 ** 60 }, "quote large numbers");
  bad("not an object", "config must be a JSON object");
});

Deno.test("chain config: a Canyon-less OP chain may omit eip1559DenominatorCanyon", () => {
  const c = parseChainConfig({
    chainId: 901,
    ...L1_BLOCKS,
    bedrockBlock: 0,
    regolithTime: 0,
    optimism: { eip1559Elasticity: 6, eip1559Denominator: 50 },
  });
  assertEquals(c.op?.eip1559.denominatorCanyon, 50n);
  assertEquals(c.l1, {});
});

Deno.test("chain config: a fork keel does not implement is refused when scheduled, accepted when null", () => {
  for (
    const [field, at] of [["karstTime", 1783526401], ["bpo1Time", 0], ["amsterdamTime", "0x10"]] as const
  ) {
    const e = assertThrows(() => parseChainConfig({ ...OP_MAINNET, [field]: at }), BaseError) as BaseError;
    assertEquals(e.code, "INVALID_CHAIN_CONFIG");
    assertEquals(e.meta?.field, field);
    assertEquals(e.message.includes(`${field} schedules a fork keel does not implement`), true, e.message);
  }
  // op-geth writes no field for a fork not scheduled; null says the same.
  assertEquals(parseChainConfig({ ...OP_MAINNET, karstTime: null }), parseChainConfig(OP_MAINNET));
  // Fields that merely end like a fork's are not forks unless named so: other keys stay ignored.
  assertEquals(parseChainConfig({ ...OP_MAINNET, daoForkSupport: true }), parseChainConfig(OP_MAINNET));
});
