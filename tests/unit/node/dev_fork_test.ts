/**
 * Fork mode's reading of an OP block's fork from its header (dev_fork.ts opForkOfHeader): the fields each
 * fork's exec-engine.md added. The fork mode itself runs on real processes in tests/e2e/dev_fork_test.ts.
 */
import { assertEquals } from "../../assert.ts";
import { opForkOfHeader } from "../../../lib/node/dev_fork.ts";

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
