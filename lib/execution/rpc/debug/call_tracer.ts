/**
 * geth's `callTracer` (eth/tracers/native/call.go): the tree of call frames of a transaction with
 * type, from, to, value, gas, gasUsed, input, output, error and revertReason; `onlyTopCall` keeps
 * the top frame only, `withLog` adds each frame's logs with their position among its sub-calls.
 * The same frames feed the Parity traces of the trace namespace.
 *
 * A call that fails before entering its callee (value above the caller's balance, the 1024 call
 * depth limit, a create's nonce overflow) is a frame too, with its error, no output and no gas
 * used, as geth records it (core/vm/evm.go calls the tracer before those checks). @ethereumjs
 * returns 0 without a message there, so the tracer notices it from the steps: a CALL-family or
 * CREATE step followed by the next step of the same frame (or the frame's end) with no message
 * entered in between.
 */
import type { EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import { bytesToHex, type Hex, toQuantity } from "../../../common/mod.ts";
import {
  decodeRevertReason,
  frameError,
  gethError,
  type LastStep,
  opcodeByte,
  returnDataOutOfBounds,
  REVERT_ERROR,
} from "./evm_errors.ts";
import type { Tracer, TxInfo, TxOutcome } from "./hooks.ts";

export type CallType =
  | "CALL"
  | "STATICCALL"
  | "DELEGATECALL"
  | "CALLCODE"
  | "CREATE"
  | "CREATE2"
  | "SELFDESTRUCT";

export interface FrameLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  /** Number of sub-calls of the frame made before the log. */
  position: number;
}

/** One call frame in internal form. */
export interface CallFrame {
  type: CallType;
  from: Uint8Array;
  to?: Uint8Array;
  value: bigint;
  /** Gas of the frame: the tx gas limit for the top frame, the gas passed for a sub-call. */
  gas: bigint;
  gasUsed: bigint;
  /** Gas the EVM gave the frame and what it used (the top frame without intrinsic gas). */
  execGas: bigint;
  execGasUsed: bigint;
  input: Uint8Array;
  output: Uint8Array;
  /** @ethereumjs error string (see evm_errors.ts). */
  error?: string;
  calls: CallFrame[];
  logs: FrameLog[];
  /** The callee is a precompile (known once the frame ran). */
  precompile?: boolean;
  /** A create's address, also when it failed (`to` is then unset, as geth's callTracer has it). */
  created?: Uint8Array;
}

export interface CallTracerConfig {
  onlyTopCall?: boolean;
  withLog?: boolean;
}

const CALL_OPS = new Set(["CALL", "CALLCODE", "DELEGATECALL", "STATICCALL", "CREATE", "CREATE2"]);

/** @ethereumjs's call depth limit (`stackLimit`): a frame at this depth cannot call. */
const MAX_DEPTH = 1024;
/** The gas a value transfer adds to the callee's (callStipendGas). */
const CALL_STIPEND = 2300n;

/** geth's errors of a call refused before its callee runs (core/vm/errors.go). */
export const DEPTH_ERROR = "max call depth exceeded";
export const BALANCE_ERROR = "insufficient balance";
export const NONCE_ERROR = "nonce uint64 overflow";

/** A CALL-family or CREATE step whose callee has not been entered yet. */
interface PendingCall {
  type: CallType;
  depth: number;
  /** Gas left before the opcode was charged. */
  gasLeft: bigint;
  /** The gas operand (CALL family), or undefined for a create. */
  gasArg?: bigint;
  from: Uint8Array;
  to?: Uint8Array;
  value: bigint;
  input: Uint8Array;
  /** The caller's balance at the step (when the call moves value). */
  balance: bigint;
}

export interface CallFrameJson {
  type: CallType;
  from: Hex;
  gas: Hex;
  gasUsed: Hex;
  to?: Hex;
  input: Hex;
  output?: Hex;
  error?: string;
  revertReason?: string;
  calls?: CallFrameJson[];
  logs?: { address: Hex; topics: Hex[]; data: Hex; position: Hex }[];
  value?: Hex;
}

