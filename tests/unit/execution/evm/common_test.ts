import { assertEquals, assertThrows } from "../../../assert.ts";
import { createEVM } from "@ethereumjs/evm";
import { createVM } from "@ethereumjs/vm";
import {
  BlockBuilder,
  forkRules,
  hardforkForOp,
  maxInitCodeSize,
  txCommon,
} from "../../../../lib/execution/evm/mod.ts";
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

Deno.test("forkRules: dev mode's codeSizeLimit sets maxCodeSize and twice it maxInitCodeSize, also in the VMs made on it", async () => {
  const plain = opConfig("isthmus");
  const limited = { ...opConfig("isthmus"), codeSizeLimit: 30_000 };
  const rules = forkRules(limited, 0n);
  assertEquals(rules.common.param("maxCodeSize"), 30_000n);
  assertEquals(rules.common.param("maxInitCodeSize"), 60_000n);
  assertEquals(maxInitCodeSize(limited), 60_000);
  // A VM merges its library's default parameters into the Common it is given (and a copy shares the
  // parameter set): the limits must survive that, in the copy and in the cached Common.
  const copy = rules.common.copy();
  const vm = await createVM({ common: copy, stateManager: newState() });
  assertEquals(vm.evm.common.param("maxCodeSize"), 30_000n);
  assertEquals(vm.evm.common.param("maxInitCodeSize"), 60_000n);
  assertEquals(rules.common.param("maxCodeSize"), 30_000n);
  assertEquals(txCommon(rules.common).param("maxInitCodeSize"), 60_000n);
  // Another Common and another VM key than the stock chain's, whose limits stay EIP-170's and EIP-3860's.
  assertEquals(rules.key === forkRules(plain, 0n).key, false);
  assertEquals(forkRules(plain, 0n).common.param("maxCodeSize"), 24_576n);
  assertEquals(forkRules(plain, 0n).common.param("maxInitCodeSize"), 49_152n);
  assertEquals(maxInitCodeSize(plain), 49_152);
  // No limit: the largest safe integer, as anvil's usize::MAX.
  const none = forkRules({ ...opConfig("isthmus"), codeSizeLimit: Number.MAX_SAFE_INTEGER }, 0n);
  assertEquals(none.common.param("maxInitCodeSize"), BigInt(Number.MAX_SAFE_INTEGER));
  // Before Shanghai (Canyon) there is no initcode limit to ask for, overridden or not.
  assertThrows(() =>
    forkRules({ ...opConfig("regolith"), codeSizeLimit: 30_000 }, 0n).common.param("maxInitCodeSize")
  );
  assertEquals(
    forkRules({ ...opConfig("regolith"), codeSizeLimit: 30_000 }, 0n).common.param("maxCodeSize"),
    30_000n,
  );
});
