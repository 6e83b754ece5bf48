/**
 * Faster handlers for the hot @ethereumjs/evm opcodes: the stock MSTORE, MLOAD, KECCAK256,
 * CALLDATALOAD, SLOAD, SSTORE and LOG convert 256-bit words through hex strings (`bigIntToBytes`,
 * `bytesToBigInt`); these move them with DataView 64-bit limbs instead (words.ts; MSTORE about 18x,
 * MLOAD about 3x faster, measured). Only the word conversion differs: the gas (charged by the gas
 * handlers before a handler runs, fast_gas.ts), memory growth, stack checks and errors are the
 * stock ones, and tests/unit/execution/evm/fast_opcodes_test.ts compares both on a corpus.
 *
 * KECCAK256 of inputs up to 96 bytes is memoized (see keccakMemo) unless installed with
 * `keccakMemo: false` (block VMs: block_builder.ts). The interpreter's jump analysis is memoized per
 * code (memoizeJumpAnalysis).
 *
 * `installFastOpcodes` swaps the handlers in one EVM's opcode table in place (the entries the
 * interpreter's jump analysis caches are the same objects). Entries whose handler is not the
 * stock one (custom opcodes) are left alone. It also installs the synchronous gas handlers
 * (fast_gas.ts) and opts the EVM into the interpreter loop that awaits only asynchronous steps
 * (fast_loop.ts).
 *
 * `installDeadlineCheck` wraps JUMP and JUMPI of one EVM (the eth_call VMs) with a wall-clock
 * deadline check, so a pure compute loop stops at rpc.evmtimeout; other EVMs pay nothing.
 */
import { type EVMInterface, getOpcodesForHF } from "@ethereumjs/evm";
import { BaseError, bytesToHex, keccak256 } from "../../common/mod.ts";
import { installFastLoop, patchInterpreter } from "./fast_loop.ts";
import { installFastGas } from "./fast_gas.ts";
import { bytesWord, minimalBytes, readWord, wordBytes, writeWord } from "./words.ts";

interface RunState {
  opCode: number;
  stack: {
    pop(): bigint;
    popN(n: number): bigint[];
    push(v: bigint): void;
  };
  memory: {
    _store: Uint8Array;
    extend(offset: number, size: number): void;
    read(offset: number, size: number): Uint8Array;
  };
  interpreter: {
    storageStore(key: Uint8Array, value: Uint8Array): Promise<void>;
    log(data: Uint8Array, topicCount: number, topics: Uint8Array[]): void;
    getCallData(): Uint8Array;
    getCallDataSize(): bigint;
    storageLoad(key: Uint8Array, original?: boolean): Promise<Uint8Array>;
  };
}

interface CommonLike {
  customCrypto: { keccak256?: (data: Uint8Array) => Uint8Array };
  isActivatedEIP(eip: number): boolean;
}

type Handler = (runState: RunState, common: CommonLike) => void | Promise<void>;

interface OpcodeEntry {
  opcodeInfo: { name: string; isAsync: boolean };
  opHandler: Handler;
}

let viewStore: Uint8Array | undefined;
let viewOfStore: DataView = new DataView(new ArrayBuffer(0));

