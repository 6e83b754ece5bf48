import { Address, toChecksumAddress } from "@ethereumjs/util";
import type { Header } from "../../../../lib/protocol/mod.ts";
import { ethContext } from "../../../../lib/execution/rpc/mod.ts";
import { withCallEnv } from "../../../../lib/execution/rpc/call_envs.ts";
/** eth_call / eth_estimateGas: results, reverts (code 3), overrides, gas cap, estimate exactness. */
import { bytesToHex } from "../../../../lib/common/mod.ts";
import { assert, assertEquals } from "../../../assert.ts";
import {
  A,
  B,
  createDeployed,
  createFixture,
  errorData,
  ETHER,
  LOGGER_RUNTIME,
  panicData,
} from "./fixture.ts";

const d = await createDeployed({ gasCap: 1_000_000n });
const f = d.fixture;
const hex = bytesToHex;
const WORD = hex(new Uint8Array(32).fill(9));

Deno.test("eth_call: returns data; a revert is code 3 with the reason and the data", async () => {
  // The logger returns nothing; a STOP gives "0x".
  assertEquals(await f.call("eth_call", [{ to: hex(d.logger), data: WORD }, "latest"]), "0x");
  const rev = await f.rpc("eth_call", [{ to: hex(d.reverter) }, "latest"]);
  assertEquals(rev.error?.code, 3);
  assertEquals(rev.error?.message, "execution reverted: nope");
  assertEquals(rev.error?.data, hex(errorData("nope")));
  const panic = await f.rpc("eth_call", [{ to: hex(d.panicker) }]);
  assertEquals(panic.error?.code, 3);
  assertEquals(panic.error?.message, "execution reverted: arithmetic underflow or overflow");
  assertEquals(panic.error?.data, hex(panicData(0x11)));
});

Deno.test("eth_call: at an older block, by hash object; unknown block is header not found", async () => {
  // The reverter did not exist at genesis: a call to an empty account succeeds with no data.
  assertEquals(await f.call("eth_call", [{ to: hex(d.reverter) }, "0x0"]), "0x");
  const byHash = await f.rpc("eth_call", [{ to: hex(d.reverter) }, { blockHash: hex(d.block1.hash) }]);
  assertEquals(byHash.error?.code, 3);
  const missing = await f.rpc("eth_call", [{ to: hex(d.reverter) }, "0x64"]);
  assertEquals(missing.error, { code: -32000, message: "header not found" });
});

Deno.test("eth_call: state overrides (code, balance, stateDiff) and block overrides", async () => {
  // SLOAD(0) returned as a word: PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
  const readSlot0 = "0x60005460005260206000f3";
  const target = "0x00000000000000000000000000000000000000aa";
  const slot = hex(new Uint8Array(32));
  const value = "0x" + "00".repeat(31) + "2a";
  const out = await f.call("eth_call", [{ to: target }, "latest", {
    [target]: { code: readSlot0, stateDiff: { [slot]: value } },
  }]);
  assertEquals(out, value);
  // BALANCE of the caller: CALLER BALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
  const balanceOfCaller = "0x33316000526020" + "6000f3";
  const poor = "0x00000000000000000000000000000000000000bb";
  const bal = await f.call<string>("eth_call", [{ from: poor, to: target }, "latest", {
    [target]: { code: balanceOfCaller },
    [poor]: { balance: "0x1234" },
  }]);
  assertEquals(BigInt(bal), 0x1234n);
  // NUMBER PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN with a block override.
  const number = await f.call<string>("eth_call", [{ to: target }, "latest", {
    [target]: { code: "0x436000526020" + "6000f3" },
  }, { number: "0x777" }]);
  assertEquals(BigInt(number), 0x777n);
  // The overrides did not stick.
  assertEquals(await f.call("eth_getCode", [target, "latest"]), "0x");
  const both = await f.rpc("eth_call", [{ to: target }, "latest", {
    [target]: { state: {}, stateDiff: {} },
  }]);
  assertEquals(both.error?.code, -32000); // geth override.Apply's error
});

