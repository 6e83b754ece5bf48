/**
 * Call frames with pooled memories (evm/fast_frame.ts): the interpreter they build has exactly the
 * fields, in the same order and of the same kinds, as @ethereumjs's own constructor makes (a version of
 * @ethereumjs/evm with other fields fails here); a frame that reuses the memory of an earlier frame
 * sees it zeroed; stock and fast EVMs give the same results on nested calls; tracers keep stock frames.
 */
import { createEVM, type EVM } from "@ethereumjs/evm";
import { Address } from "@ethereumjs/util";
import { bytesToHex, concatBytes, hexToBytes } from "../../../../lib/common/mod.ts";
import { forkRules, installFastOpcodes } from "../../../../lib/execution/evm/mod.ts";
import {
  fastFrameStats,
  learnedPrototypes,
  newInterpreter,
} from "../../../../lib/execution/evm/fast_frame.ts";
import { assert, assertEquals } from "../../../assert.ts";
import { newState, opConfig } from "./helpers.ts";

const MAIN = new Address(new Uint8Array(20).fill(0xc0));
const DIRTY = new Address(new Uint8Array(20).fill(0xd1));
const READER = new Address(new Uint8Array(20).fill(0xd2));
const CALLER = new Address(new Uint8Array(20).fill(0xca));

const asm = (...hex: (string | Uint8Array)[]) =>
  concatBytes(...hex.map((h) => typeof h === "string" ? hexToBytes(`0x${h}`) : h));
/** CALL(GAS, to, 0, 0, 0, 0, 0) then POP. */
const callTo = (to: Address) => asm("6000600060006000600073", to.bytes, "5af150");

/** Writes ones over memory words 0..3 and returns nothing. */
const DIRTY_CODE = asm(
  "7f" + "ff".repeat(32),
  "600052",
  "7f" + "ee".repeat(32),
  "602052",
  "7f" + "dd".repeat(32),
  "604052",
  "00",
);
/** Stores MLOAD(0) + MLOAD(32) + MLOAD(64) at slot 1 (zero in a fresh memory). */
const READER_CODE = asm("600051602051604051010160015500");
/** Calls DIRTY, then READER, then returns MLOAD(0) of its own memory (untouched: zero). */
const MAIN_CODE = asm(callTo(DIRTY), callTo(READER), "60005160005260206000f3");

async function evmWith(fast: boolean): Promise<{ evm: EVM; sm: ReturnType<typeof newState> }> {
  const sm = newState();
  await sm.putCode(MAIN, MAIN_CODE);
  await sm.putCode(DIRTY, DIRTY_CODE);
  await sm.putCode(READER, READER_CODE);
  const evm = await createEVM({ common: forkRules(opConfig("isthmus"), 0n).common, stateManager: sm });
  if (fast) installFastOpcodes(evm);
  return { evm, sm };
}

async function outcome(fast: boolean) {
  const { evm, sm } = await evmWith(fast);
  const r = await evm.runCall({ caller: CALLER, to: MAIN, gasLimit: 1_000_000n, value: 0n });
  return {
    returnValue: bytesToHex(r.execResult.returnValue),
    gasUsed: r.execResult.executionGasUsed,
    error: r.execResult.exceptionError?.error,
    slot: bytesToHex(
      await sm.getStorage(READER, new Uint8Array(32).fill(0).map((_, i) => (i === 31 ? 1 : 0))),
    ),
    root: bytesToHex(await sm.getStateRoot()),
  };
}

Deno.test("fast frames: a reused memory is zero; results equal the stock EVM's", async () => {
  await outcome(true); // the first fast frame learns the interpreter classes
  const stock = await outcome(false);
  const before = { ...fastFrameStats };
  const fast = await outcome(true);
  assertEquals(fast, stock);
  assertEquals(stock.slot, "0x"); // nothing stored: READER read zeros
  assertEquals(fastFrameStats.frames - before.frames, 3, "MAIN, DIRTY and READER built here");
  assert(fastFrameStats.reused - before.reused >= 2, "DIRTY's memory went back to the pool and was reused");
});

Deno.test("fast frames: the interpreter has the stock constructor's fields, in order, of the same kinds", async () => {
  await outcome(true);
  const p = learnedPrototypes();
  assert(p !== undefined, "the classes were learned");
  const { evm } = await evmWith(true);
  const e = evm as unknown as Record<string, unknown>;
  const env = { gasRefund: 0n, initialLogs: undefined, address: MAIN };
  const Stock =
    (p.interpreter as { constructor: new (...args: unknown[]) => Record<string, unknown> }).constructor;
  const stock = new Stock(
    evm,
    e.stateManager,
    e.blockchain,
    env,
    100n,
    e.journal,
    e.performanceLogger,
    undefined,
  );
  const fast = newInterpreter(p, evm as never, env, 100n) as unknown as Record<string, unknown>;
  const shape = (o: Record<string, unknown>) =>
    Object.entries(o).map(([k, v]) => [k, v === null ? "null" : Array.isArray(v) ? "array" : typeof v]);
  assertEquals(shape(fast), shape(stock));
  const rs = (o: Record<string, unknown>) => o._runState as Record<string, unknown>;
  assertEquals(shape(rs(fast)), shape(rs(stock)));
  assertEquals(
    shape(fast._result as Record<string, unknown>),
    shape(stock._result as Record<string, unknown>),
  );
  for (const k of ["memory", "stack"]) {
    assertEquals(Object.getPrototypeOf(rs(fast)[k]), Object.getPrototypeOf(rs(stock)[k]), k);
    assertEquals(Object.keys(rs(fast)[k] as object), Object.keys(rs(stock)[k] as object), k);
  }
  assertEquals((rs(fast).memory as { _store: Uint8Array })._store.length, 8192);
  assertEquals(rs(fast).interpreter, fast);
});

Deno.test("fast frames: an EVM with a step listener (a tracer) keeps the stock frames", async () => {
  await outcome(true);
  const { evm } = await evmWith(true);
  let steps = 0;
  evm.events.on("step", () => void steps++);
  const before = fastFrameStats.frames;
  await evm.runCall({ caller: CALLER, to: MAIN, gasLimit: 1_000_000n, value: 0n });
  assert(steps > 0);
  assertEquals(fastFrameStats.frames, before);
});
