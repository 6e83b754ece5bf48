/**
 * The call object and state overrides of debug_traceCall and trace_call: the eth namespace's
 * schemas (../call_args.ts, geth TransactionArgs and override.StateOverride), turned into a message.
 * Fee fields are geth's: with one the traced call buys its gas (replay.ts replayCall).
 */
import { equalBytes } from "../../../common/mod.ts";
import { RpcError } from "../../../rpc/mod.ts";
import { type AccountOverride, type CallArgs, callArgsSchema, stateOverrideSchema } from "../call_args.ts";
import type { CallMessage } from "./replay.ts";

export { callArgsSchema, stateOverrideSchema };
export type { AccountOverride, CallArgs };

export function toCallMessage(c: CallArgs): CallMessage {
  if (c.gasPrice !== undefined && (c.maxFeePerGas !== undefined || c.maxPriorityFeePerGas !== undefined)) {
    throw RpcError.server("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified");
  }
  if (c.data !== undefined && c.input !== undefined && !equalBytes(c.data, c.input)) {
    throw RpcError.invalidParams(
      'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
    );
  }
  return {
    from: c.from,
    to: c.to ?? null,
    gas: c.gas,
    value: c.value,
    data: c.input ?? c.data,
    authorizationList: c.authorizationList,
    accessList: c.accessList,
    gasPrice: c.gasPrice,
    maxFeePerGas: c.maxFeePerGas,
    maxPriorityFeePerGas: c.maxPriorityFeePerGas,
  };
}