Deno.test("eth_call: refused messages are geth's core errors, wrapped as geth's eth_call wraps them", async () => {
  const poor = "0x1000000000000000000000000000000000000000";
  const cap = f.backend.options.gasCap; // the gas of a call that names none
  const res = await f.rpc("eth_call", [{ from: poor, to: hex(B.address), value: "0x1" }]);
  assertEquals(res.error, {
    code: -32000,
    message: `err: insufficient funds for gas * price + value: address ${
      toChecksumAddress(poor)
    } have 0 want 1 (supplied gas ${cap})`,
  });
  const low = await f.rpc("eth_call", [{ from: hex(A.address), to: hex(B.address), gasPrice: "0x1" }]);
  assert(
    low.error!.message.startsWith("err: max fee per gas less than block base fee: address 0x"),
    low.error!.message,
  );
  const intrinsic = await f.rpc("eth_call", [{ from: hex(A.address), to: hex(B.address), gas: "0x5000" }]);
  assertEquals(
    intrinsic.error?.message,
    "err: intrinsic gas too low: have 20480, want 21000 (supplied gas 20480)",
  );
  // geth buys the gas before it checks the intrinsic gas: a poor sender is told it cannot pay.
  const order = await f.rpc("eth_call", [{ from: poor, to: hex(B.address), value: "0x1", gas: "0x5000" }]);
  assert(
    order.error!.message.startsWith("err: insufficient funds for gas * price + value"),
    order.error!.message,
  );
  // A tip alone: geth's missing maxFeePerGas is 0.
  const tip = await f.rpc("eth_call", [{
    from: hex(A.address),
    to: hex(B.address),
    maxPriorityFeePerGas: "0x1",
  }]);
  assertEquals(
    tip.error?.message,
    `err: max priority fee per gas higher than max fee per gas: address ${
      toChecksumAddress(hex(A.address))
    }, maxPriorityFeePerGas: 1, maxFeePerGas: 0 (supplied gas ${cap})`,
  );
  // geth CallDefaults: the node's chain id or none; `input` wins over `data`.
  assertEquals((await f.rpc("eth_call", [{ to: hex(B.address), chainId: "0x1" }])).error, {
    code: -32000,
    message: "chainId does not match node's (have=1, want=901)",
  });
  assertEquals(await f.call("eth_call", [{ to: hex(B.address), chainId: "0x385" }]), "0x");
  assertEquals(await f.call("eth_call", [{ to: hex(B.address), data: "0x01", input: "0x02" }]), "0x");
  assertEquals(await f.call("eth_call", [{ to: hex(B.address), data: "0x01", input: "0x01" }]), "0x");
});

Deno.test("eth_estimateGas: refused messages as geth's estimator words them", async () => {
  const poor = "0x1000000000000000000000000000000000000000";
  // The value must leave something for gas (geth: value >= balance), with a fee named.
  const all = await f.rpc("eth_estimateGas", [
    { from: poor, to: hex(B.address), value: "0x100", gasPrice: "0x3b9aca00" },
    "latest",
    {
      [poor]: { balance: "0x100" },
    },
  ]);
  assertEquals(all.error, { code: -32000, message: "insufficient funds for transfer" });
  // No fee: nothing caps the gas, and the transfer itself cannot be paid.
  const transfer = await f.rpc("eth_estimateGas", [{ from: poor, to: hex(B.address), value: "0x1" }]);
  assertEquals(
    transfer.error?.message,
    `failed with ${f.backend.options.gasCap} gas: insufficient funds for gas * price + value: address ${
      toChecksumAddress(poor)
    } have 0 want 1`,
  );
});

Deno.test("eth_call: rpc.gascap bounds the gas (an infinite loop runs out of gas at the cap)", async () => {
  const loop = "0x5b600056"; // JUMPDEST PUSH1 0 JUMP
  const target = "0x00000000000000000000000000000000000000dd";
  const res = await f.rpc("eth_call", [{ to: target, gas: "0xffffffff" }, "latest", {
    [target]: { code: loop },
  }]);
  assertEquals(res.error, { code: -32000, message: "out of gas" });
});