/** Records the frame tree (used by callTracer and by the Parity trace builder). */
export class CallTracer implements Tracer {
  readonly steps: boolean;
  readonly #cfg: CallTracerConfig;
  readonly #stack: CallFrame[] = [];
  readonly #msgs: Message[] = [];
  /** Per open frame: its last opcode and the gas left before it (to name the error it failed with). */
  readonly #last: (LastStep | undefined)[] = [];
  /** Per open frame: the length of its return data buffer (what its last call returned). */
  readonly #returnData: number[] = [];
  #tx: TxInfo | undefined;
  #root: CallFrame | undefined;
  #pending: PendingCall | undefined;

  constructor(cfg: CallTracerConfig = {}) {
    this.#cfg = cfg;
    // Steps for logs, and for SELFDESTRUCT frames (geth records them as calls with the balance sent).
    this.steps = true;
  }

  onTxStart(tx: TxInfo): void {
    this.#tx = tx;
  }

  async onStep(step: InterpreterStep): Promise<void> {
    const pending = this.#pending;
    if (pending !== undefined && step.depth === pending.depth) {
      this.#pending = undefined;
      this.#refused(pending, step.gasLeft);
    }
    const code = step.opcode.code;
    if (this.#last.length > 0) {
      const last: LastStep = { code: opcodeByte(step, this.#msgs.at(-1)?.code), gasLeft: step.gasLeft };
      if (code === 0x3e) last.outOfBounds = returnDataOutOfBounds(step.stack, this.#returnData.at(-1) ?? 0);
      this.#last[this.#last.length - 1] = last;
    }
    if (code >= 0xf0 && code !== 0xf3 && CALL_OPS.has(step.opcode.name)) return await this.#callStep(step);
    if (code === 0xff) return await this.#selfdestruct(step);
    if (code < 0xa0 || code > 0xa4 || this.#cfg.withLog !== true) return;
    const frame = this.#stack.at(-1);
    if (frame === undefined) return;
    const st = step.stack;
    const n = code - 0xa0;
    if (st.length < 2 + n) return;
    const offset = Number(st[st.length - 1]);
    const size = Number(st[st.length - 2]);
    const data = new Uint8Array(size);
    data.set(step.memory.subarray(offset, offset + size));
    const topics: Uint8Array[] = [];
    for (let i = 0; i < n; i++) topics.push(word(st[st.length - 3 - i]));
    frame.logs.push({ address: step.address.bytes, topics, data, position: frame.calls.length });
  }

  /** Records a CALL-family or CREATE step, to tell later whether its callee was entered. */
  async #callStep(step: InterpreterStep): Promise<void> {
    const st = step.stack;
    const n = st.length;
    const type = step.opcode.name as CallType;
    const create = type === "CREATE" || type === "CREATE2";
    const withValue = type === "CALL" || type === "CALLCODE";
    if (n < (create ? (type === "CREATE2" ? 4 : 3) : withValue ? 7 : 6)) return;
    const value = create ? st[n - 1] : withValue ? st[n - 3] : this.#stack.at(-1)?.value ?? 0n;
    const inAt = create ? n - 2 : withValue ? n - 4 : n - 3;
    const input = memorySlice(step.memory, st[inAt], st[inAt - 1]);
    let balance = 0n;
    if ((create || withValue) && value > 0n) {
      balance = (await step.stateManager.getAccount(step.address))?.balance ?? 0n;
    }
    this.#pending = {
      type,
      depth: step.depth,
      gasLeft: step.gasLeft,
      gasArg: create ? undefined : st[n - 1],
      from: step.address.bytes,
      to: create ? undefined : word(st[n - 2]).subarray(12),
      value,
      input,
      balance,
    };
  }

  /**
   * A call whose callee was never entered: the frame geth records for it, when the reason is one
   * of geth's pre-entry errors. `gasLeft` is the caller's gas after the opcode.
   */
  #refused(p: PendingCall, gasLeft: bigint): void {
    const parent = this.#stack.at(-1);
    if (parent === undefined) return;
    // No callee ran: the caller's return data buffer is empty.
    if (this.#returnData.length > 0) this.#returnData[this.#returnData.length - 1] = 0;
    const create = p.type === "CREATE" || p.type === "CREATE2";
    const moves = create || p.type === "CALL" || p.type === "CALLCODE";
    let error: string;
    if (p.depth >= MAX_DEPTH) error = DEPTH_ERROR;
    else if (moves && p.value > p.balance) error = BALANCE_ERROR;
    else if (create) error = NONCE_ERROR;
    else return;
    // What the opcode charged (a value call's stipend was added back to the caller), then the
    // gas the callee would have had: all but 1/64 of the rest (EIP-150), capped by the operand.
    const stipend = moves && !create && p.value > 0n ? CALL_STIPEND : 0n;
    const rest = gasLeft - stipend;
    let gas = rest - rest / 64n;
    if (p.gasArg !== undefined && p.gasArg < gas) gas = p.gasArg;
    gas += stipend;
    parent.calls.push({
      type: p.type,
      from: p.from,
      to: p.to,
      value: p.value,
      gas,
      gasUsed: 0n,
      execGas: gas,
      execGasUsed: 0n,
      input: p.input,
      output: new Uint8Array(),
      error,
      calls: [],
      logs: [],
    });
  }

  async #selfdestruct(step: InterpreterStep): Promise<void> {
    const frame = this.#stack.at(-1);
    if (frame === undefined || step.stack.length < 1) return;
    const beneficiary = word(step.stack[step.stack.length - 1]).subarray(12);
    const balance = (await step.stateManager.getAccount(step.address))?.balance ?? 0n;
    frame.calls.push({
      type: "SELFDESTRUCT",
      from: step.address.bytes,
      to: beneficiary,
      value: balance,
      gas: 0n,
      gasUsed: 0n,
      execGas: 0n,
      execGasUsed: 0n,
      input: new Uint8Array(),
      output: new Uint8Array(),
      calls: [],
      logs: [],
    });
  }

  onEnter(msg: Message, opName: string | undefined): void {
    let type: CallType;
    if (opName !== undefined && CALL_OPS.has(opName)) type = opName as CallType;
    else if (msg.to === undefined) type = msg.salt !== undefined ? "CREATE2" : "CREATE";
    else type = msg.delegatecall ? "DELEGATECALL" : "CALL";
    const isCreate = type === "CREATE" || type === "CREATE2";
    const frame: CallFrame = {
      type,
      from: type === "DELEGATECALL" ? msg.to!.bytes : msg.caller.bytes,
      to: isCreate ? undefined : msg.codeAddress.bytes,
      value: msg.value,
      gas: msg.gasLimit,
      gasUsed: 0n,
      execGas: msg.gasLimit,
      execGasUsed: 0n,
      // A copy: @ethereumjs passes CALL and CREATE inputs as views into the caller's memory, which the
      // caller goes on to overwrite (e.g. with the call's return data).
      input: msg.data.slice(),
      output: new Uint8Array(),
      calls: [],
      logs: [],
    };
    this.#pending = undefined;
    const parent = this.#stack.at(-1);
    if (parent !== undefined) parent.calls.push(frame);
    else this.#root = frame;
    this.#stack.push(frame);
    this.#msgs.push(msg);
    this.#last.push(undefined);
    this.#returnData.push(0);
  }

  onExit(result: EVMResult): void {
    const pending = this.#pending;
    this.#pending = undefined;
    // The frame's last opcode was a call that never entered (the frame then ended on the
    // implicit STOP); when the frame failed, the opcode itself did (out of gas, static context).
    if (pending !== undefined && result.execResult.exceptionError === undefined) {
      const top = this.#stack.at(-1);
      if (top !== undefined) this.#refused(pending, top.execGas - result.execResult.executionGasUsed);
    }
    const frame = this.#stack.pop();
    const msg = this.#msgs.pop();
    const last = this.#last.pop();
    this.#returnData.pop();
    if (frame === undefined) return;
    // The EVM loads the code into the message when it runs it: a function for a precompile.
    frame.precompile = typeof msg?.code === "function";
    const r = result.execResult;
    frame.execGasUsed = r.executionGasUsed;
    frame.gasUsed = r.executionGasUsed;
    frame.output = r.returnValue;
    frame.error = frameError(r.exceptionError?.error, frame.precompile, last);
    if (frame.type === "CREATE" || frame.type === "CREATE2") {
      frame.created = result.createdAddress?.bytes;
      if (frame.error === undefined) frame.to = frame.created;
    }
    // The caller's return data buffer: empty after a successful create (EIP-211), else the output.
    const create = frame.type === "CREATE" || frame.type === "CREATE2";
    if (this.#returnData.length > 0) {
      this.#returnData[this.#returnData.length - 1] = create && frame.error === undefined
        ? 0
        : r.returnValue.length;
    }
    if (frame.error !== undefined) clearLogs(frame);
  }

  onTxEnd(outcome: TxOutcome): void {
    const tx = this.#tx;
    if (this.#root === undefined && tx !== undefined) {
      // Failed before the EVM ran (a deposit past its intrinsic gas, say): one frame from the tx.
      this.#root = {
        type: tx.to === null ? "CREATE" : "CALL",
        from: tx.from,
        to: tx.to ?? undefined,
        value: tx.value,
        gas: tx.gasLimit,
        gasUsed: outcome.gasUsed,
        execGas: 0n,
        execGasUsed: 0n,
        input: tx.input,
        output: new Uint8Array(),
        error: outcome.error,
        calls: [],
        logs: [],
      };
    }
    const root = this.#root;
    if (root !== undefined && tx !== undefined) {
      root.gas = tx.gasLimit;
      root.gasUsed = outcome.gasUsed;
      if (root.error === undefined && outcome.error !== undefined) root.error = outcome.error;
      // geth callFrame.processOutput: a failed CREATE frame has no `to` (the receipt still names the address).
      if (outcome.contractAddress !== undefined && root.error === undefined) {
        root.to = outcome.contractAddress;
      }
    }
  }

