import { assertEquals } from "../../../assert.ts";
import { forkRules, hardforkForOp } from "../../../../lib/execution/evm/mod.ts";
import { l1Config, opConfig } from "./helpers.ts";

Deno.test("fork mapping: OP forks onto Ethereum hardforks", () => {
  assertEquals(hardforkForOp("bedrock"), "paris");
  assertEquals(hardforkForOp("regolith"), "paris");
  assertEquals(hardforkForOp("canyon"), "shanghai");
  assertEquals(hardforkForOp("delta"), "shanghai");
  assertEquals(hardforkForOp("ecotone"), "cancun");
  assertEquals(hardforkForOp("holocene"), "cancun");
  assertEquals(hardforkForOp("isthmus"), "prague");
  assertEquals(hardforkForOp("jovian"), "prague");
});

Deno.test("forkRules: by timestamp, one cached Common per hardfork, number chain id", () => {
  const config = opConfig("regolith");
  config.op!.forks.canyon = 10n;
  config.op!.forks.ecotone = 20n;
  assertEquals(forkRules(config, 9n).opFork, "regolith");
  assertEquals(forkRules(config, 10n).hardfork, "shanghai");
  assertEquals(forkRules(config, 20n).common.isActivatedEIP(4788), true);
  assertEquals(forkRules(config, 20n).common, forkRules(config, 25n).common);
  assertEquals(forkRules(config, 0n).common.chainId(), 901n);
  const l1 = forkRules(l1Config(), 0n);
  assertEquals(l1.opFork, undefined);
  assertEquals(l1.hardfork, "prague");
  assertEquals(l1.common.isActivatedEIP(7702), true);
});
