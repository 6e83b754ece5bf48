import { assertEquals, assertThrows } from "../../../assert.ts";
import { checkExtraData, expectedExtraData, nextBlockBaseFee } from "../../../../lib/execution/evm/mod.ts";
import { genesisHeader, l1Config, opConfig } from "./helpers.ts";

Deno.test("nextBlockBaseFee: OP denominators by fork, Holocene from the parent's extraData, L1 1/8", () => {
  const full = (c: ReturnType<typeof opConfig>, f: Parameters<typeof genesisHeader>[1]) => ({
    ...genesisHeader(c, f),
    gasUsed: 30_000_000n,
  });
  // Parent full, target = limit / 6: increase = base * (used - target) / target / denominator.
  const bedrock = opConfig("bedrock");
  assertEquals(
    nextBlockBaseFee(bedrock, full(bedrock, "bedrock"), 2n),
    1_000_000_000n + 1_000_000_000n * 5n / 50n,
  );
  const canyon = opConfig("canyon");
  assertEquals(
    nextBlockBaseFee(canyon, full(canyon, "canyon"), 2n),
    1_000_000_000n + 1_000_000_000n * 5n / 250n,
  );
  const holocene = opConfig("holocene");
  const parent = { ...full(holocene, "holocene"), extraData: new Uint8Array([0, 0, 0, 0, 10, 0, 0, 0, 2]) };
  assertEquals(nextBlockBaseFee(holocene, parent, 2n), 1_000_000_000n + 1_000_000_000n / 10n);
  const l1 = l1Config();
  assertEquals(nextBlockBaseFee(l1, full(l1, "l1"), 2n), 1_000_000_000n + 1_000_000_000n / 8n);
});

Deno.test("expectedExtraData / checkExtraData: Holocene version 0, Jovian version 1, empty before", () => {
  const holocene = opConfig("holocene");
  const params = new Uint8Array([0, 0, 0, 8, 0, 0, 0, 3]);
  assertEquals(
    expectedExtraData(holocene, { timestamp: 2n, eip1559Params: params }),
    new Uint8Array([0, 0, 0, 0, 8, 0, 0, 0, 3]),
  );
  // All-zero parameters: the chain's Canyon values (250, 6).
  assertEquals(
    expectedExtraData(holocene, { timestamp: 2n, eip1559Params: new Uint8Array(8) }),
    new Uint8Array([0, 0, 0, 0, 250, 0, 0, 0, 6]),
  );
  const jovian = opConfig("jovian");
  assertEquals(
    expectedExtraData(jovian, { timestamp: 2n, eip1559Params: params, minBaseFee: 9n }).length,
    17,
  );
  assertEquals(expectedExtraData(opConfig("ecotone"), { timestamp: 2n }).length, 0);
  checkExtraData(holocene, 2n, new Uint8Array([0, 0, 0, 0, 8, 0, 0, 0, 3]));
  assertThrows(() => checkExtraData(holocene, 2n, new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 3])));
  assertThrows(() => checkExtraData(holocene, 2n, new Uint8Array(10)));
  assertThrows(() => checkExtraData(opConfig("ecotone"), 2n, new Uint8Array([1])));
  assertThrows(() => checkExtraData(l1Config(), 2n, new Uint8Array(33)));
  checkExtraData(l1Config(), 2n, new Uint8Array(32));
});
