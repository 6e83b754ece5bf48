/**
 * A synchronous-where-possible interpreter loop for @ethereumjs/evm. The stock `Interpreter.run`
 * awaits an async `runStep` for every opcode, so each step allocates a promise and yields to the
 * microtask queue even for ADD or PUSH1; this loop runs the same steps (same opcode entries, same
 * gas handlers and handlers, same order of gas charge, program counter and handler, same errors)
 * and awaits only what is asynchronous: a gas handler or handler that returns a promise.
 *
 * It runs only for frames where the stock loop would do nothing more than that: an EVM opted in
 * with `installFastLoop`, legacy (non-EOF) code, no `step` listener (tracers), no debug logging or
 * opcode profiler, and none of the EIPs whose per-step work the stock `runStep` adds (EIP-6800 and
 * EIP-7864 code-chunk gas, EIP-7928 call out-of-gas, EIP-8037 leftover burn). Every other frame
 * runs the stock loop. tests/unit/execution/evm/fast_loop_test.ts compares both on a corpus.
 *
 * The interpreter class is not exported by @ethereumjs/evm, so its prototype is patched from the
 * first interpreter seen (`patchInterpreter`, called by fast_opcodes.ts's handlers).
 */
import { EVMError, type EVMInterface } from "@ethereumjs/evm";
import { installFastFrames, learnInterpreter, STOCK_ONLY_EIPS } from "./fast_frame.ts";

interface OpcodeInfo {
  code: number;
  fee: number;
  feeBigInt: bigint;
  dynamicGas: boolean;
  isAsync: boolean;
  isInvalid: boolean;
}

interface OpcodeEntry {
  opcodeInfo: OpcodeInfo;
  opHandler: (runState: RunState, common: unknown) => unknown;
  gasHandler: (runState: RunState, gas: bigint, common: unknown) => bigint | Promise<bigint>;
}

interface RunState {
  programCounter: number;
  opCode: number;
  code: Uint8Array;
  gasLeft: bigint;
  validJumps: Uint8Array;
  cachedPushes: unknown;
  shouldDoJumpAnalysis: boolean;
  env: { accessWitness?: unknown };
}

interface InterpreterLike {
  _evm: {
    _opcodeMap: OpcodeEntry[];
    events: { listenerCount(name: string): number };
    DEBUG: boolean;
  };
  _runState: RunState;
  common: { isActivatedEIP(eip: number): boolean };
  profilerOpts?: { enabled?: boolean };
  _getValidJumpDestinations(code: Uint8Array): {
    jumps: Uint8Array;
    pushes: unknown;
    opcodesCached: OpcodeEntry[];
  };
  run(code: Uint8Array, opts?: { pc?: number }): Promise<RunResult>;
}

interface RunResult {
  runState: RunState;
  exceptionError?: EVMError;
}

/** EVMs whose frames may run the fast loop. */
const FAST_EVMS = new WeakSet<object>();
/** How many frames ran the fast loop and the stock one (tests, profiling). */
export const fastLoopStats = { fast: 0, stock: 0 };

let patched = false;

/** Lets `evm`'s frames run the fast loop (once the interpreter prototype is patched). */
export function installFastLoop(evm: EVMInterface): void {
  FAST_EVMS.add(evm);
  installFastFrames(evm);
}

/** Patches `interpreter`'s prototype (once): `run` takes the fast loop where it may. */
export function patchInterpreter(interpreter: unknown): void {
  learnInterpreter(interpreter);
  if (patched) return;
  patched = true;
  const proto = Object.getPrototypeOf(interpreter) as InterpreterLike;
  const stockRun = proto.run;
  if (typeof stockRun !== "function") return;
  proto.run = function (this: InterpreterLike, code: Uint8Array, opts: { pc?: number } = {}) {
    if (!fastEligible(this)) {
      fastLoopStats.stock++;
      return stockRun.call(this, code, opts);
    }
    fastLoopStats.fast++;
    return fastRun(this, code, opts);
  };
}

function fastEligible(it: InterpreterLike): boolean {
  const evm = it._evm;
  if (!FAST_EVMS.has(evm) || evm.DEBUG || evm.events.listenerCount("step") > 0) return false;
  if (it.profilerOpts?.enabled === true) return false;
  for (const eip of STOCK_ONLY_EIPS) if (it.common.isActivatedEIP(eip)) return false;
  return true;
}

function isEVMError(e: unknown): e is EVMError {
  return typeof e === "object" && e !== null && (e as { errorType?: string }).errorType === "EVMError";
}

