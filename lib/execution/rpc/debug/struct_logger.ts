/**
 * geth's default struct logger (eth/tracers/logger/logger.go): one entry per executed opcode with
 * pc, op, gas, gasCost, depth, stack, memory, storage, returnData, refund and error, and the
 * result `{gas, failed, returnValue, structLogs}` in geth's JSON form (stack items as quantities,
 * memory words and storage as unprefixed 32-byte hex).
 */
import type { EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import { bytesToHex, type Hex } from "../../../common/mod.ts";
import {
  frameError,
  gethError,
  type LastStep,
  opcodeByte,
  returnDataOutOfBounds,
  REVERT_ERROR,
  undefinedOpcodeName,
} from "./evm_errors.ts";
import { forwardedCallGas, type Tracer, type TxOutcome } from "./hooks.ts";
import { wordHex } from "./state_recorder.ts";

export interface StructLoggerConfig {
  disableStorage?: boolean;
  disableStack?: boolean;
  enableMemory?: boolean;
  enableReturnData?: boolean;
  /** Stop recording after this many entries (geth `limit`, 0 = none). */
  limit?: number;
}

export interface StructLogJson {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  error?: string;
  stack?: Hex[];
  memory?: string[];
  storage?: Record<string, string>;
  returnData?: Hex;
  refund?: number;
}

export interface StructLoggerResult {
  gas: number;
  failed: boolean;
  returnValue: Hex;
  structLogs: StructLogJson[];
}

const unprefixed = (h: Hex) => h.slice(2);

export class StructLogger implements Tracer {
  readonly steps = true;
  readonly #cfg: StructLoggerConfig;
  readonly #logs: StructLogJson[] = [];
  /** Per contract address: the storage seen so far (geth keeps it per contract). */
  readonly #storage = new Map<string, Map<string, string>>();
  /** Open frames: depth, first entry index, return data of the last sub-call. */
  readonly #frames: {
    depth: number;
    start: number;
    returnData: Uint8Array;
    create: boolean;
    /** Its code is loaded into it when it runs. */
    msg: Message;
  }[] = [];
  /** Index of the last entry at each depth (for the error of a failing frame). */
  readonly #lastAt: number[] = [];
  /** The last opcode at each depth and the gas before it (to name a failing frame's error as geth). */
  readonly #lastStep: LastStep[] = [];
  #result: StructLoggerResult | undefined;

  constructor(cfg: StructLoggerConfig = {}) {
    this.#cfg = cfg;
  }

  async onStep(step: InterpreterStep): Promise<void> {
    const cfg = this.#cfg;
    const byte = opcodeByte(step, this.#frames.at(-1)?.msg.code);
    const last: LastStep = { code: byte, gasLeft: step.gasLeft };
    if (byte === 0x3e) {
      last.outOfBounds = returnDataOutOfBounds(step.stack, this.#frames.at(-1)?.returnData.length ?? 0);
    }
    this.#lastStep[step.depth] = last;
    if (cfg.limit !== undefined && cfg.limit > 0 && this.#logs.length >= cfg.limit) return;
    const entry: StructLogJson = {
      pc: step.pc,
      op: byte === step.opcode.code ? step.opcode.name : undefinedOpcodeName(byte),
      gas: Number(step.gasLeft),
      gasCost: Number(step.opcode.dynamicFee ?? BigInt(step.opcode.fee)),
      depth: step.depth + 1,
    };
    if (!cfg.disableStack) entry.stack = step.stack.map((v) => `0x${v.toString(16)}` as Hex);
    if (cfg.enableMemory && step.memory.length > 0) {
      const words: string[] = [];
      for (let i = 0; i + 32 <= step.memory.length; i += 32) {
        words.push(unprefixed(bytesToHex(step.memory.subarray(i, i + 32))));
      }
      entry.memory = words;
    }
    const returnData = this.#frames.at(-1)?.returnData;
    if (cfg.enableReturnData && returnData !== undefined && returnData.length > 0) {
      entry.returnData = bytesToHex(returnData);
    }
    if (step.gasRefund > 0n) entry.refund = Number(step.gasRefund);
    const code = step.opcode.code;
    if (
      !cfg.disableStorage && (code === 0x54 || code === 0x55) && step.stack.length >= (code === 0x54 ? 1 : 2)
    ) {
      const addr = step.address.toString();
      let store = this.#storage.get(addr);
      if (store === undefined) this.#storage.set(addr, store = new Map());
      const top = step.stack.length - 1;
      const key = wordHex(bigWord(step.stack[top]));
      if (code === 0x54) {
        const value = await step.stateManager.getStorage(step.address, bigWord(step.stack[top]));
        store.set(unprefixed(key), unprefixed(wordHex(value)));
      } else {
        store.set(unprefixed(key), unprefixed(wordHex(bigWord(step.stack[top - 1]))));
      }
      entry.storage = Object.fromEntries(store);
    }
    this.#lastAt[step.depth] = this.#logs.length;
    this.#logs.push(entry);
  }

  onEnter(msg: Message, opName: string | undefined): void {
    const caller = this.#frames.at(-1);
    const i = caller === undefined ? undefined : this.#lastAt[caller.depth];
    if (caller !== undefined && i !== undefined && i >= caller.start) {
      this.#logs[i].gasCost += Number(forwardedCallGas(opName, msg));
    }
    this.#frames.push({
      depth: msg.depth,
      start: this.#logs.length,
      returnData: new Uint8Array(),
      create: msg.to === undefined,
      msg,
    });
  }

  onExit(result: EVMResult): void {
    const frame = this.#frames.pop();
    const parent = this.#frames.at(-1);
    const err = result.execResult.exceptionError?.error;
    if (parent !== undefined) {
      // The caller's return data buffer (EIP-211): a successful CREATE leaves it empty (the code it
      // returned is deployed, not handed back); otherwise what the callee returned or reverted with.
      parent.returnData = frame?.create === true && err === undefined
        ? new Uint8Array()
        : result.execResult.returnValue;
    }
    if (frame === undefined || err === undefined || err === REVERT_ERROR) return;
    // The failing opcode is the frame's last entry; geth reports the fault on it.
    const i = this.#lastAt[frame.depth];
    if (i !== undefined && i >= frame.start && this.#logs[i].error === undefined) {
      this.#logs[i].error = gethError(frameError(err, false, this.#lastStep[frame.depth])!);
    }
  }

  onTxEnd(outcome: TxOutcome): void {
    const failed = outcome.error !== undefined;
    const showOutput = !failed || outcome.error === REVERT_ERROR;
    this.#result = {
      gas: Number(outcome.gasUsed),
      failed,
      returnValue: showOutput ? bytesToHex(outcome.output) : "0x",
      structLogs: this.#logs,
    };
  }

  result(): StructLoggerResult {
    if (this.#result === undefined) {
      throw new Error("struct logger has no result: the transaction did not finish");
    }
    return this.#result;
  }
}

function bigWord(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 31; i >= 0 && x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}