Deno.test("eth_estimateGas: transfer is 21000; the estimate succeeds and one less fails", async () => {
  assertEquals(
    await f.call("eth_estimateGas", [{ from: hex(A.address), to: hex(B.address), value: "0x1" }]),
    "0x5208",
  );
  const args = { from: hex(A.address), to: hex(d.logger), data: hex(new Uint8Array(32).fill(0x55)) };
  const est = BigInt(await f.call<string>("eth_estimateGas", [args]));
  assert(est > 21000n + 512n + 5000n, `estimate ${est} covers calldata and the SSTORE`);
  // The estimate executes successfully, one gas less does not.
  const ok = await f.rpc("eth_call", [{ ...args, gas: `0x${est.toString(16)}` }]);
  assertEquals(ok.result, "0x");
  const short = await f.rpc("eth_call", [{ ...args, gas: `0x${(est - 1n).toString(16)}` }]);
  assertEquals(short.error?.message, "out of gas");
  // Deploying the logger costs more than calling it.
  const deploy = BigInt(
    await f.call<string>("eth_estimateGas", [{
      from: hex(A.address),
      data: "0x600a600c600039600a6000f3" + hex(LOGGER_RUNTIME).slice(2),
    }]),
  );
  assert(deploy > 53000n);
});

Deno.test("eth_estimateGas: a revert is code 3; an always-failing call is gas required exceeds allowance", async () => {
  const rev = await f.rpc("eth_estimateGas", [{ from: hex(A.address), to: hex(d.reverter) }]);
  assertEquals(rev.error?.code, 3);
  assertEquals(rev.error?.message, "execution reverted: nope");
  const target = "0x00000000000000000000000000000000000000dd";
  const loop = await f.rpc("eth_estimateGas", [{ to: target }, "latest", {
    [target]: { code: "0x5b600056" },
  }]);
  assertEquals(loop.error, { code: -32000, message: "gas required exceeds allowance (1000000)" });
  const poor = "0x2000000000000000000000000000000000000000";
  const funds = await f.rpc("eth_estimateGas", [{
    from: poor,
    to: hex(B.address),
    value: `0x${ETHER.toString(16)}`,
    gasPrice: "0x3b9aca00",
  }]);
  assertEquals(funds.error?.message, "insufficient funds for transfer");
});

Deno.test("eth_call: concurrent calls on the shared state do not see each other", async () => {
  const calls = [];
  for (let i = 0; i < 20; i++) {
    calls.push(f.rpc("eth_call", [{ from: hex(A.address), to: hex(B.address), value: "0x1" }]));
    calls.push(f.rpc("eth_getBalance", [hex(B.address), "latest"]));
  }
  const results = await Promise.all(calls);
  const balances = new Set(results.filter((_, i) => i % 2 === 1).map((r) => r.result));
  assertEquals(balances.size, 1);
  assertEquals(results.filter((r) => r.error !== undefined).length, 0);
});

Deno.test("eth_call: rpc.evmtimeout aborts a long call; the next call runs", async () => {
  const g = (await createDeployed({ gasCap: 50_000_000n, evmTimeoutMs: 30 })).fixture;
  const target = "0x00000000000000000000000000000000000000dd";
  const sloadLoop = "0x5b600054506000" + "56"; // JUMPDEST PUSH1 0 SLOAD POP PUSH1 0 JUMP
  const started = performance.now();
  const res = await g.rpc("eth_call", [{ to: target }, "latest", { [target]: { code: sloadLoop } }]);
  assertEquals(res.error, { code: -32000, message: "execution aborted (timeout = 30ms)" });
  assertEquals(await g.call("eth_call", [{ to: hex(d.logger), data: WORD }]), "0x");
  assert(performance.now() - started < 2_000, "the aborted call stopped");
});

