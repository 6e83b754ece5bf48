/** call_args: the call object and override schemas, state overrides on an overlay, gas cap, geth's call errors. */
import { Account, Address, toChecksumAddress } from "@ethereumjs/util";
import { bytesToHex, hexToBytes } from "../../../../lib/common/mod.ts";
import { MemoryStore } from "../../../../lib/db/mod.ts";
import {
  applyOverrides,
  blockOverridesSchema,
  callArgsSchema,
  callError,
  callGas,
  returnHex,
  revertReason,
  stateOverrideSchema,
} from "../../../../lib/execution/rpc/call_args.ts";
import { OverlayState } from "../../../../lib/execution/rpc/overlay_state.ts";
import { createStateManager } from "../../../../lib/execution/state/mod.ts";
import { RpcError, SchemaError } from "../../../../lib/rpc/mod.ts";
import { assertEquals, assertThrows } from "../../../assert.ts";
import { errorData, panicData } from "./fixture.ts";

const TARGET = "0x00000000000000000000000000000000000000aa";
const SLOT0 = "0x" + "00".repeat(32);
const SLOT1 = "0x" + "00".repeat(31) + "01";

Deno.test("call_args: the call object and block overrides parse geth's fields", () => {
  const args = callArgsSchema.parse({ to: TARGET, gas: "0x5208", value: "0x1", input: "0x01" });
  assertEquals(bytesToHex(args.to!), TARGET);
  assertEquals(args.gas, 21000n);
  assertEquals(args.value, 1n);
  assertThrows(() => callArgsSchema.parse({ gas: "0x" + "f".repeat(17) }));
  const b = blockOverridesSchema.parse({ number: "0x10", time: "0x20", blobBaseFee: "0x7" });
  assertEquals([b.number, b.time, b.blobBaseFee], [16n, 32n, 7n]);
});

Deno.test("call_args: state overrides refuse state together with stateDiff and non-objects", () => {
  assertThrows(() => stateOverrideSchema.parse([]), SchemaError);
  // geth override.Apply's error: -32000, the address checksummed.
  const both = assertThrows(
    () => stateOverrideSchema.parse({ [TARGET]: { state: {}, stateDiff: {} } }),
    RpcError,
  );
  assertEquals((both as RpcError).code, -32000);
  assertEquals(both.message, `account ${toChecksumAddress(TARGET)} has both 'state' and 'stateDiff'`);
  const [o] = stateOverrideSchema.parse({ [TARGET]: { balance: "0x9", stateDiff: { [SLOT0]: SLOT1 } } });
  assertEquals(o.balance, 9n);
  assertEquals(o.stateDiff!.length, 1);
});

Deno.test("call_args: applyOverrides sets balance, code, and state replaces storage while stateDiff patches", async () => {
  const base = await createStateManager(new MemoryStore());
  const addr = new Address(hexToBytes(TARGET));
  await base.putAccount(addr, new Account(3n, 100n));
  await base.putStorage(addr, hexToBytes(SLOT0), new Uint8Array([5]));
  await base.putStorage(addr, hexToBytes(SLOT1), new Uint8Array([6]));
  await base.getStateRoot();
  const replace = new OverlayState(base);
  await applyOverrides(
    replace,
    stateOverrideSchema.parse({ [TARGET]: { balance: "0x7", code: "0x6000", state: { [SLOT1]: SLOT1 } } }),
  );
  replace.reset();
  const acc = await replace.getAccount(addr);
  assertEquals([acc?.balance, acc?.nonce], [7n, 3n]);
  assertEquals(bytesToHex(await replace.getCode(addr)), "0x6000");
  assertEquals(bytesToHex(await replace.getStorage(addr, hexToBytes(SLOT0))), "0x");
  assertEquals(bytesToHex(await replace.getStorage(addr, hexToBytes(SLOT1))), "0x01");
  const patch = new OverlayState(base);
  await applyOverrides(patch, stateOverrideSchema.parse({ [TARGET]: { stateDiff: { [SLOT1]: SLOT1 } } }));
  patch.reset();
  assertEquals(bytesToHex(await patch.getStorage(addr, hexToBytes(SLOT0))), "0x05");
  assertEquals(bytesToHex(await patch.getStorage(addr, hexToBytes(SLOT1))), "0x01");
});

Deno.test("call_args: callGas is bounded by rpc.gascap; 0 means no cap", () => {
  const args = (gas?: string) => callArgsSchema.parse(gas === undefined ? {} : { gas });
  assertEquals(callGas(args(), 50_000_000n), 50_000_000n);
  assertEquals(callGas(args("0x64"), 50_000_000n), 100n);
  assertEquals(callGas(args("0x3938700"), 50_000_000n), 50_000_000n);
  assertEquals(callGas(args("0x3938700"), 0n), 60_000_000n);
});

Deno.test("call_args: a revert is code 3 with the reason; other failures are -32000", () => {
  const rev = callError({ returnValue: errorData("nope"), gasUsed: 1n, refund: 0n, error: "revert" });
  assertEquals([rev.code, rev.message], [3, "execution reverted: nope"]);
  assertEquals(revertReason(panicData(0x01)), "assert(false)");
  const oog = callError({ returnValue: new Uint8Array(), gasUsed: 1n, refund: 0n, error: "out of gas" });
  assertEquals([oog.code, oog.message], [-32000, "out of gas"]);
  assertEquals(returnHex({ returnValue: new Uint8Array([1, 2]), gasUsed: 0n, refund: 0n }), "0x0102");
});
