/**
 * The fast interpreter loop (evm/fast_loop.ts) against the stock one: each program of the corpus runs
 * on a stock EVM and on one with installFastOpcodes (which opts it into the fast loop), on equal
 * fresh states; the result, gas used, refund, error, logs, created address and the state root after
 * must be the same, and the fast EVM's frames must have run the fast loop.
 */
import { createEVM, type EVM } from "@ethereumjs/evm";
import { Address } from "@ethereumjs/util";
import { bytesToHex, concatBytes, hexToBytes } from "../../../../lib/common/mod.ts";
import {
  fastLoopStats,
  forkRules,
  installFastOpcodes,
  wordBytes,
} from "../../../../lib/execution/evm/mod.ts";
import { assert, assertEquals } from "../../../assert.ts";
import { fund, newState, opConfig, setStorage } from "./helpers.ts";

const MAX = (1n << 256n) - 1n;
const MAIN = new Address(new Uint8Array(20).fill(0xc0));
const OTHER = new Address(new Uint8Array(20).fill(0xc1));
const CALLER = new Address(new Uint8Array(20).fill(0xca));

/** Assembles hex opcodes and `push(v)` words: `asm("6001", push(5n), "01")`. */
function asm(...parts: (string | Uint8Array)[]): Uint8Array {
  return concatBytes(...parts.map((p) => typeof p === "string" ? hexToBytes(`0x${p}`) : p));
}

/** PUSH32 of a word. */
function push(v: bigint): Uint8Array {
  return concatBytes(new Uint8Array([0x7f]), wordBytes(v));
}

/** PUSH2 of a code offset (for jumps). */
function at(pc: number): string {
  return `61${pc.toString(16).padStart(4, "0")}`;
}

/** Code that returns `runtime` when run as init code. */
function initCode(runtime: Uint8Array): Uint8Array {
  // CODECOPY(0, 32 + 1 + ... ) the runtime appended after this 14-byte prefix, RETURN it.
  const prefix = asm(at(runtime.length), "80", at(14), "6000", "39", "6000", "f3", "00");
  assertEquals(prefix.length, 14);
  return concatBytes(prefix, runtime);
}

/** `OTHER`'s code: stores calldata word 0 at slot 1, logs it with two topics, returns it doubled. */
const CALLEE = asm(
  "600035", // CALLDATALOAD(0)
  "80600155", // SSTORE(1, x)
  "80600052", // MSTORE(0, x)
  push(0xabn),
  push(0xcdn),
  "60206000a2", // LOG2(0, 32, cd, ab)
  "80", // DUP1
  "01", // ADD: 2x
  "600052", // MSTORE(0, 2x)
  "60206000f3", // RETURN(0, 32)
);

/**
 * The interpreter prototype is patched by the first fast handler that runs: one frame with an
 * MSTORE on a throwaway EVM and state.
 */
async function patchPrototype(): Promise<void> {
  const evm: EVM = await createEVM({
    common: forkRules(opConfig("isthmus"), 0n).common,
    stateManager: newState(),
  });
  installFastOpcodes(evm);
  await evm.runCode({ code: asm("6001600052"), gasLimit: 100_000n });
}

interface Outcome {
  returnValue: string;
  gasUsed: bigint;
  refund: bigint;
  error?: string;
  logs: string;
  created?: string;
  stateRoot: string;
}

async function run(
  fast: boolean,
  code: Uint8Array,
  data: Uint8Array = new Uint8Array(),
  gasLimit = 3_000_000n,
): Promise<Outcome> {
  const common = forkRules(opConfig("isthmus"), 0n).common;
  const sm = newState();
  await setStorage(sm, MAIN.bytes, 2n, 7n);
  await setStorage(sm, MAIN.bytes, 3n, 9n);
  await sm.putCode(OTHER, CALLEE);
  await fund(sm, MAIN.bytes, 10n ** 18n);
  await sm.putCode(MAIN, code);
  const evm: EVM = await createEVM({ common, stateManager: sm });
  if (fast) {
    await patchPrototype();
    installFastOpcodes(evm, { keccakMemo: false });
  }
  const before = { ...fastLoopStats };
  const r = await evm.runCall({ caller: CALLER, to: MAIN, data, gasLimit, value: 0n });
  if (fast) {
    assert(fastLoopStats.fast > before.fast, "the fast EVM's frames run the fast loop");
    assertEquals(fastLoopStats.stock, before.stock, "no stock frame in the fast EVM");
  }
  const res = r.execResult;
  return {
    returnValue: bytesToHex(res.returnValue),
    gasUsed: res.executionGasUsed,
    refund: res.gasRefund ?? 0n,
    error: res.exceptionError?.error,
    logs: JSON.stringify(
      (res.logs ?? []).map((l) => l.map((p) => Array.isArray(p) ? p.map(bytesToHex) : bytesToHex(p))),
    ),
    created: r.createdAddress?.toString(),
    stateRoot: bytesToHex(await sm.getStateRoot()),
  };
}

