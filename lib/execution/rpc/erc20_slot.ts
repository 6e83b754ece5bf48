/**
 * The storage slot an ERC-20 view reads its answer from (anvil_dealERC20, anvil_setERC20Allowance): the
 * view (`balanceOf(account)` or `allowance(owner, spender)`) runs once with an access-list tracer for
 * the slots it reads under the token's address (a proxy's too: its implementation runs in the proxy's
 * storage), then once per slot with that slot overridden by the target value; the slot whose override
 * the view answers is the one. As anvil's find_erc20_storage_slot, with one difference: when the view
 * answers the target value already nothing is written (anvil then takes the first slot the view reads,
 * which any override of the same value satisfies, and writes the value there).
 */
import { bytesToBigInt } from "@ethereumjs/util";
import { bigIntToBytes, bytesToHex, hexToBytes } from "../../common/mod.ts";
import { RPC_ERROR_CODES, RpcError } from "../../rpc/mod.ts";
import { createAccessList } from "./access_list.ts";
import type { EthContext } from "./backend.ts";
import { type AccountOverride, type CallArgs, callGas } from "./call_args.ts";
import type { CallEnv } from "./call.ts";
import { callAt } from "./call_envs.ts";

/** The 4-byte selectors of the two views. */
const BALANCE_OF = hexToBytes("0x70a08231");
const ALLOWANCE = hexToBytes("0xdd62ed3e");

/** `selector` followed by the addresses as ABI words. */
function viewCall(selector: Uint8Array, ...addresses: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(4 + 32 * addresses.length);
  out.set(selector);
  addresses.forEach((a, i) => out.set(a, 4 + 32 * i + 12));
  return out;
}

/** Calldata of `balanceOf(account)`. */
export function balanceOfCall(account: Uint8Array): Uint8Array {
  return viewCall(BALANCE_OF, account);
}

/** Calldata of `allowance(owner, spender)`. */
export function allowanceCall(owner: Uint8Array, spender: Uint8Array): Uint8Array {
  return viewCall(ALLOWANCE, owner, spender);
}

/** The uint256 a view answered, or undefined when it failed or answered something shorter. */
async function viewValue(env: CallEnv, args: CallArgs, gas: bigint): Promise<bigint | undefined> {
  const result = await env.execute(args, gas);
  if (result.error !== undefined || result.returnValue.length < 32) return undefined;
  return bytesToBigInt(result.returnValue.subarray(0, 32));
}

/**
 * Where `token`'s view `data` reads its answer, at the head; undefined when the view already answers
 * `value` (nothing to change). Throws anvil's error (-32603, its message with `what`: "balance",
 * "allowance") when no slot the view reads moves its answer.
 */
export async function findErc20Slot(
  ctx: EthContext,
  token: Uint8Array,
  data: Uint8Array,
  value: bigint,
  what: string,
): Promise<Uint8Array | undefined> {
  const opts = ctx.backend.options;
  const args = { to: token, data } as CallArgs;
  const gas = callGas(args, opts.gasCap);
  const at = <T>(overrides: AccountOverride[] | undefined, fn: (env: CallEnv) => Promise<T>) =>
    callAt(ctx, undefined, overrides, undefined, opts.evmTimeoutMs, fn);
  const notFound = () =>
    new RpcError(RPC_ERROR_CODES.INTERNAL_ERROR, `Unable to set ERC20 ${what}, no slot found`);
  const current = await at(undefined, (env) => viewValue(env, args, gas));
  if (current === value) return undefined;
  const list = await at(undefined, (env) => createAccessList(env, args, opts.gasCap));
  const own = bytesToHex(token);
  const slots = list.accessList.find((e) => e.address === own)?.storageKeys ?? [];
  for (const slot of slots) {
    const key = hexToBytes(slot);
    const override: AccountOverride = { address: token, stateDiff: [[key, bigIntToBytes(value, 32)]] };
    const seen = await at([override], (env) => viewValue(env, args, gas)).catch(() => undefined);
    if (seen === value) return key;
  }
  throw notFound();
}
