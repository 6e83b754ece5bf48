/**
 * The call object and state overrides of debug_traceCall and trace_call: the eth namespace's
 * schemas (../call_args.ts, geth TransactionArgs and override.StateOverride), turned into a message.
 * Fee fields are accepted and ignored: a traced call buys no gas, as geth's traceCall with no gas
 * price.
 */
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, Address } from "@ethereumjs/util";
import { equalBytes } from "../../../common/mod.ts";
import { RpcError } from "../../../rpc/mod.ts";
import { type AccountOverride, type CallArgs, callArgsSchema, stateOverrideSchema } from "../call_args.ts";
import type { CallMessage } from "./replay.ts";

export { callArgsSchema, stateOverrideSchema };
export type { AccountOverride, CallArgs };

export function toCallMessage(c: CallArgs): CallMessage {
  if (c.data !== undefined && c.input !== undefined && !equalBytes(c.data, c.input)) {
    throw RpcError.invalidParams(
      'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
    );
  }
  return { from: c.from, to: c.to ?? null, gas: c.gas, value: c.value, data: c.input ?? c.data };
}

function stripZeros(v: Uint8Array): Uint8Array {
  let i = 0;
  while (i < v.length && v[i] === 0) i++;
  return v.subarray(i);
}

/** Applies geth's state overrides (balance, nonce, code, state replaces storage, stateDiff patches it). */
export async function applyStateOverrides(
  sm: MerkleStateManager,
  overrides: AccountOverride[],
): Promise<void> {
  for (const o of overrides) {
    const address = new Address(o.address);
    const account = (await sm.getAccount(address)) ?? new Account();
    if (o.balance !== undefined) account.balance = o.balance;
    if (o.nonce !== undefined) account.nonce = o.nonce;
    await sm.putAccount(address, account);
    if (o.code !== undefined) await sm.putCode(address, o.code);
    if (o.state !== undefined) {
      await sm.clearStorage(address);
      for (const [k, v] of o.state) await sm.putStorage(address, k, stripZeros(v));
    }
    for (const [k, v] of o.stateDiff ?? []) await sm.putStorage(address, k, stripZeros(v));
  }
}
