/**
 * The Parity `vmTrace` (OpenEthereum VMTrace, as reth serves it): per call frame its code and one
 * entry per executed opcode with pc, cost and `ex` = {used (gas left after the op), push (the
 * stack items it pushed; DUPn and SWAPn count n+1), mem (the memory it wrote), store (SSTORE's key
 * and value)}, and `sub` = the frame a CALL or CREATE opened. `ex` is null for an op that failed.
 */
import type { EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import { bytesToHex, type Hex, toQuantity } from "../../../common/mod.ts";
import { forwardedCallGas, REVERT_ERROR, type Tracer } from "../debug/mod.ts";

export interface VmExecuted {
  mem: { data: Hex; off: number } | null;
  push: Hex[];
  store: { key: Hex; val: Hex } | null;
  used: number;
}

export interface VmOp {
  cost: number;
  ex: VmExecuted | null;
  pc: number;
  sub: VmTrace | null;
}

export interface VmTrace {
  code: Hex;
  ops: VmOp[];
}

interface Pending {
  code: number;
  stack: bigint[];
}

interface Frame {
  msg: Message;
  /**
   * A create's init code, copied when the frame begins: @ethereumjs hands it over as a view of the
   * creator's memory, which the creator overwrites afterwards. A call's code is loaded later, read at the end.
   */
  code?: Uint8Array;
  ops: VmOp[];
  pending?: Pending;
  subs: Map<VmOp, Frame>;
  childOutputLength: number;
}

const NO_PUSH = new Set([
  0x00,
  0x37,
  0x39,
  0x3c,
  0x3e,
  0x50,
  0x52,
  0x53,
  0x55,
  0x56,
  0x57,
  0x5b,
  0x5d,
  0x5e,
  0xa0,
  0xa1,
  0xa2,
  0xa3,
  0xa4,
  0xf3,
  0xfd,
  0xfe,
  0xff,
]);

function pushCount(code: number): number {
  if (code >= 0x80 && code <= 0x8f) return code - 0x80 + 2; // DUP1..16
  if (code >= 0x90 && code <= 0x9f) return code - 0x90 + 2; // SWAP1..16
  return NO_PUSH.has(code) ? 0 : 1;
}

const num = (v: bigint | undefined) => (v === undefined ? 0 : Number(v));

/** Memory region [offset, length) the op wrote, from the stack before it. */
function memWrite(p: Pending, childOutputLength: number): [number, number] | undefined {
  const st = p.stack;
  const at = (i: number) => st[st.length - 1 - i];
  switch (p.code) {
    case 0x52:
      return [num(at(0)), 32];
    case 0x53:
      return [num(at(0)), 1];
    case 0x37:
    case 0x39:
    case 0x3e:
    case 0x5e:
      return [num(at(0)), num(at(2))];
    case 0x3c:
      return [num(at(1)), num(at(3))];
    case 0xf1:
    case 0xf2:
      return [num(at(5)), Math.min(num(at(6)), childOutputLength)];
    case 0xf4:
    case 0xfa:
      return [num(at(4)), Math.min(num(at(5)), childOutputLength)];
  }
  return undefined;
}

export class VmTracer implements Tracer {
  readonly steps = true;
  readonly #stack: Frame[] = [];
  #root: Frame | undefined;

  onEnter(msg: Message, opName: string | undefined): void {
    const frame: Frame = { msg, ops: [], subs: new Map(), childOutputLength: 0 };
    // A create's init code arrives as its data (@ethereumjs moves it to `code` when the frame runs).
    if (msg.to === undefined && msg.data instanceof Uint8Array) frame.code = msg.data.slice();
    const parent = this.#stack.at(-1);
    const op = parent?.ops.at(-1);
    if (parent !== undefined && op !== undefined) {
      parent.subs.set(op, frame);
      op.cost += Number(forwardedCallGas(opName, msg));
    }
    if (parent === undefined) this.#root = frame;
    this.#stack.push(frame);
  }

  onStep(step: InterpreterStep): void {
    const frame = this.#stack.at(-1);
    if (frame === undefined) return;
    this.#finish(frame, step.stack, step.memory, step.gasLeft);
    frame.ops.push({
      cost: Number(step.opcode.dynamicFee ?? BigInt(step.opcode.fee)),
      ex: null,
      pc: step.pc,
      sub: null,
    });
    frame.pending = { code: step.opcode.code, stack: step.stack };
  }

  #finish(frame: Frame, stack: bigint[], memory: Uint8Array, gasLeft: bigint): void {
    const p = frame.pending;
    const op = frame.ops.at(-1);
    if (p === undefined || op === undefined) return;
    frame.pending = undefined;
    const n = pushCount(p.code);
    const push = stack.slice(Math.max(0, stack.length - n)).map((v) => toQuantity(v));
    const w = memWrite(p, frame.childOutputLength);
    let mem: VmExecuted["mem"] = null;
    if (w !== undefined && w[1] > 0) {
      const data = new Uint8Array(w[1]);
      data.set(memory.subarray(w[0], w[0] + w[1]));
      mem = { data: bytesToHex(data), off: w[0] };
    }
    let store: VmExecuted["store"] = null;
    if (p.code === 0x55 && p.stack.length >= 2) {
      store = { key: toQuantity(p.stack[p.stack.length - 1]), val: toQuantity(p.stack[p.stack.length - 2]) };
    }
    op.ex = { mem, push, store, used: Number(gasLeft) };
  }

  onExit(result: EVMResult): void {
    const frame = this.#stack.pop();
    if (frame === undefined) return;
    const r = result.execResult;
    const err = r.exceptionError?.error;
    if (frame.pending !== undefined) {
      if (err === undefined || err === REVERT_ERROR) {
        this.#finish(frame, [], new Uint8Array(), frame.msg.gasLimit - r.executionGasUsed);
      } else frame.pending = undefined; // the failing op: ex stays null
    }
    const parent = this.#stack.at(-1);
    if (parent !== undefined) parent.childOutputLength = r.returnValue.length;
  }

  result(): VmTrace | null {
    return this.#root === undefined ? null : toJson(this.#root);
  }
}

function toJson(f: Frame): VmTrace {
  const code = f.code ?? (f.msg.code instanceof Uint8Array ? f.msg.code : new Uint8Array());
  return {
    code: bytesToHex(code),
    ops: f.ops.map((op) => {
      const sub = f.subs.get(op);
      return { ...op, sub: sub === undefined ? null : toJson(sub) };
    }),
  };
}