Deno.test("eth_call: jump tables are per code: two contracts in one call, each called repeatedly", async () => {
  const k = "00000000000000000000000000000000000000cc";
  const j = "0x00000000000000000000000000000000000000dd";
  // K: PUSH1 4 JUMP INVALID JUMPDEST(4) PUSH1 7 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN -> 7.
  const kCode = "0x600456fe5b60076000526020" + "6000f3";
  // J: PUSH1 6 JUMP INVALID INVALID INVALID JUMPDEST(6), then CALL K (32 bytes out at 0) and return
  // them. Offset 4 is no JUMPDEST in J: had K run with J's analysis, its JUMP would fail (0 out).
  const jCode = "0x600656fefefe5b" + "6020600060006000600073" + k + "5af150" + "60206000f3";
  const overrides = { [j]: { code: jCode }, [`0x${k}`]: { code: kCode } };
  for (let i = 0; i < 3; i++) {
    assertEquals(BigInt(await f.call<string>("eth_call", [{ to: j }, "latest", overrides])), 7n);
    assertEquals(BigInt(await f.call<string>("eth_call", [{ to: `0x${k}` }, "latest", overrides])), 7n);
  }
  // The cached environment (no overrides) too: a deployed contract, many times.
  for (let i = 0; i < 3; i++) {
    assertEquals(
      (await f.rpc("eth_call", [{ to: hex(d.reverter) }, "latest"])).error?.message,
      "execution reverted: nope",
    );
  }
});

Deno.test("eth_call: the blobBaseFee block override is what BLOBBASEFEE reads (1 on an OP chain without it)", async () => {
  const target = "0x00000000000000000000000000000000000000ee";
  // BLOBBASEFEE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
  const overrides = { [target]: { code: "0x4a6000526020" + "6000f3" } };
  assertEquals(BigInt(await f.call<string>("eth_call", [{ to: target }, "latest", overrides])), 1n);
  const fee = await f.call<string>("eth_call", [{ to: target }, "latest", overrides, {
    blobBaseFee: "0x1234",
  }]);
  assertEquals(BigInt(fee), 0x1234n);
  // With a fee set (the block keeps its base fee) the override holds too.
  const priced = await f.call<string>("eth_call", [
    { from: hex(A.address), to: target, maxFeePerGas: "0x3b9aca00" },
    "latest",
    overrides,
    { blobBaseFee: "0x99" },
  ]);
  assertEquals(BigInt(priced), 0x99n);
});

Deno.test("rpc.evmtimeout stops a pure compute loop in eth_call and eth_estimateGas", async () => {
  const g = (await createDeployed({ gasCap: 0n, evmTimeoutMs: 200 })).fixture;
  const target = "0x00000000000000000000000000000000000000dd";
  // JUMPDEST PUSH1 0 JUMP: no state access; with no gas cap and 2^62 gas it would run for hours.
  const loop = { [target]: { code: "0x5b600056" } };
  const gas = `0x${(1n << 62n).toString(16)}`;
  let started = performance.now();
  const res = await g.rpc("eth_call", [{ to: target, gas }, "latest", loop]);
  assertEquals(res.error, { code: -32000, message: "execution aborted (timeout = 200ms)" });
  let took = performance.now() - started;
  // Bounds with room for a loaded machine: without the timeout the loop would run for hours.
  assert(took < 1_000, `eth_call stopped after ${took} ms`);
  // JUMPI loops too: JUMPDEST PUSH1 1 PUSH1 0 JUMPI.
  started = performance.now();
  const jumpi = await g.rpc("eth_call", [{ to: target, gas }, "latest", {
    [target]: { code: "0x5b600160005700" },
  }]);
  assertEquals(jumpi.error?.message, "execution aborted (timeout = 200ms)");
  assert(performance.now() - started < 1_000);
  // eth_estimateGas has four times the budget (a binary search runs the call many times).
  started = performance.now();
  const est = await g.rpc("eth_estimateGas", [{ to: target, gas }, "latest", loop]);
  assertEquals(est.error, { code: -32000, message: "execution aborted (timeout = 800ms)" });
  took = performance.now() - started;
  assert(took < 2_400, `eth_estimateGas stopped after ${took} ms`);
  // The environment is usable afterwards.
  assertEquals(await g.call("eth_call", [{ to: hex(d.logger), data: WORD }]), "0x");
});

