import { assertEquals, assertThrows } from "../../../assert.ts";
import { createEVM } from "@ethereumjs/evm";
import { BlockBuilder, forkRules, hardforkForOp, txCommon } from "../../../../lib/execution/evm/mod.ts";
import { attributes, genesisHeader, l1Config, newState, opConfig } from "./helpers.ts";

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

Deno.test("forkRules: building many blocks leaves no listeners on the cached Common", async () => {
  const config = opConfig("ecotone");
  const sm = newState();
  for (let i = 0; i < 3; i++) {
    const b = await BlockBuilder.open(config, genesisHeader(config, "ecotone"), attributes("ecotone"), {
      stateManager: sm,
    });
    await b.abort();
  }
  const common = forkRules(config, 2n).common;
  assertEquals(common.events.listenerCount("hardforkChanged"), 0);
  await createEVM({ common });
  assertEquals(common.events.listenerCount("hardforkChanged"), 0);
});

Deno.test("txCommon: shared view that cannot copy, re-merge or change hardfork", () => {
  const common = forkRules(opConfig("ecotone"), 0n).common;
  const view = txCommon(common);
  assertEquals(view.copy(), view);
  assertEquals(txCommon(common), view);
  assertEquals(view.hardfork(), "cancun");
  view.setHardfork("cancun");
  assertThrows(() => view.setHardfork("prague"));
  assertEquals(common.hardfork(), "cancun");
});

Deno.test("forkRules: isActivatedEIP is a Set lookup with the stock answers, on copies and after setHardfork", () => {
  const stock = (c: { _activatedEIPsCache: number[] }, eip: number) => c._activatedEIPsCache.includes(eip);
  for (const config of [opConfig("bedrock"), opConfig("ecotone"), opConfig("jovian"), l1Config()]) {
    const common = forkRules(config, 0n).common;
    const copy = common.copy();
    for (const c of [common, copy, txCommon(common)]) {
      const raw = c as unknown as { _activatedEIPsCache: number[] };
      for (let eip = 1; eip < 8300; eip++) assertEquals(c.isActivatedEIP(eip), stock(raw, eip), `EIP-${eip}`);
    }
    // A copy that changes hardfork answers for its new fork (Common replaces the array).
    copy.setHardfork("osaka");
    const raw = copy as unknown as { _activatedEIPsCache: number[] };
    assertEquals(copy.isActivatedEIP(7594), stock(raw, 7594));
    assertEquals(copy.isActivatedEIP(7594), true);
    copy.setEIPs([7928]);
    assertEquals(copy.isActivatedEIP(7928), true);
  }
});
