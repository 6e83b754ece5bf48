/** The OP fork schedule helpers (hardforks.ts): activation by timestamp, the active fork, forks at genesis. */
import { assertEquals } from "../../assert.ts";
import {
  activeFork,
  forksAtGenesis,
  isForkActivationBlock,
  isForkActive,
} from "../../../lib/protocol/hardforks.ts";

Deno.test("forksAtGenesis: Regolith through the named fork at time 0, nothing later scheduled", () => {
  assertEquals(forksAtGenesis("regolith"), { regolith: 0n });
  const isthmus = forksAtGenesis("isthmus");
  assertEquals(Object.keys(isthmus), [
    "regolith",
    "canyon",
    "delta",
    "ecotone",
    "fjord",
    "granite",
    "holocene",
    "isthmus",
  ]);
  assertEquals(activeFork(isthmus, 0n), "isthmus");
  assertEquals(isForkActive(isthmus, "jovian", 10n ** 12n), false);
});

Deno.test("a schedule: active from its time, the activation block is the first at or after it", () => {
  const schedule = { regolith: 0n, canyon: 10n, delta: 20n };
  assertEquals(activeFork(schedule, 9n), "regolith");
  assertEquals(activeFork(schedule, 10n), "canyon");
  assertEquals(activeFork(schedule, 25n), "delta");
  assertEquals(isForkActive(schedule, "bedrock", 0n), true);
  assertEquals(isForkActivationBlock(schedule, "canyon", 10n, 2n), true);
  assertEquals(isForkActivationBlock(schedule, "canyon", 12n, 2n), false);
});