Deno.test("eth_call: an exceptional halt is geth's error message", async () => {
  const target = "0x00000000000000000000000000000000000000ad";
  const halt = async (code: string) => {
    const r = await f.rpc("eth_call", [{ to: target }, "latest", { [target]: { code } }]);
    assertEquals(r.error?.code, -32000);
    return r.error?.message;
  };
  // RETURNDATACOPY(0, 0, 1) with no return data (EIP-211).
  assertEquals(await halt("0x6001600060003e00"), "return data out of bounds");
  // PUSH1 3 JUMP: 3 is not a JUMPDEST.
  assertEquals(await halt("0x600356"), "invalid jump destination");
  // ADD on an empty stack.
  assertEquals(await halt("0x01"), "stack underflow");
});

Deno.test("eth_call and eth_estimateGas: a state override moves a precompile, or replaces it with code (geth override.Apply)", async () => {
  const identity = "0x0000000000000000000000000000000000000004";
  const moved = "0x00000000000000000000000000000000000000bb";
  // movePrecompileToAddress: the identity precompile answers at its new address.
  const at = await f.call("eth_call", [{ to: moved, data: "0x1234" }, "latest", {
    [identity]: { movePrecompileToAddress: moved },
  }]);
  assertEquals(at, "0x1234");
  // Code over a precompile's address replaces it: PUSH1 0xff PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN.
  const code = "0x60ff60005260206000f3";
  const replaced = await f.call("eth_call", [{ to: identity, data: "0x1234" }, "latest", {
    [identity]: { code },
  }]);
  assertEquals(replaced, "0x" + "00".repeat(31) + "ff");
  // Without overrides the precompile is back (the shared environment was not touched).
  assertEquals(await f.call("eth_call", [{ to: identity, data: "0x1234" }]), "0x1234");
  const gas = BigInt(
    await f.call<string>("eth_estimateGas", [{ to: moved, data: "0x1234" }, "latest", {
      [identity]: { movePrecompileToAddress: moved },
    }]),
  );
  assert(gas > 21000n, `estimate ${gas} includes the precompile's cost`);
});

Deno.test("eth_call: an invalid opcode is named as geth names it", async () => {
  const target = "0x00000000000000000000000000000000000000ee";
  const run = (code: string) => f.rpc("eth_call", [{ to: target }, "latest", { [target]: { code } }]);
  // PUSH1 1, then INVALID (0xfe) / an unassigned byte (0x0c).
  assertEquals((await run("0x6001fe")).error, { code: -32000, message: "invalid opcode: INVALID" });
  assertEquals((await run("0x60010c")).error, {
    code: -32000,
    message: "invalid opcode: opcode 0xc not defined",
  });
  const est = await f.rpc("eth_estimateGas", [{ to: target }, "latest", { [target]: { code: "0xfe" } }]);
  assertEquals(est.error, { code: -32000, message: "invalid opcode: INVALID" });
});

Deno.test("eth_call: the call VM of one head serves the next, moved to its state; never one that is running", async () => {
  const f = await createFixture();
  const ctx = ethContext(f.backend);
  const at = (header: Header, hold?: Promise<unknown>) =>
    withCallEnv(ctx, header, undefined, undefined, async (env) => {
      await hold;
      const balance = (await env.sm.getAccount(new Address(B.address)))?.balance ?? 0n;
      return { vm: env.vm, balance, number: env.block.header.number };
    });
  const h1 = f.chain.getHeadHeader("latest")!;
  const first = await at(h1);
  await f.mine([f.sign(A, 0n, { to: B.address, value: 5n })]);
  const h2 = f.chain.getHeadHeader("latest")!;
  const second = await at(h2);
  assert(second.vm === first.vm, "the VM of the head before");
  assertEquals(second.balance, first.balance + 5n);
  assertEquals(second.number, h2.number);
  // The older head again: its own state and block.
  const again = await at(h1);
  assertEquals([again.balance, again.number], [first.balance, h1.number]);
  // While a call runs at one head, a call at another gets a VM of its own.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const running = at(h2, held);
  await new Promise((resolve) => setTimeout(resolve, 0));
  const other = await at(h1);
  release();
  const busy = await running;
  assert(other.vm !== busy.vm, "a running VM is not taken");
  assertEquals([busy.balance, other.balance], [first.balance + 5n, first.balance]);
});
