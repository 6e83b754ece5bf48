/**
 * The wire side of a message call (eth_call, eth_estimateGas, eth_createAccessList, and the call
 * objects of debug_traceCall and trace_call): geth's TransactionArgs, override.StateOverride and
 * override.BlockOverrides schemas, applying a state override to a call overlay, the gas a call
 * gets under rpc.gascap, and a failed call as geth reports it (revert reason, code 3).
 */
import { Account, Address, toChecksumAddress } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import { bytesToHex, type Hex } from "../../common/mod.ts";
import { type Infer, RpcError, s, SchemaError } from "../../rpc/mod.ts";
import type { StateManagerInterface } from "@ethereumjs/common";
import { authorizationSchema } from "./call_authorizations.ts";
import { gethError } from "./debug/evm_errors.ts";

/** The fields of the call object (geth TransactionArgs), shared with eth_sendTransaction's. */
export const CALL_ARGS_FIELDS = {
  from: s.optional(s.address()),
  to: s.optional(s.address()),
  gas: s.optional(s.uint64()),
  gasPrice: s.optional(s.quantity()),
  maxFeePerGas: s.optional(s.quantity()),
  maxPriorityFeePerGas: s.optional(s.quantity()),
  value: s.optional(s.quantity()),
  nonce: s.optional(s.uint64()),
  data: s.optional(s.hex()),
  input: s.optional(s.hex()),
  accessList: s.optional(s.array(s.object({ address: s.address(), storageKeys: s.array(s.hash()) }))),
  chainId: s.optional(s.quantity()),
  /** EIP-7702 (call_authorizations.ts). */
  authorizationList: s.optional(s.array(authorizationSchema)),
};

/** The call object (geth TransactionArgs). */
export const callArgsSchema = s.object(CALL_ARGS_FIELDS);
export type CallArgs = Infer<typeof callArgsSchema>;

/** One account's override (geth override.OverrideAccount). */
export interface AccountOverride {
  address: Uint8Array;
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  state?: [Uint8Array, Uint8Array][];
  stateDiff?: [Uint8Array, Uint8Array][];
  /** eth_simulateV1: the precompile at `address` moves here (simulate.ts). */
  movePrecompileTo?: Uint8Array;
}

const overrideFields = s.object({
  balance: s.optional(s.quantity()),
  nonce: s.optional(s.uint64()),
  code: s.optional(s.hex()),
  state: s.optional(s.unknown()),
  stateDiff: s.optional(s.unknown()),
  movePrecompileToAddress: s.optional(s.address()),
});
const addressSchema = s.address();
const hashSchema = s.hash();

function parseSlots(v: unknown, field: string): [Uint8Array, Uint8Array][] {
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new SchemaError(`${field}: want an object of slot -> value`);
  }
  return Object.entries(v as Record<string, unknown>).map((
    [k, val],
  ) => [hashSchema.parse(k), hashSchema.parse(val)]);
}

/** The state override set: address -> {balance, nonce, code, state | stateDiff}. */
export const stateOverrideSchema = s.custom<AccountOverride[]>("stateOverride", (v) => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new SchemaError("json: cannot unmarshal non-object into Go value of type override.StateOverride");
  }
  return Object.entries(v as Record<string, unknown>).map(([addr, raw]) => {
    const f = overrideFields.parse(raw);
    const o: AccountOverride = { address: addressSchema.parse(addr) };
    if (f.state !== undefined && f.stateDiff !== undefined) {
      // geth override.Apply's error (-32000), not a malformed parameter.
      throw RpcError.server(
        `account ${toChecksumAddress(bytesToHex(o.address))} has both 'state' and 'stateDiff'`,
      );
    }
    if (f.balance !== undefined) o.balance = f.balance;
    if (f.nonce !== undefined) o.nonce = f.nonce;
    if (f.code !== undefined) o.code = f.code;
    if (f.state !== undefined) o.state = parseSlots(f.state, "state");
    if (f.stateDiff !== undefined) o.stateDiff = parseSlots(f.stateDiff, "stateDiff");
    if (f.movePrecompileToAddress !== undefined) o.movePrecompileTo = f.movePrecompileToAddress;
    return o;
  });
});

