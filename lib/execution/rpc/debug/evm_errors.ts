/**
 * EVM error strings as clients expect them: @ethereumjs's errors mapped to geth's (core/vm/errors.go)
 * for debug_* and to Parity's (OpenEthereum trace Error, as reth and erigon print it) for trace_*,
 * and the revert reason decoder (geth accounts/abi UnpackRevert: Error(string) and Panic(uint256)).
 */
import { bytesToBigInt, bytesToHex } from "../../../common/mod.ts";

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
};

export const REVERT_ERROR = "revert";

/** geth's message for an @ethereumjs EVM error (unknown ones pass through). */
export function gethError(error: string): string {
  return GETH[error] ?? error;
}

/** Parity's message for an @ethereumjs EVM error. */
export function parityError(error: string): string {
  return PARITY[error] ?? error;
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
