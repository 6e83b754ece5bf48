/**
 * EVM error strings as clients expect them: @ethereumjs's errors mapped to geth's (core/vm/errors.go)
 * for debug_* and to Parity's (OpenEthereum trace Error, as reth and erigon print it) for trace_*,
 * and the revert reason decoder (geth accounts/abi UnpackRevert: Error(string) and Panic(uint256)).
 */
import { bytesToBigInt, bytesToHex } from "../../../common/mod.ts";

export const REVERT_ERROR = "revert";

/**
 * A precompile that failed (bad input): @ethereumjs labels it "revert" although nothing reverted (all
 * the frame's gas is gone and there is no revert data). geth names the precompile's own error, which
 * differs per precompile and input; keel prints reth's names for it ("precompiled failed", Parity's
 * "Built-in failed").
 */
export const PRECOMPILE_ERROR = "precompile failed";

/**
 * An SSTORE with at most 2,300 gas left (EIP-2200's reentrancy sentry). @ethereumjs reports "out of gas";
 * geth wraps the gas function's error: "out of gas: not enough gas for reentrancy sentry".
 */
export const SENTRY_ERROR = "sstore sentry";
const SSTORE = 0x55;
const SENTRY_GAS = 2300n;
/**
 * RETURNDATACOPY past the end of the return data (EIP-211): @ethereumjs halts with "out of gas", geth
 * with ErrReturnDataOutOfBounds.
 */
const RETURNDATA_ERROR = "return data out of bounds";
const RETURNDATACOPY = 0x3e;

/** What the tracers note of a frame's last opcode, to name the error it may fail with. */
export interface LastStep {
  code: number;
  /** Gas left before the opcode. */
  gasLeft: bigint;
  /** RETURNDATACOPY only: whether it reads past the end of the return data. */
  outOfBounds?: boolean;
}

/** Whether a RETURNDATACOPY with this stack (top last) reads past `returnDataLength` bytes. */
export function returnDataOutOfBounds(stack: readonly bigint[], returnDataLength: number): boolean {
  const n = stack.length;
  return n >= 3 && stack[n - 2] + stack[n - 3] > BigInt(returnDataLength);
}

/**
 * The error of a failing frame as the tracers name it, from @ethereumjs's and what they saw: whether the
 * frame is a precompile's, and the frame's last opcode with the gas left before it.
 */
export function frameError(
  error: string | undefined,
  precompile: boolean,
  last?: LastStep,
): string | undefined {
  if (error === undefined) return undefined;
  if (precompile && error !== "out of gas") return PRECOMPILE_ERROR;
  if (error === "out of gas" && last?.code === RETURNDATACOPY && last.outOfBounds === true) {
    return RETURNDATA_ERROR;
  }
  if (error === "out of gas" && last?.code === SSTORE && last.gasLeft <= SENTRY_GAS) return SENTRY_ERROR;
  if (error === "invalid opcode" && last !== undefined) return invalidOpcodeError(last.code);
  return error;
}

/**
 * The byte of the opcode a step runs: @ethereumjs names every unassigned byte INVALID (0xfe), so for
 * those it is read from the frame's code.
 */
export function opcodeByte(
  step: { pc: number; opcode: { code: number; name: string } },
  code: unknown,
): number {
  if (step.opcode.name !== "INVALID" || !(code instanceof Uint8Array)) return step.opcode.code;
  return code[step.pc] ?? step.opcode.code;
}

/** geth's name of an opcode byte that no fork assigns (core/vm/opcodes.go OpCode.String). */
export function undefinedOpcodeName(code: number): string {
  return `opcode 0x${code.toString(16)} not defined`;
}

/**
 * geth's ErrInvalidOpCode message: "invalid opcode: INVALID" for 0xfe, "invalid opcode: opcode 0xc not
 * defined" for an unassigned byte (core/vm/opcodes.go OpCode.String).
 */
export function invalidOpcodeError(code: number): string {
  return `invalid opcode: ${code === 0xfe ? "INVALID" : undefinedOpcodeName(code)}`;
}

