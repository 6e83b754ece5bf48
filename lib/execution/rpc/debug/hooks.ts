/**
 * The tracer interface the replay drives from @ethereumjs/evm's `step`, `beforeMessage` and
 * `afterMessage` events. Listeners are attached only around a traced transaction and removed after
 * it, so block building and import never pay for tracing.
 */
import type { EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";
import { BaseError } from "../../../common/mod.ts";

/** What a tracer sees of the transaction before it runs. */
export interface TxInfo {
  from: Uint8Array;
  to: Uint8Array | null;
  value: bigint;
  gasLimit: bigint;
  input: Uint8Array;
  gasPrice: bigint;
}

/** The outcome of a traced transaction. */
export interface TxOutcome {
  gasUsed: bigint;
  /** The EVM or validity error of the top call (undefined: success). */
  error?: string;
  /** Return data of the top call. */
  output: Uint8Array;
  contractAddress?: Uint8Array;
}

export interface Tracer {
  /** Wants `step` events (struct logs, opcode-level capture). */
  readonly steps: boolean;
  onTxStart?(tx: TxInfo): void;
  onStep?(step: InterpreterStep): void | Promise<void>;
  onEnter?(msg: Message, opName: string | undefined): void;
  onExit?(result: EVMResult): void;
  onTxEnd?(outcome: TxOutcome): void | Promise<void>;
}

export const TRACE_TIMEOUT = "TRACE_TIMEOUT";

/**
 * The gas a CALL-family opcode passed to its callee, which geth counts in the opcode's cost
 * (core/vm/gas_table.go: gas += callGasTemp) while @ethereumjs charges it apart: the callee's gas
 * limit without the 2300 stipend a value transfer adds. 0 for CREATE and CREATE2 (geth charges
 * their gas in the opcode, not in its cost).
 */
export function forwardedCallGas(opName: string | undefined, msg: Message): bigint {
  if (opName === "CALL" || opName === "CALLCODE") return msg.gasLimit - (msg.value > 0n ? 2300n : 0n);
  if (opName === "DELEGATECALL" || opName === "STATICCALL") return msg.gasLimit;
  return 0n;
}

/** geth's error text for a trace past its timeout (eth/tracers/api.go). */
export const TIMEOUT_MESSAGE = "execution timeout";

export function isTimeout(e: unknown): boolean {
  if (e instanceof BaseError && e.code === TRACE_TIMEOUT) return true;
  const cause = (e as { cause?: unknown } | null)?.cause;
  return cause !== undefined && cause !== e && isTimeout(cause);
}

/**
 * Attaches `tracer` to `evm` with a deadline (ms since the epoch, Infinity = none); returns the
 * detach function. The deadline is checked every 256 steps: a trace past it throws TRACE_TIMEOUT
 * out of the EVM.
 */
export function attachTracer(
  evm: VM["evm"],
  tracer: Tracer,
  deadline: number,
  now: () => number,
): () => void {
  const events = evm.events!;
  /** The last opcode run at each depth: tells a CALL inside a static frame from a STATICCALL. */
  const lastOp: string[] = [];
  let count = 0;
  let failure: unknown;
  const onStep = (step: InterpreterStep, resolve?: (result?: unknown) => void): void => {
    if (failure !== undefined) throw failure;
    lastOp[step.depth] = step.opcode.name;
    if ((++count & 255) === 0 && now() > deadline) {
      throw new BaseError(TRACE_TIMEOUT, TIMEOUT_MESSAGE);
    }
    const r = tracer.onStep?.(step);
    if (r instanceof Promise) {
      r.then(() => resolve?.(), (e) => {
        // Surfaces at the next step (a rejection cannot pass through the EVM's resolve callback).
        failure = e;
        resolve?.();
      });
    } else resolve?.();
  };
  const withSteps = tracer.steps || deadline !== Infinity;
  const stepListener = tracer.steps
    // Two parameters: the EVM then awaits `resolve` (async storage reads in the struct logger).
    ? (step: InterpreterStep, resolve?: (result?: unknown) => void) => onStep(step, resolve)
    : (step: InterpreterStep) => onStep(step);
  const before = (msg: Message) => tracer.onEnter?.(msg, msg.depth === 0 ? undefined : lastOp[msg.depth - 1]);
  const after = (res: EVMResult) => tracer.onExit?.(res);
  if (withSteps) events.on("step", stepListener);
  events.on("beforeMessage", before);
  events.on("afterMessage", after);
  return () => {
    if (withSteps) events.off("step", stepListener);
    events.off("beforeMessage", before);
    events.off("afterMessage", after);
  };
}

/** Several tracers on one run (trace_* with trace and vmTrace together). */
export class MultiTracer implements Tracer {
  readonly steps: boolean;
  readonly #all: Tracer[];

  constructor(tracers: Tracer[]) {
    this.#all = tracers;
    this.steps = tracers.some((t) => t.steps);
  }

  onTxStart(tx: TxInfo): void {
    for (const t of this.#all) t.onTxStart?.(tx);
  }

  async onStep(step: InterpreterStep): Promise<void> {
    for (const t of this.#all) await t.onStep?.(step);
  }

  onEnter(msg: Message, opName: string | undefined): void {
    for (const t of this.#all) t.onEnter?.(msg, opName);
  }

  onExit(result: EVMResult): void {
    for (const t of this.#all) t.onExit?.(result);
  }

  async onTxEnd(outcome: TxOutcome): Promise<void> {
    for (const t of this.#all) await t.onTxEnd?.(outcome);
  }
}