async function same(name: string, code: Uint8Array, data?: Uint8Array, gasLimit?: bigint): Promise<Outcome> {
  const stock = await run(false, code, data, gasLimit);
  const fast = await run(true, code, data, gasLimit);
  assertEquals(fast, stock, name);
  return stock;
}

Deno.test("fast loop: a counting loop with JUMP and JUMPI, SSTORE and RETURN", async () => {
  // i = 0; do { i += 1 } while (i < 200); SSTORE(0, i); RETURN(i)
  const code = asm(
    "6000", // i
    "5b", // JUMPDEST @2
    "600101", // i + 1
    "8060c8", // DUP1, PUSH1 200
    "11", // 200 > i
    at(2),
    "57", // JUMPI
    "80600055", // SSTORE(0, i)
    "600052", // MSTORE(0, i)
    "60206000f3",
  );
  const r = await same("loop", code);
  assertEquals(r.error, undefined);
  assertEquals(BigInt(r.returnValue), 200n);
});

Deno.test("fast loop: nested CALL with storage, logs and return data; STATICCALL that writes fails", async () => {
  const call = (opcode: string, value: boolean) =>
    asm(
      push(21n),
      "600052", // MSTORE(0, 21)
      "6020", // retLen
      "6020", // retOff
      "6020", // argsLen
      "6000", // argsOff
      ...(value ? ["6000"] : []), // value 0
      push(BigInt(OTHER.toString())),
      "5a", // GAS
      opcode,
      "600051", // MLOAD(0)... keep stack: success flag below
      "50", // POP
      "602051", // MLOAD(32): return data
      "01", // success + result
      "600052",
      "60206000f3",
    );
  const r = await same("call", call("f1", true));
  assertEquals(r.error, undefined);
  assertEquals(BigInt(r.returnValue), 43n); // 1 (success) + 42
  assert(r.logs.includes("0x00000000000000000000000000000000000000000000000000000000000000ab"));
  const s = await same("staticcall", call("fa", false));
  assertEquals(BigInt(s.returnValue), 0n); // failed, no return data written
  await same("delegatecall", call("f4", false));
  await same("callcode", call("f2", true));
});

Deno.test("fast loop: CREATE and CREATE2, then a call into the created code", async () => {
  const init = initCode(CALLEE);
  const store = (bytes: Uint8Array) => {
    const parts: (string | Uint8Array)[] = [];
    for (let i = 0; i < bytes.length; i += 32) {
      const chunk = new Uint8Array(32);
      chunk.set(bytes.subarray(i, i + 32));
      parts.push(push(BigInt(bytesToHex(chunk))), push(BigInt(i)), "52");
    }
    return asm(...parts);
  };
  for (
    const [name, create] of [["create", asm(push(BigInt(init.length)), "6000", "6000", "f0")], [
      "create2",
      asm(push(0x5a17n), push(BigInt(init.length)), "6000", "6000", "f5"),
    ]] as const
  ) {
    const code = asm(
      store(init),
      create,
      // CALL(gas, created, 0, 0, 32, 0, 32) with calldata = memory[0..32] (the init code's first word)
      "6020600060206000600085",
      "5a",
      "f1",
      "50",
      "60206000f3",
    );
    const r = await same(name, code);
    assertEquals(r.error, undefined);
    assert(BigInt(r.returnValue) !== 0n, `${name}: the created contract answered`);
  }
});

