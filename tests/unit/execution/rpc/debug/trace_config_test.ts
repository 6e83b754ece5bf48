import {
  decodeRevertReason,
  parseGoDuration,
  traceTimeout,
} from "../../../../../lib/execution/rpc/debug/mod.ts";
import type { TraceBackend } from "../../../../../lib/execution/rpc/debug/mod.ts";
import type { EthBackend } from "../../../../../lib/execution/rpc/mod.ts";
import { hexToBytes } from "../../../../../lib/common/mod.ts";
import { assertEquals, assertThrows } from "../../../../assert.ts";

Deno.test("parseGoDuration: Go time.ParseDuration forms in milliseconds", () => {
  assertEquals(parseGoDuration("5s"), 5000);
  assertEquals(parseGoDuration("300ms"), 300);
  assertEquals(parseGoDuration("1m30s"), 90_000);
  assertEquals(parseGoDuration("1.5s"), 1500);
  assertEquals(parseGoDuration("2h"), 7_200_000);
  assertEquals(parseGoDuration("1500us"), 1.5);
  assertEquals(parseGoDuration("0"), 0);
  for (const bad of ["", "5", "s", "5 s", "5sec", "-", "1.s2"]) {
    assertThrows(() => parseGoDuration(bad), Error, `time: invalid duration ${JSON.stringify(bad)}`);
  }
});

Deno.test("traceTimeout: geth's 5 s default, the given duration, none for zero", () => {
  assertEquals(traceTimeout(undefined), 5000);
  assertEquals(traceTimeout({ timeout: "10ms" } as Parameters<typeof traceTimeout>[0]), 10);
  assertEquals(traceTimeout({ timeout: "0s" } as Parameters<typeof traceTimeout>[0]), 0);
});

Deno.test("decodeRevertReason: Error(string), Panic(uint256), anything else", () => {
  const err = hexToBytes(
    "0x08c379a0" + "20".padStart(64, "0") + "04".padStart(64, "0") + "6e6f7065".padEnd(64, "0"),
  );
  assertEquals(decodeRevertReason(err), "nope");
  assertEquals(
    decodeRevertReason(hexToBytes("0x4e487b71" + "11".padStart(64, "0"))),
    "arithmetic underflow or overflow",
  );
  assertEquals(
    decodeRevertReason(hexToBytes("0x4e487b71" + "99".padStart(64, "0"))),
    "unknown panic code: 0x99",
  );
  assertEquals(decodeRevertReason(hexToBytes("0xdeadbeef")), undefined);
  assertEquals(decodeRevertReason(err.subarray(0, 40)), undefined);
});

Deno.test("the eth namespace's EthBackend is a TraceBackend", () => {
  const asTrace = (b: EthBackend): TraceBackend => b;
  assertEquals(typeof asTrace, "function");
});