/** Block overrides (geth override.BlockOverrides). */
export const blockOverridesSchema = s.object({
  number: s.optional(s.quantity()),
  time: s.optional(s.uint64()),
  gasLimit: s.optional(s.uint64()),
  feeRecipient: s.optional(s.address()),
  coinbase: s.optional(s.address()),
  prevRandao: s.optional(s.hash()),
  random: s.optional(s.hash()),
  baseFeePerGas: s.optional(s.quantity()),
  baseFee: s.optional(s.quantity()),
  blobBaseFee: s.optional(s.quantity()),
  /** The parent beacon block root (EIP-4788) of the block. */
  beaconRoot: s.optional(s.hash()),
});
export type BlockOverrides = Infer<typeof blockOverridesSchema>;

/** The parameters of eth_call, eth_estimateGas and eth_createAccessList: call, block, state and block overrides. */
export const callParams = [
  callArgsSchema,
  s.optional(s.blockTag()),
  s.optional(stateOverrideSchema),
  s.optional(blockOverridesSchema),
] as const;

/** The outcome of one execution. */
export interface CallResult {
  returnValue: Uint8Array;
  gasUsed: bigint;
  /** Gas refunded at the end (for the estimator's optimistic first guess). */
  refund: bigint;
  /** The EVM error of a failed execution ("revert", "out of gas", ...). */
  error?: string;
}

const PANIC_REASONS: Record<number, string> = {
  0x00: "generic panic",
  0x01: "assert(false)",
  0x11: "arithmetic underflow or overflow",
  0x12: "division or modulo by zero",
  0x21: "enum overflow",
  0x22: "invalid encoded storage byte array accessed",
  0x31: "out-of-bounds array access; popping on an empty array",
  0x32: "out-of-bounds access of an array or bytesN",
  0x41: "out of memory",
  0x51: "uninitialized function",
};

/**
 * The reason of revert data, as geth's abi.UnpackRevert: Error(string) gives the string,
 * Panic(uint256) the panic's description; anything else undefined.
 */
export function revertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const sel = (data[0] << 24 | data[1] << 16 | data[2] << 8 | data[3]) >>> 0;
  const word = (i: number) =>
    data.length >= 4 + 32 * (i + 1) ? BigInt(bytesToHex(data.subarray(4 + 32 * i, 36 + 32 * i))) : undefined;
  if (sel === 0x08c379a0) {
    const offset = word(0);
    if (offset === undefined || offset > BigInt(data.length)) return undefined;
    const start = 4 + Number(offset);
    if (data.length < start + 32) return undefined;
    const len = Number(BigInt(bytesToHex(data.subarray(start, start + 32))));
    if (data.length < start + 32 + len) return undefined;
    return new TextDecoder().decode(data.subarray(start + 32, start + 32 + len));
  }
  if (sel === 0x4e487b71) {
    const code = word(0);
    if (code === undefined || code >= 1n << 64n) return undefined;
    return PANIC_REASONS[Number(code)] ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}

/** A failed call as geth reports it: a revert is code 3 with data; other errors -32000. */
export function callError(result: CallResult): RpcError {
  if (result.error === "revert") {
    return RpcError.reverted(bytesToHex(result.returnValue), revertReason(result.returnValue));
  }
  return RpcError.server(gethError(result.error ?? "execution failed"));
}

/**
 * Applies geth's state overrides to `sm` (inside the caller's checkpoint): balance, nonce, code;
 * `state` replaces the storage, `stateDiff` patches it. eth_call's overlay and the debug tracers' state.
 */
export async function applyOverrides(sm: StateManagerInterface, overrides: AccountOverride[]): Promise<void> {
  for (const o of overrides) {
    // movePrecompileToAddress acts on the EVM's precompiles: the caller applies it (overridePrecompiles).
    const address = new Address(o.address);
    if (o.balance !== undefined || o.nonce !== undefined) {
      const account = (await sm.getAccount(address)) ?? new Account();
      if (o.balance !== undefined) account.balance = o.balance;
      if (o.nonce !== undefined) account.nonce = o.nonce;
      await sm.putAccount(address, account);
    }
    if (o.code !== undefined) await sm.putCode(address, o.code);
    if (o.state !== undefined) {
      if ((await sm.getAccount(address)) === undefined) await sm.putAccount(address, new Account());
      await sm.clearStorage(address);
      for (const [k, v] of o.state) await sm.putStorage(address, k, stripZeros(v));
    }
    if (o.stateDiff !== undefined) {
      if ((await sm.getAccount(address)) === undefined) await sm.putAccount(address, new Account());
      for (const [k, v] of o.stateDiff) await sm.putStorage(address, k, stripZeros(v));
    }
  }
}