Deno.test("fast loop: REVERT, INVALID, undefined opcode, bad JUMP, stack errors and out of gas", async () => {
  const revert = await same("revert", asm(push(MAX), "600052", "60206000fd"));
  assertEquals(revert.error, "revert");
  assertEquals(BigInt(revert.returnValue), MAX);
  assertEquals((await same("invalid", asm("6001", "fe"))).error, "invalid opcode");
  assertEquals((await same("undefined opcode", asm("6001", "0c"))).error, "invalid opcode");
  assert((await same("bad jump", asm("6003", "56", "00", "00"))).error?.startsWith("invalid JUMP"));
  assert(
    (await same("jump into push data", asm("6004", "56", "605b", "00"))).error?.startsWith("invalid JUMP"),
  );
  assertEquals((await same("underflow", asm("01"))).error, "stack underflow");
  // JUMPDEST; PUSH1 1; PUSH2 0; JUMP: pushes forever.
  assertEquals((await same("overflow", asm("5b", "6001", at(0), "56"))).error, "stack overflow");
  // JUMPDEST; PUSH2 0; JUMP: loops until the gas is gone.
  const oog = await same("out of gas", asm("5b", at(0), "56"), undefined, 50_000n);
  assertEquals(oog.error, "out of gas");
  assertEquals(oog.gasUsed, 50_000n);
  // Memory expansion beyond the gas in a dynamic gas handler.
  assertEquals((await same("memory oog", asm(push(1n << 30n), "51"))).error, "out of gas");
  // A call that runs out of gas inside: the caller goes on with what it kept.
  await same("inner oog", asm("6000600060006000600073", OTHER.bytes, "6107d0", "f1", "600052", "60206000f3"));
  await same("stop", asm("600160005500"));
});

Deno.test("fast loop: the gas counter between plain steps, GAS, and a limit above 2^53", async () => {
  // PUSH1 1, DUP1, ADD, POP (plain steps), GAS, then MSTORE (dynamic) and GAS again: both GAS readings
  // returned, so a counter the plain steps left stale would show.
  const program = asm("6001", "80", "01", "50", "5a", "600052", "5a", "602052", "60406000f3");
  const low = await same("gas readings", program);
  assertEquals(
    BigInt("0x" + low.returnValue.slice(2, 66)) - BigInt("0x" + low.returnValue.slice(66)),
    2n + 3n + 6n,
  );
  // A limit above 2^53 keeps bigints; the readings are exact there too.
  const high = await same("gas readings above 2^53", program, undefined, (1n << 60n) + 12345n);
  assertEquals(BigInt("0x" + high.returnValue.slice(2, 66)) > 1n << 59n, true);
  // Out of gas on a plain step exactly at the limit: JUMPDEST (1) PUSH2 (3) JUMP (8) per round.
  const exact = await same("oog on a plain step", asm("5b", at(0), "56"), undefined, 21_000n + 24n + 5n);
  assertEquals(exact.error, "out of gas");
});

Deno.test("fast loop: SSTORE refunds, transient storage, MCOPY and SELFDESTRUCT", async () => {
  const r = await same(
    "refunds",
    asm(
      "6000600255", // clear slot 2 (refund)
      "6005600355", // 9 -> 5
      "6009600355", // back to 9 (reset refund)
      "6001600455", // new slot
      "6000600455", // and cleared again
      "602a60015d", // TSTORE(1, 42)
      "60015c", // TLOAD(1)
      "600052",
      "6020600060205e", // MCOPY(32, 0, 32)
      "60406000f3",
    ),
  );
  assertEquals(r.error, undefined);
  assert(r.refund > 0n, "refunds counted");
  const sd = await same("selfdestruct", asm("73", OTHER.bytes, "ff"));
  assertEquals(sd.error, undefined);
});

Deno.test("fast loop: a frame with a step listener or in an EVM not opted in runs the stock loop", async () => {
  const common = forkRules(opConfig("isthmus"), 0n).common;
  const sm = newState();
  await sm.putCode(OTHER, CALLEE);
  const evm: EVM = await createEVM({ common, stateManager: sm });
  await patchPrototype();
  installFastOpcodes(evm);
  let before = { ...fastLoopStats };
  const steps: string[] = [];
  const listener = (s: { opcode: { name: string } }, resolve?: () => void) => {
    steps.push(s.opcode.name);
    resolve?.();
  };
  evm.events.on("step", listener);
  await evm.runCall({ caller: CALLER, to: OTHER, data: wordBytes(2n), gasLimit: 100_000n });
  evm.events.off("step", listener);
  assert(steps.length > 10, "the tracer saw every step");
  assertEquals(fastLoopStats.stock - before.stock, 1);
  assertEquals(fastLoopStats.fast, before.fast);
  const plain: EVM = await createEVM({ common, stateManager: sm });
  before = { ...fastLoopStats };
  await plain.runCall({ caller: CALLER, to: OTHER, data: wordBytes(3n), gasLimit: 100_000n });
  assertEquals(fastLoopStats.stock - before.stock, 1);
  assertEquals(fastLoopStats.fast, before.fast);
});