/** A DataView over `bytes` (the last one is kept: memory is read many times between growths). */
function viewOf(bytes: Uint8Array): DataView {
  if (bytes !== viewStore) {
    viewStore = bytes;
    viewOfStore = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  return viewOfStore;
}

/**
 * @ethereumjs's jump-destination analysis, memoized per code and opcode table. The interpreter runs it
 * for every call frame that jumps: a pass over the whole code that turns every PUSH immediate into a
 * bigint through a hex string (tens of microseconds for a token contract), though the result depends
 * only on the code bytes and on the EVM's opcode table (whose entries it caches; keel swaps handlers
 * inside the entries, never the entries). The interpreter class is not exported, so its prototype is
 * patched from the first fast handler that runs. The interpreter only reads the result.
 */
let jumpAnalysisMemoized = false;
const jumpAnalyses = new WeakMap<object, WeakMap<Uint8Array, unknown>>();
/** How often the analysis ran and how often a memoized one was reused (tests, profiling). */
export const jumpAnalysisStats = { computed: 0, reused: 0 };

interface InterpreterLike {
  _evm: { _opcodeMap: object };
  _getValidJumpDestinations(code: Uint8Array): unknown;
}

function memoizeJumpAnalysis(interpreter: unknown): void {
  jumpAnalysisMemoized = true;
  patchInterpreter(interpreter);
  const proto = Object.getPrototypeOf(interpreter) as InterpreterLike;
  const analyse = proto._getValidJumpDestinations;
  if (typeof analyse !== "function") return;
  proto._getValidJumpDestinations = function (this: InterpreterLike, code: Uint8Array) {
    const table = this._evm._opcodeMap;
    let byCode = jumpAnalyses.get(table);
    if (byCode === undefined) jumpAnalyses.set(table, byCode = new WeakMap());
    let result = byCode.get(code);
    if (result === undefined) {
      result = analyse.call(this, code);
      byCode.set(code, result);
      jumpAnalysisStats.computed++;
    } else jumpAnalysisStats.reused++;
    return result;
  };
}

function mload(runState: RunState): void {
  const pos = Number(runState.stack.pop());
  const memory = runState.memory;
  memory.extend(pos, 32);
  runState.stack.push(readWord(viewOf(memory._store), pos));
}

function mstore(runState: RunState): void {
  if (!jumpAnalysisMemoized) memoizeJumpAnalysis(runState.interpreter);
  const [offset, word] = runState.stack.popN(2);
  const pos = Number(offset);
  const memory = runState.memory;
  memory.extend(pos, 32);
  writeWord(viewOf(memory._store), pos, word);
}

/**
 * Hashes of short inputs (mapping slots: key and slot, 64 bytes), kept across runs: keccak256
 * is a pure function and a contract hashes the same keys again and again (a balanceOf is one
 * hash of about 5 us in JavaScript). Bounded: dropped whole when full.
 */
const keccakMemo = new Map<string, bigint>();
const KECCAK_MEMO_SIZE = 16_384;
const KECCAK_MEMO_INPUT = 96;

/** The KECCAK256 input: `length` bytes of memory at `offset` (memory grown as the stock one). */
function keccakInput(runState: RunState): Uint8Array {
  const [offset, length] = runState.stack.popN(2);
  if (length === 0n) return new Uint8Array(0);
  const start = Number(offset);
  const size = Number(length);
  const memory = runState.memory;
  memory.extend(start, size);
  return memory._store.subarray(start, start + size);
}

/** KECCAK256 without the memo (block execution: mostly distinct keys, see installFastOpcodes). */
function keccakPlainOp(runState: RunState, common: CommonLike): void {
  const data = keccakInput(runState);
  runState.stack.push(bytesWord((common.customCrypto.keccak256 ?? keccak256)(data), 0));
}

function keccakOp(runState: RunState, common: CommonLike): void {
  const data = keccakInput(runState);
  // keel's own keccak256 (every Common carries it, evm/common.ts) may be memoised; another one may not.
  const custom = common.customCrypto.keccak256;
  if ((custom !== undefined && custom !== keccak256) || data.length > KECCAK_MEMO_INPUT) {
    runState.stack.push(bytesWord((custom ?? keccak256)(data), 0));
    return;
  }
  const key = bytesToHex(data);
  let hash = keccakMemo.get(key);
  if (hash === undefined) {
    if (keccakMemo.size >= KECCAK_MEMO_SIZE) keccakMemo.clear();
    hash = bytesWord(keccak256(data), 0);
    keccakMemo.set(key, hash);
  }
  runState.stack.push(hash);
}

function calldataload(runState: RunState): void {
  if (!jumpAnalysisMemoized) memoizeJumpAnalysis(runState.interpreter);
  const pos = runState.stack.pop();
  const interpreter = runState.interpreter;
  if (pos > interpreter.getCallDataSize()) {
    runState.stack.push(0n);
    return;
  }
  runState.stack.push(bytesWord(interpreter.getCallData(), Number(pos)));
}

async function sload(runState: RunState): Promise<void> {
  const key = runState.stack.pop();
  const value = await runState.interpreter.storageLoad(wordBytes(key));
  runState.stack.push(value.length === 0 ? 0n : bytesWord(value, value.length - 32));
}

/** SSTORE; EIP-8037's state gas (metered in the handler) is left to the stock one. */
function sstore(runState: RunState, common: CommonLike): Promise<void> {
  if (common.isActivatedEIP(8037)) return stockHandlers!.get(0x55)!(runState, common) as Promise<void>;
  const [key, value] = runState.stack.popN(2);
  return runState.interpreter.storageStore(wordBytes(key), minimalBytes(value));
}

function logOp(runState: RunState): void {
  const [offset, length] = runState.stack.popN(2);
  const count = runState.opCode - 0xa0;
  const topics = runState.stack.popN(count).map((t) => wordBytes(t));
  const data = length === 0n ? new Uint8Array(0) : runState.memory.read(Number(offset), Number(length));
  runState.interpreter.log(data, count, topics);
}

/** Opcode -> [stock name, fast handler, async]. */
const FAST: ReadonlyMap<number, [string, Handler, boolean]> = new Map<number, [string, Handler, boolean]>([
  [0x20, ["KECCAK256", keccakOp, false]],
  [0x35, ["CALLDATALOAD", calldataload, true]],
  [0x51, ["MLOAD", mload, false]],
  [0x52, ["MSTORE", mstore, false]],
  [0x54, ["SLOAD", sload, true]],
  [0x55, ["SSTORE", sstore, true]],
  ...[0xa0, 0xa1, 0xa2, 0xa3, 0xa4].map((
    op,
  ): [number, [string, Handler, boolean]] => [op, ["LOG", logOp, false]]),
]);

/** The library's stock handlers (no custom opcodes). */
let stockHandlers: Map<number, Handler> | undefined;

export interface FastOpcodesOptions {
  /**
   * Memoize KECCAK256 of inputs up to 96 bytes (default true: eth_call repeats the same mapping
   * keys). Block execution passes false: its keys are mostly distinct (each transfer's
   * recipient), so the memo would only add a hex key and a map insert per hash.
   */
  keccakMemo: boolean;
}

export const DEFAULT_FAST_OPCODES_OPTIONS: FastOpcodesOptions = { keccakMemo: true };

/**
 * Replaces the stock MSTORE, MLOAD, KECCAK256, CALLDATALOAD, SLOAD, SSTORE and LOG handlers and the
 * gas handlers of fast_gas.ts in `evm`'s opcode table by the faster ones and lets its frames run
 * the fast loop; call before the EVM runs. An entry whose handler is not the stock
 * one (a custom opcode) is kept. Returns how many handlers were replaced.
 */
export function installFastOpcodes(
  evm: EVMInterface,
  options: Partial<FastOpcodesOptions> = {},
): number {
  const { keccakMemo: memo } = { ...DEFAULT_FAST_OPCODES_OPTIONS, ...options };
  const table = (evm as unknown as { _opcodeMap: OpcodeEntry[] })._opcodeMap;
  stockHandlers ??= getOpcodesForHF(
    (evm as unknown as { common: Parameters<typeof getOpcodesForHF>[0] }).common,
  )
    .handlers as unknown as Map<number, Handler>;
  installFastLoop(evm);
  let replaced = 0;
  for (const [op, [name, handler, isAsync]] of FAST) {
    const entry = table[op];
    if (entry === undefined || entry.opcodeInfo.name !== name || entry.opcodeInfo.isAsync !== isAsync) {
      continue;
    }
    if (entry.opHandler !== stockHandlers.get(op)) continue;
    entry.opHandler = op === 0x20 && !memo ? keccakPlainOp : handler;
    replaced++;
  }
  return replaced + installFastGas(evm);
}

/** BaseError code of a run stopped at its deadline (rpc.evmtimeout). */
export const EVM_TIMEOUT = "EVM_TIMEOUT";

/** The deadline an EVM's runs read: Date.now() value after which they stop; 0 = none. */
export interface RunDeadline {
  deadline: number;
}

/** Jumps between two clock reads (a JUMP costs about 0.1-0.3 us here: about one read per 0.1-0.3 ms). */
export const DEADLINE_CHECK_INTERVAL = 1024;

/**
 * Wraps `evm`'s JUMP and JUMPI handlers: every DEADLINE_CHECK_INTERVAL jumps the clock is read and
 * a run past `clock.deadline` (when not 0) throws BaseError(EVM_TIMEOUT), which is not an EVM error,
 * so it leaves the interpreter and the call. Every loop passes a jump, so no loop outlives the
 * deadline by more than an interval. (geth stops the interpreter at the next opcode when the call's
 * context times out: evm.Cancel.) Returns how many handlers were wrapped (2, or 0 when already done).
 */
export function installDeadlineCheck(evm: EVMInterface, clock: RunDeadline): number {
  const table = (evm as unknown as { _opcodeMap: OpcodeEntry[] })._opcodeMap;
  let count = 0;
  let wrapped = 0;
  for (const op of [0x56, 0x57]) {
    const entry = table[op];
    if (entry === undefined || DEADLINE_WRAPPED.has(entry.opHandler)) continue;
    const inner = entry.opHandler;
    const handler: Handler = (runState, common) => {
      if (++count >= DEADLINE_CHECK_INTERVAL) {
        count = 0;
        if (clock.deadline !== 0 && Date.now() > clock.deadline) {
          throw new BaseError(EVM_TIMEOUT, "execution aborted (timeout)");
        }
      }
      return inner(runState, common);
    };
    DEADLINE_WRAPPED.add(handler);
    entry.opHandler = handler;
    wrapped++;
  }
  return wrapped;
}

const DEADLINE_WRAPPED = new WeakSet<Handler>();