const INVALID_OPCODE = EVMError.errorMessages.INVALID_OPCODE;
const OUT_OF_GAS = EVMError.errorMessages.OUT_OF_GAS;
const STOP = EVMError.errorMessages.STOP;

/** The largest gas counter the loop keeps as a JS number (above it, every step uses bigints). */
const MAX_NUMBER_GAS = BigInt(Number.MAX_SAFE_INTEGER);
/** GAS pushes the gas left: a static-gas step that reads the counter. */
const GAS_OPCODE = 0x5a;

/**
 * The stock `run` for legacy code (interpreter.js `run` and `runStep`), with sync steps not awaited.
 *
 * The gas counter: most steps (PUSH, DUP, SWAP, arithmetic, JUMP) have a static fee and a sync handler
 * that never reads the gas left; for those the loop keeps the counter as a JS number (`left`) instead
 * of a bigint subtraction (an allocation) per step. Before any other step (a dynamic fee, whose gas
 * handler may read the counter; an async handler; GAS) the number goes back into `rs.gasLeft` and is
 * read again after it, so every handler and gas handler sees the exact counter. A counter above 2^53
 * (an eth_call with an uncapped gas limit) keeps bigints throughout.
 */
async function fastRun(it: InterpreterLike, code: Uint8Array, opts: { pc?: number }): Promise<RunResult> {
  const rs = it._runState;
  rs.code = code;
  rs.programCounter = opts.pc ?? rs.programCounter;
  const start = rs.programCounter;
  if (start !== 0 && (start < 0 || start >= code.length)) {
    throw new Error("Internal error: program counter not in range");
  }
  const table = it._evm._opcodeMap;
  const common = it.common;
  let cached: OpcodeEntry[] | undefined;
  let err: EVMError | undefined;
  const numeric = rs.gasLeft <= MAX_NUMBER_GAS;
  /** The gas left while `inNumber` (rs.gasLeft is then stale). */
  let left = numeric ? Number(rs.gasLeft) : 0;
  let inNumber = numeric;
  while (rs.programCounter < code.length) {
    const pc = rs.programCounter;
    let entry: OpcodeEntry | undefined;
    let opCode: number;
    if (cached === undefined) {
      opCode = code[pc];
      // The jump analysis runs when the first JUMP/JUMPI/JUMPSUB is reached (as the stock loop).
      if (opCode === 0x56 || opCode === 0x57 || opCode === 0x5e) {
        const { jumps, pushes, opcodesCached } = it._getValidJumpDestinations(code);
        rs.validJumps = jumps;
        rs.cachedPushes = pushes;
        rs.shouldDoJumpAnalysis = false;
        cached = opcodesCached;
      }
    } else {
      entry = cached[pc];
      opCode = entry.opcodeInfo.code;
    }
    rs.opCode = opCode;
    try {
      entry ??= table[opCode];
      const info = entry.opcodeInfo;
      if (numeric && !info.dynamicGas && !info.isAsync && opCode !== GAS_OPCODE) {
        // A plain step: the counter stays a number.
        if (!inNumber) {
          left = Number(rs.gasLeft);
          inNumber = true;
        }
        if (info.isInvalid) throw new EVMError(INVALID_OPCODE);
        left -= info.fee;
        if (left < 0) {
          left = 0;
          throw new EVMError(OUT_OF_GAS);
        }
        rs.programCounter++;
        entry.opHandler(rs, common);
        continue;
      }
      if (inNumber) {
        rs.gasLeft = BigInt(left);
        inNumber = false;
      }
      let gas = info.feeBigInt;
      if (info.dynamicGas) {
        const charged = entry.gasHandler(rs, gas, common);
        gas = typeof charged === "bigint" ? charged : await charged;
      }
      if (info.isInvalid) throw new EVMError(INVALID_OPCODE);
      rs.gasLeft -= gas;
      if (rs.gasLeft < 0n) {
        rs.gasLeft = 0n;
        throw new EVMError(OUT_OF_GAS);
      }
      rs.programCounter++;
      if (info.isAsync) await entry.opHandler(rs, common);
      else entry.opHandler(rs, common);
    } catch (e) {
      if (inNumber) {
        rs.gasLeft = BigInt(left);
        inNumber = false;
      }
      if (!isEVMError(e)) throw e;
      if (e.error !== STOP) err = e;
      break;
    }
  }
  if (inNumber) rs.gasLeft = BigInt(left);
  return { runState: rs, exceptionError: err };
}