function stripZeros(v: Uint8Array): Uint8Array {
  let i = 0;
  while (i < v.length && v[i] === 0) i++;
  return v.subarray(i);
}

/** Hex of a call's return data. */
export function returnHex(r: CallResult): Hex {
  return bytesToHex(r.returnValue);
}

/** The gas a call gets: the given gas (or the cap), bounded by rpc.gascap (geth CallDefaults). */
export function callGas(args: CallArgs, gasCap: bigint): bigint {
  let gas = args.gas ?? (gasCap === 0n ? (1n << 63n) - 1n : gasCap);
  if (gasCap !== 0n && gas > gasCap) gas = gasCap;
  return gas;
}

/**
 * geth override.Apply's precompile part, on the block's EVM: moves, and overridden precompiles removed.
 * Only what runs changes (the EVM's getPrecompile); the fork's precompile addresses stay the warm ones
 * (EIP-2929), as geth warms the rules' precompiles whatever the overrides.
 */
export function overridePrecompiles(vm: VM, overrides: readonly AccountOverride[]): void {
  if (overrides.length === 0) return;
  const precompiles = new Map(vm.evm.precompiles as Map<string, unknown>);
  const named = new Set(overrides.map((o) => bytesToHex(o.address).slice(2)));
  const moved = new Set<string>();
  for (const o of overrides) {
    const a = bytesToHex(o.address).slice(2);
    if (moved.has(a)) throw RpcError.server(`account 0x${a} has already been overridden by a precompile`);
    const p = precompiles.get(a);
    if (o.movePrecompileTo !== undefined) {
      const to = bytesToHex(o.movePrecompileTo).slice(2);
      if (p === undefined) throw RpcError.server(`account 0x${a} is not a precompile`);
      if (named.has(to)) throw RpcError.server(`account 0x${to} is already overridden`);
      precompiles.set(to, p);
      moved.add(to);
    }
    if (p !== undefined) precompiles.delete(a);
  }
  const evm = vm.evm as unknown as { getPrecompile(address: string | { bytes: Uint8Array }): unknown };
  evm.getPrecompile = (address) =>
    precompiles.get(
      typeof address === "string"
        ? address.slice(2).padStart(40, "0").toLowerCase()
        : bytesToHex(address.bytes).slice(2),
    );
}

/** A call's fee fields (geth TransactionArgs). */
export interface FeeFields {
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
}

/** Whether a call names no fee: it buys no gas and its block reads a base fee of 0 (geth NoBaseFee). */
export function namesNoFee(f: FeeFields): boolean {
  const dynamic = f.maxFeePerGas !== undefined || f.maxPriorityFeePerGas !== undefined;
  return dynamic
    ? (f.maxFeePerGas ?? 0n) === 0n && (f.maxPriorityFeePerGas ?? 0n) === 0n
    : (f.gasPrice ?? 0n) === 0n;
}

/**
 * A call message's fee cap and effective gas price under `baseFee` (0 for a call naming no fee), after
 * geth's preCheck fee rules (ToMessage: a missing field is 0, so a tip alone fails), in its words;
 * `invalid` wraps the reason as the caller reports it; `sender` names the sender in it (checksummed, so
 * only computed for an error: a keccak256 per call otherwise).
 */
export function callFees(
  f: FeeFields,
  baseFee: bigint,
  sender: () => string,
  invalid: (reason: string) => Error,
): { feeCap: bigint; price: bigint } {
  const noFee = namesNoFee(f);
  if (f.maxFeePerGas === undefined && f.maxPriorityFeePerGas === undefined) {
    const price = f.gasPrice ?? 0n;
    if (!noFee && price < baseFee) {
      throw invalid(
        `max fee per gas less than block base fee: address ${sender()}, maxFeePerGas: ${price}, baseFee: ${baseFee}`,
      );
    }
    return { feeCap: price, price };
  }
  const tip = f.maxPriorityFeePerGas ?? 0n;
  const feeCap = f.maxFeePerGas ?? 0n;
  if (feeCap < tip) {
    throw invalid(
      `max priority fee per gas higher than max fee per gas: address ${sender()}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`,
    );
  }
  if (!noFee && feeCap < baseFee) {
    throw invalid(
      `max fee per gas less than block base fee: address ${sender()}, maxFeePerGas: ${feeCap}, baseFee: ${baseFee}`,
    );
  }
  return { feeCap, price: feeCap - baseFee < tip ? feeCap : baseFee + tip };
}