const GETH: Record<string, string> = {
  "out of gas": "out of gas",
  "code store out of gas": "contract creation code storage out of gas",
  "code size to deposit exceeds maximum code size": "max code size exceeded",
  "stack underflow": "stack underflow",
  "stack overflow": "stack limit reached 1024 (1023)",
  "invalid JUMP": "invalid jump destination",
  "invalid opcode": "invalid opcode",
  "value out of range": "return data out of bounds",
  "revert": "execution reverted",
  "static state change": "write protection",
  "create collision": "contract address collision",
  "insufficient balance": "insufficient balance for transfer",
  "max call depth exceeded": "max call depth exceeded",
  "nonce uint64 overflow": "nonce uint64 overflow",
  "invalid bytecode deployed": "invalid code: must not begin with 0xef",
  "initcode exceeds max initcode size": "max initcode size exceeded",
  [PRECOMPILE_ERROR]: "precompiled failed",
  [SENTRY_ERROR]: "out of gas: not enough gas for reentrancy sentry",
  [RETURNDATA_ERROR]: RETURNDATA_ERROR,
};

const PARITY: Record<string, string> = {
  "out of gas": "Out of gas",
  "code store out of gas": "Out of gas",
  "code size to deposit exceeds maximum code size": "Out of gas",
  "stack underflow": "Stack underflow",
  "stack overflow": "Out of stack",
  "invalid JUMP": "Bad jump destination",
  "invalid opcode": "Bad instruction",
  "value out of range": "Out of bounds",
  "revert": "Reverted",
  "static state change": "Mutable Call In Static Context",
  "create collision": "Contract address collision",
  // A call refused before its callee runs: erigon prints geth's error (trace_adhoc.go).
  "insufficient balance": "insufficient balance for transfer",
  "max call depth exceeded": "max call depth exceeded",
  "nonce uint64 overflow": "nonce uint64 overflow",
  "invalid bytecode deployed": "Invalid code",
  "initcode exceeds max initcode size": "Out of gas",
  [PRECOMPILE_ERROR]: "Built-in failed",
  [SENTRY_ERROR]: "Out of gas",
  [RETURNDATA_ERROR]: "Out of bounds",
};

/**
 * @ethereumjs's error without the location it appends to some ("invalid JUMP at <code hash>/<address>:<pc>").
 */
function baseError(error: string): string {
  const at = error.indexOf(" at ");
  return at > 0 && GETH[error.slice(0, at)] !== undefined ? error.slice(0, at) : error;
}

/** geth's message for an @ethereumjs EVM error (unknown ones pass through). */
export function gethError(error: string): string {
  const base = baseError(error);
  return GETH[base] ?? base;
}

/** Parity's message for an @ethereumjs EVM error (or one of frameError's). */
export function parityError(error: string): string {
  if (error.startsWith("invalid opcode")) return "Bad instruction";
  const base = baseError(error);
  return PARITY[base] ?? base;
}

const PANIC_REASONS: Record<string, string> = {
  "0": "generic panic",
  "1": "assert(false)",
  "17": "arithmetic underflow or overflow",
  "18": "division or modulo by zero",
  "33": "enum overflow",
  "34": "invalid encoded storage byte array accessed",
  "49": "out-of-bounds array access; popping on an empty array",
  "50": "out-of-bounds access of an array or bytesN",
  "65": "out of memory",
  "81": "uninitialized function",
};

/** The reason in revert data (Error(string) or Panic(uint256)), or undefined when it is neither. */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const selector = bytesToHex(data.subarray(0, 4));
  const body = data.subarray(4);
  if (selector === "0x4e487b71" && body.length === 32) {
    const code = bytesToBigInt(body);
    return PANIC_REASONS[code.toString()] ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  if (selector !== "0x08c379a0" || body.length < 64) return undefined;
  const offset = bytesToBigInt(body.subarray(0, 32));
  if (offset + 32n > BigInt(body.length)) return undefined;
  const o = Number(offset);
  const len = bytesToBigInt(body.subarray(o, o + 32));
  if (BigInt(o + 32) + len > BigInt(body.length)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(body.subarray(o + 32, o + 32 + Number(len)));
  } catch {
    return undefined;
  }
}