  /** The top frame (undefined before the transaction ran). */
  root(): CallFrame | undefined {
    return this.#root;
  }

  result(): CallFrameJson {
    const root = this.#root;
    if (root === undefined) throw new Error("call tracer has no frame: the transaction did not run");
    return frameJson(root, this.#cfg);
  }
}

/** `size` bytes of memory at `offset`, zero past its end (memory may not be grown yet at the step). */
function memorySlice(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array {
  const out = new Uint8Array(Number(size));
  if (size === 0n || offset >= BigInt(memory.length)) return out;
  const o = Number(offset);
  out.set(memory.subarray(o, o + out.length));
  return out;
}

function clearLogs(frame: CallFrame): void {
  frame.logs = [];
  for (const c of frame.calls) clearLogs(c);
}

function word(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 31; i >= 0 && x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

/** geth's JSON of a frame (gen_callframe_json.go field set). */
export function frameJson(f: CallFrame, cfg: CallTracerConfig): CallFrameJson {
  const out: CallFrameJson = {
    type: f.type,
    from: bytesToHex(f.from),
    gas: toQuantity(f.gas),
    gasUsed: toQuantity(f.gasUsed),
    ...(f.to === undefined ? {} : { to: bytesToHex(f.to) }),
    input: bytesToHex(f.input),
  };
  if (f.error === undefined) {
    if (f.output.length > 0) out.output = bytesToHex(f.output);
  } else {
    out.error = gethError(f.error);
    if (f.error === REVERT_ERROR && f.output.length > 0) {
      out.output = bytesToHex(f.output);
      const reason = decodeRevertReason(f.output);
      if (reason !== undefined) out.revertReason = reason;
    }
  }
  if (!cfg.onlyTopCall && f.calls.length > 0) out.calls = f.calls.map((c) => frameJson(c, cfg));
  if (cfg.withLog && f.logs.length > 0) {
    out.logs = f.logs.map((l) => ({
      address: bytesToHex(l.address),
      topics: l.topics.map(bytesToHex),
      data: bytesToHex(l.data),
      position: toQuantity(l.position),
    }));
  }
  if (f.type !== "STATICCALL") out.value = toQuantity(f.value);
  return out;
}

/**
 * geth's `4byteTracer` (eth/tracers/native/4byte.go): "<selector>-<calldata size after it>" ->
 * how many calls used it, over every call with at least 4 bytes of input that is not a create
 * and not a precompile.
 */
export function fourByteResult(root: CallFrame | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (f: CallFrame) => {
    const isCall = f.type !== "CREATE" && f.type !== "CREATE2" && f.type !== "SELFDESTRUCT";
    if (isCall && !f.precompile && f.input.length >= 4) {
      const key = `${bytesToHex(f.input.subarray(0, 4))}-${f.input.length - 4}`;
      out[key] = (out[key] ?? 0) + 1;
    }
    for (const c of f.calls) walk(c);
  };
  if (root !== undefined) walk(root);
  return out;
}
