/**
 * Call frames without a fresh 8 KiB memory each. @ethereumjs's `EVM.runInterpreter` makes a new
 * `Interpreter` per frame, whose constructor allocates `new Memory()`: an 8 KiB zeroed buffer outside
 * the JS heap (a calloc and external-memory accounting, which also brings garbage collections forward).
 * A token transfer is one frame, so a 500-transfer block made 500 of them (the largest self-time item of
 * block import in the CPU profile, ~5-8 ms a block). Here frames of the EVMs the fast loop serves take
 * a memory from a pool, zeroed, and give it back when the frame's result is built; everything else is
 * `runInterpreter` and the `Interpreter` constructor of @ethereumjs/evm 10.1.3 as written (same fields,
 * same order, same result), which tests/unit/execution/evm/fast_frame_test.ts checks field for field
 * against a stock interpreter so that a version with other fields fails there, not in a block.
 *
 * A memory goes back to the pool only when nothing can still read it: the frame is over, its result
 * copied out (RETURN and REVERT copy, LOG copies, a child's calldata is a view of the parent's memory
 * but the child ends first). Frames with step or message listeners (tracers), debug logging, the
 * profiler or the EIPs of fast_loop.ts's stock-only list keep the stock path.
 */
import { Account, createZeroAddress } from "@ethereumjs/util";
import { EVMError } from "@ethereumjs/evm";

const CONTAINER_SIZE = 8192;
/** Memories kept for reuse (frames nest; a few suffice, more only hold memory). */
const POOL_SIZE = 64;
/**
 * The EIPs whose per-step or per-frame work only @ethereumjs's own loop and frames do (EOF, code-chunk
 * gas of EIP-6800 and EIP-7864, EIP-7928 call out-of-gas, EIP-8037 leftover burn): with any active, the
 * fast loop (fast_loop.ts) and these frames step aside.
 */
export const STOCK_ONLY_EIPS: readonly number[] = [3540, 6800, 7864, 7928, 8037, 8038];

interface MemoryLike {
  _store: Uint8Array;
}

interface EvmLike {
  stateManager: { getAccount(address: unknown): Promise<Account | undefined> };
  blockchain: unknown;
  journal: unknown;
  performanceLogger: unknown;
  common: { consensusType(): string; isActivatedEIP(eip: number): boolean };
  events: { listenerCount(name: string): number };
  DEBUG: boolean;
  _tx: { gasPrice: bigint; origin?: unknown };
  _block?: unknown;
  _optsCached: { profiler?: { enabled?: boolean }; cliqueSigner?: unknown };
  runInterpreter(message: Message, opts?: object): Promise<unknown>;
}

interface Message {
  to?: unknown;
  caller?: unknown;
  data?: Uint8Array;
  value?: bigint;
  code?: Uint8Array;
  isStatic?: boolean;
  isCreate?: boolean;
  depth?: number;
  codeAddress?: unknown;
  gasRefund: bigint;
  chargeCodeAccesses?: boolean;
  blobVersionedHashes?: unknown[];
  accessWitness?: { commit(): void };
  createdAddresses?: Set<string>;
  selfdestruct?: Map<string, unknown>;
  gasLimit: bigint;
}

interface InterpreterLike {
  _runState: { memory: MemoryLike; gasLeft: bigint; gasRefund: bigint; stateGasSpilled: bigint };
  _env: object;
  _result: {
    logs: unknown[];
    returnValue?: Uint8Array;
    selfdestruct: Map<string, unknown>;
    createdAddresses?: Set<string>;
  };
  run(code: Uint8Array | undefined, opts: object): Promise<{
    runState: InterpreterLike["_runState"];
    exceptionError?: EVMError;
  }>;
}

export interface Prototypes {
  interpreter: object;
  memory: object;
  stack: new () => unknown;
}

let protos: Prototypes | undefined;
const FAST_EVMS = new WeakSet<object>();
const pool: MemoryLike[] = [];
let patchedEvmProto: object | undefined;
/** Frames built here and memories reused (tests, profiling). */
export const fastFrameStats = { frames: 0, reused: 0 };

/** Learns the interpreter, memory and stack classes from a stock interpreter (fast_loop.ts calls it). */
export function learnInterpreter(interpreter: unknown): void {
  if (protos !== undefined) return;
  const it = interpreter as { _runState?: { memory?: object; stack?: object } };
  const memory = it._runState?.memory;
  const stack = it._runState?.stack;
  if (memory === undefined || stack === undefined) return;
  protos = {
    interpreter: Object.getPrototypeOf(interpreter),
    memory: Object.getPrototypeOf(memory),
    stack: stack.constructor as new () => unknown,
  };
}

/** Lets `evm`'s frames take pooled memories (patches the EVM class once). */
export function installFastFrames(evm: object): void {
  FAST_EVMS.add(evm);
  const proto = Object.getPrototypeOf(evm) as EvmLike;
  if (patchedEvmProto === proto) return;
  patchedEvmProto = proto;
  const stock = proto.runInterpreter;
  proto.runInterpreter = function (this: EvmLike, message: Message, opts: object = {}) {
    // runCall sets the block a message sees; without one the stock path supplies its default block.
    if (protos === undefined || this._block === undefined || !eligible(this)) {
      return stock.call(this, message, opts);
    }
    return runFrame(this, protos, message, opts);
  };
}

