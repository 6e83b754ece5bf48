/**
 * eth_createAccessList: the slots and accounts a call touches (the sender, recipient and precompiles
 * left out as accounts), sorted; the list is stable when passed back; a failing run reports its
 * error; a refused message is geth's "failed to apply transaction".
 */
import { bytesToHex } from "../../../../lib/common/mod.ts";
import { assert, assertEquals } from "../../../assert.ts";
import { A, createDeployed } from "./fixture.ts";

const f = (await createDeployed()).fixture;
const hex = bytesToHex;
const T = "0x00000000000000000000000000000000000000aa";
const Y = "0x00000000000000000000000000000000000000bb";
const X = "0x00000000000000000000000000000000000000cc";
const word = (n: number) => "0x" + n.toString(16).padStart(64, "0");
// T: SLOAD(0); BALANCE(X); CALL(Y); STATICCALL(identity precompile 0x04); STOP.
const T_CODE = "0x60005450" + "73" + X.slice(2) + "3150" +
  "60006000600060006000" + "73" + Y.slice(2) + "5af150" + "600060006000600060045afa50" + "00";
// Y: SLOAD(5); STOP.
const Y_CODE = "0x6005545000";
const overrides = { [T]: { code: T_CODE }, [Y]: { code: Y_CODE } };

type Result = { accessList: { address: string; storageKeys: string[] }[]; gasUsed: string; error?: string };

Deno.test("eth_createAccessList: slots under their account, touched accounts, sorted; sender and precompiles left out", async () => {
  const r = await f.call<Result>("eth_createAccessList", [
    { from: hex(A.address), to: T },
    "latest",
    overrides,
  ]);
  assertEquals(r.accessList, [
    { address: T, storageKeys: [word(0)] },
    { address: Y, storageKeys: [word(5)] },
    { address: X, storageKeys: [] },
  ]);
  assertEquals(r.error, undefined);
  // Passed back, the list is the same and so is the gas.
  const again = await f.call<Result>("eth_createAccessList", [
    { from: hex(A.address), to: T, accessList: r.accessList },
    "latest",
    overrides,
  ]);
  assertEquals(again, r);
  // The gas used is a run with the list (its 2400 per account and 1900 per slot included): an
  // eth_call with exactly that gas and the list succeeds, one less runs out of gas.
  const used = BigInt(r.gasUsed);
  const withList = { from: hex(A.address), to: T, accessList: r.accessList };
  const gas = (g: bigint) => `0x${g.toString(16)}`;
  assertEquals(
    (await f.rpc("eth_call", [{ ...withList, gas: gas(used) }, "latest", overrides])).result,
    "0x",
  );
  const short = await f.rpc("eth_call", [{ ...withList, gas: gas(used - 1n) }, "latest", overrides]);
  assertEquals(short.error?.message, "out of gas");
});

Deno.test("eth_createAccessList: a reverting call reports its error; a create leaves out the new address", async () => {
  const rev = "0x00000000000000000000000000000000000000dd";
  // SLOAD(7) then REVERT(0, 0).
  const r = await f.call<Result>("eth_createAccessList", [{ to: rev }, "latest", {
    [rev]: { code: "0x6007545060006000fd" },
  }]);
  assertEquals(r.error, "execution reverted");
  assertEquals(r.accessList, [{ address: rev, storageKeys: [word(7)] }]);
  // Init code: SLOAD(1) of the new account, BALANCE(X), STOP. The new address is excluded as an account.
  const init = "0x6001545073" + X.slice(2) + "315000";
  const c = await f.call<Result>("eth_createAccessList", [{ from: hex(A.address), data: init }]);
  assertEquals(c.accessList.length, 2);
  assertEquals(c.accessList[0], { address: X, storageKeys: [] });
  assertEquals(c.accessList[1].storageKeys, [word(1)]);
  assert(c.accessList[1].address !== hex(A.address));
});

Deno.test("eth_createAccessList: a refused message is geth's failed to apply transaction", async () => {
  const poor = "0x3000000000000000000000000000000000000000";
  const res = await f.rpc("eth_createAccessList", [{ from: poor, to: X, value: "0x1" }]);
  assertEquals(res.error?.code, -32000);
  assert(
    /^failed to apply transaction: 0x[0-9a-f]{64} err: insufficient funds for gas \* price \+ value/.test(
      res.error!.message,
    ),
    res.error!.message,
  );
  const both = await f.rpc("eth_createAccessList", [{ to: X, gasPrice: "0x1", maxFeePerGas: "0x1" }]);
  assertEquals(both.error?.message, "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified");
});
