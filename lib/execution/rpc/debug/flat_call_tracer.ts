/**
 * geth's flatCallTracer (eth/tracers/native/call_flat.go) and parityTracer: the callTracer's frames
 * flattened depth-first in the Parity layout, as geth builds them from its callTracer: `gas` and
 * `gasUsed` are the callTracer's (the top frame's are the transaction's), a frame that failed other than
 * by a revert has no result, CALL and STATICCALL frames to precompiles are left out unless
 * `includePrecompiles`, errors are geth's unless `convertParityErrors`. Each entry carries the block
 * and transaction it belongs to (null hashes for a call that is no transaction).
 * parityTracer is the same with both switches on.
 */
import { bytesToHex, type Hex, toQuantity } from "../../../common/mod.ts";
import { RpcError } from "../../../rpc/mod.ts";
import type { CallFrame } from "./call_tracer.ts";
import { gethError, REVERT_ERROR } from "./evm_errors.ts";

export interface FlatCallConfig {
  convertParityErrors?: boolean;
  includePrecompiles?: boolean;
}

/** Where the traced transaction sits (a call traced on a block: no transaction hash). */
export interface TracePlacement {
  blockHash: Uint8Array | undefined;
  blockNumber: bigint;
  txHash: Uint8Array | undefined;
  txIndex: number;
}

/** geth's parityErrorMapping, over geth's messages. */
const PARITY_ERRORS: Record<string, string> = {
  "contract creation code storage out of gas": "Out of gas",
  "out of gas": "Out of gas",
  "gas uint64 overflow": "Out of gas",
  "max code size exceeded": "Out of gas",
  "invalid jump destination": "Bad jump destination",
  "execution reverted": "Reverted",
  "return data out of bounds": "Out of bounds",
  "stack limit reached 1024 (1023)": "Out of stack",
  "precompiled failed": "Built-in failed",
  "invalid input length": "Built-in failed",
};

function parityOf(error: string): string {
  if (PARITY_ERRORS[error] !== undefined) return PARITY_ERRORS[error];
  if (error.startsWith("invalid opcode:")) return "Bad instruction";
  if (error.startsWith("stack underflow")) return "Stack underflow";
  return error;
}

/** The flat entries of one transaction's frame tree. */
export function flatCallResult(
  root: CallFrame | undefined,
  cfg: FlatCallConfig,
  place: TracePlacement,
): Record<string, unknown>[] {
  if (root === undefined) throw RpcError.server("invalid number of calls");
  const out: Record<string, unknown>[] = [];
  const where = {
    blockHash: place.blockHash === undefined ? null : bytesToHex(place.blockHash),
    blockNumber: Number(place.blockNumber),
    transactionHash: place.txHash === undefined ? null : bytesToHex(place.txHash),
    transactionPosition: place.txIndex,
  };
  const kept = (f: CallFrame) =>
    cfg.includePrecompiles === true ||
    !((f.type === "CALL" || f.type === "STATICCALL") && f.precompile === true);
  const walk = (f: CallFrame, traceAddress: number[]) => {
    const calls = f.calls.filter(kept);
    const { action, result, type } = flatFrame(f);
    let error: string | undefined;
    if (f.error !== undefined) {
      error = gethError(f.error);
      if (cfg.convertParityErrors === true) error = parityOf(error);
    }
    // Revert output carries the reason; any other failure has no result.
    const withResult = result !== undefined && (f.error === undefined || f.error === REVERT_ERROR);
    out.push({
      action,
      blockHash: where.blockHash,
      blockNumber: where.blockNumber,
      ...(error === undefined ? {} : { error }),
      ...(withResult ? { result } : {}),
      subtraces: calls.length,
      traceAddress,
      transactionHash: where.transactionHash,
      transactionPosition: where.transactionPosition,
      type,
    });
    calls.forEach((c, i) => walk(c, [...traceAddress, i]));
  };
  walk(root, []);
  return out;
}

function flatFrame(
  f: CallFrame,
): { action: Record<string, string>; result?: Record<string, Hex>; type: string } {
  if (f.type === "SELFDESTRUCT") {
    return {
      action: {
        address: bytesToHex(f.from),
        balance: toQuantity(f.value),
        refundAddress: bytesToHex(f.to ?? new Uint8Array(20)),
      },
      type: "suicide",
    };
  }
  if (f.type === "CREATE" || f.type === "CREATE2") {
    const result: Record<string, Hex> = { gasUsed: toQuantity(f.gasUsed), code: bytesToHex(f.output) };
    if (f.to !== undefined) result.address = bytesToHex(f.to);
    return {
      action: {
        from: bytesToHex(f.from),
        gas: toQuantity(f.gas),
        init: bytesToHex(f.input),
        value: toQuantity(f.value),
      },
      result,
      type: "create",
    };
  }
  return {
    action: {
      callType: f.type.toLowerCase(),
      from: bytesToHex(f.from),
      gas: toQuantity(f.gas),
      input: bytesToHex(f.input),
      to: bytesToHex(f.to ?? new Uint8Array(20)),
      value: toQuantity(f.value),
    },
    result: { gasUsed: toQuantity(f.gasUsed), output: bytesToHex(f.output) },
    type: "call",
  };
}