function eligible(evm: EvmLike): boolean {
  if (!FAST_EVMS.has(evm) || evm.DEBUG || evm._optsCached.profiler?.enabled === true) return false;
  if (evm.common.consensusType() === "poa") return false;
  const e = evm.events;
  if (e.listenerCount("step") > 0 || e.listenerCount("afterMessage") > 0) return false;
  for (const eip of STOCK_ONLY_EIPS) if (evm.common.isActivatedEIP(eip)) return false;
  return true;
}

function takeMemory(p: Prototypes): MemoryLike {
  const m = pool.pop();
  if (m !== undefined) {
    fastFrameStats.reused++;
    return m;
  }
  const fresh = Object.create(p.memory) as MemoryLike;
  fresh._store = new Uint8Array(CONTAINER_SIZE);
  return fresh;
}

function giveBack(m: MemoryLike): void {
  // A memory that grew keeps its larger buffer out of the pool.
  if (m._store.length !== CONTAINER_SIZE || pool.length >= POOL_SIZE) return;
  m._store.fill(0);
  pool.push(m);
}

/** The classes learned from a stock interpreter (tests compare the two constructions). */
export function learnedPrototypes(): Readonly<Prototypes> | undefined {
  return protos;
}

/** interpreter.js's constructor, with a pooled memory (exported for tests). */
export function newInterpreter(
  p: Prototypes,
  evm: EvmLike,
  env: Record<string, unknown>,
  gasLeft: bigint,
): InterpreterLike {
  const it = Object.create(p.interpreter) as Record<string, unknown>;
  it.opDebuggers = {};
  it._evm = evm;
  it._stateManager = evm.stateManager;
  it.common = evm.common;
  it._runState = {
    programCounter: 0,
    opCode: 0xfe,
    memory: takeMemory(p),
    memoryWordCount: 0n,
    highestMemCost: 0n,
    stack: new p.stack(),
    code: new Uint8Array(0),
    validJumps: Uint8Array.from([]),
    cachedPushes: {},
    stateManager: evm.stateManager,
    blockchain: evm.blockchain,
    env,
    shouldDoJumpAnalysis: true,
    interpreter: it,
    gasRefund: env.gasRefund,
    gasLeft,
    stateGasSpilled: 0n,
    returnBytes: new Uint8Array(0),
  };
  it.journal = evm.journal;
  it._env = env;
  const initialLogs = env.initialLogs as unknown[] | undefined;
  it._result = { logs: initialLogs ? [...initialLogs] : [], returnValue: undefined, selfdestruct: new Map() };
  it.profilerOpts = evm._optsCached.profiler;
  it.performanceLogger = evm.performanceLogger;
  return it as unknown as InterpreterLike;
}

/** evm.js's runInterpreter, with newInterpreter and the memory given back at the end. */
async function runFrame(evm: EvmLike, p: Prototypes, message: Message, opts: { initialLogs?: unknown[] }) {
  fastFrameStats.frames++;
  const contract = (await evm.stateManager.getAccount(message.to ?? createZeroAddress())) ?? new Account();
  const env = {
    address: message.to ?? createZeroAddress(),
    caller: message.caller ?? createZeroAddress(),
    callData: message.data ?? Uint8Array.from([0]),
    callValue: message.value ?? 0n,
    code: message.code,
    isStatic: message.isStatic ?? false,
    isCreate: message.isCreate ?? false,
    depth: message.depth ?? 0,
    gasPrice: evm._tx.gasPrice,
    origin: evm._tx.origin ?? message.caller ?? createZeroAddress(),
    block: evm._block,
    contract,
    codeAddress: message.codeAddress,
    gasRefund: message.gasRefund,
    chargeCodeAccesses: message.chargeCodeAccesses,
    blobVersionedHashes: message.blobVersionedHashes ?? [],
    accessWitness: message.accessWitness,
    createdAddresses: message.createdAddresses,
    initialLogs: opts.initialLogs,
  };
  const interpreter = newInterpreter(p, evm, env, message.gasLimit);
  const memory = interpreter._runState.memory;
  if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct;
  if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses;
  const interpreterRes = await interpreter.run(message.code, opts);
  let result = interpreter._result;
  let gasUsed = message.gasLimit - interpreterRes.runState.gasLeft;
  if (interpreterRes.exceptionError) {
    const error = interpreterRes.exceptionError.error;
    if (error !== EVMError.errorMessages.REVERT && error !== EVMError.errorMessages.INVALID_EOF_FORMAT) {
      gasUsed = message.gasLimit;
    }
    result = { ...result, logs: [], selfdestruct: new Map(), createdAddresses: new Set() };
  }
  message.accessWitness?.commit();
  const out = {
    ...result,
    runState: { ...interpreterRes.runState, ...result, ...interpreter._env },
    exceptionError: interpreterRes.exceptionError,
    gas: interpreterRes.runState?.gasLeft,
    executionGasUsed: gasUsed,
    gasRefund: interpreterRes.runState.gasRefund,
    stateGasSpilled: interpreterRes.runState.stateGasSpilled,
    returnValue: result.returnValue ?? new Uint8Array(0),
  };
  giveBack(memory);
  return out;
}
