/**
 * The Parity/OpenEthereum trace format as op-erigon and reth serve it: call frames flattened
 * depth-first with traceAddress and subtraces (action {callType, from, to, gas, input, value} or
 * {from, gas, init, value, creationMethod}, result {gasUsed, output} or {address, code, gasUsed},
 * null for a failure other than a revert), and the stateDiff deltas ("=", {"+"}, {"-"}, {"*": {from, to}}).
 */
import { bytesToHex, type Hex, toQuantity } from "../../../common/mod.ts";
import { type AccountState, type CallFrame, parityError, REVERT_ERROR } from "../debug/mod.ts";

export interface CallAction {
  from: Hex;
  callType: "call" | "delegatecall" | "staticcall" | "callcode";
  gas: Hex;
  input: Hex;
  to: Hex;
  value: Hex;
}

export interface CreateAction {
  from: Hex;
  gas: Hex;
  init: Hex;
  value: Hex;
  creationMethod: "create" | "create2";
}

/** A self-destruct (Parity "suicide"). */
export interface SuicideAction {
  address: Hex;
  refundAddress: Hex;
  balance: Hex;
}

export type TraceResult = { gasUsed: Hex; output: Hex } | { address: Hex; code: Hex; gasUsed: Hex } | null;

/** A trace without its position in the chain (trace_call, trace_replay*). */
export interface TransactionTrace {
  action: CallAction | CreateAction | SuicideAction;
  error?: string;
  result: TraceResult;
  subtraces: number;
  traceAddress: number[];
  type: "call" | "create" | "suicide";
}

/** A trace with its block and transaction (trace_block, trace_transaction, trace_filter). */
export interface LocalizedTrace extends TransactionTrace {
  blockHash: Hex;
  blockNumber: number;
  transactionHash: Hex;
  transactionPosition: number;
}

export interface TracePlace {
  blockHash: Uint8Array;
  blockNumber: bigint;
  transactionHash: Uint8Array;
  transactionPosition: number;
}

function toTrace(f: CallFrame, traceAddress: number[]): TransactionTrace {
  if (f.type === "SELFDESTRUCT") {
    return {
      action: {
        address: bytesToHex(f.from),
        refundAddress: bytesToHex(f.to ?? new Uint8Array(20)),
        balance: toQuantity(f.value),
      },
      result: null,
      subtraces: 0,
      traceAddress,
      type: "suicide",
    };
  }
  const create = f.type === "CREATE" || f.type === "CREATE2";
  const action: CallAction | CreateAction = create
    ? {
      from: bytesToHex(f.from),
      gas: toQuantity(f.execGas),
      init: bytesToHex(f.input),
      value: toQuantity(f.value),
      creationMethod: f.type === "CREATE2" ? "create2" : "create",
    }
    : {
      from: bytesToHex(f.from),
      callType: f.type.toLowerCase() as CallAction["callType"],
      gas: toQuantity(f.execGas),
      input: bytesToHex(f.input),
      to: bytesToHex(f.to ?? new Uint8Array(20)),
      value: toQuantity(f.type === "STATICCALL" ? 0n : f.value),
    };
  const t: TransactionTrace = {
    action,
    result: null,
    subtraces: f.calls.length,
    traceAddress,
    type: create ? "create" : "call",
  };
  if (f.error !== undefined) t.error = parityError(f.error);
  // A reverted frame keeps its result, the revert data as output (reth's and erigon's traces); other
  // failures have none.
  if (f.error !== undefined && f.error !== REVERT_ERROR) return t;
  if (create) {
    t.result = {
      address: bytesToHex(f.created ?? f.to ?? new Uint8Array(20)),
      code: bytesToHex(f.output),
      gasUsed: toQuantity(f.execGasUsed),
    };
  } else t.result = { gasUsed: toQuantity(f.execGasUsed), output: bytesToHex(f.output) };
  return t;
}

/** The frames of one transaction, depth-first (parents before their sub-calls). */
export function flattenFrames(root: CallFrame): TransactionTrace[] {
  const out: TransactionTrace[] = [];
  const walk = (f: CallFrame, path: number[]) => {
    out.push(toTrace(f, path));
    f.calls.forEach((c, i) => walk(c, [...path, i]));
  };
  walk(root, []);
  return out;
}

export function localize(traces: TransactionTrace[], place: TracePlace): LocalizedTrace[] {
  const extra = {
    blockHash: bytesToHex(place.blockHash),
    blockNumber: Number(place.blockNumber),
    transactionHash: bytesToHex(place.transactionHash),
    transactionPosition: place.transactionPosition,
  };
  return traces.map((t) => ({
    action: t.action,
    blockHash: extra.blockHash,
    blockNumber: extra.blockNumber,
    ...(t.error === undefined ? {} : { error: t.error }),
    result: t.result,
    subtraces: t.subtraces,
    traceAddress: t.traceAddress,
    transactionHash: extra.transactionHash,
    transactionPosition: extra.transactionPosition,
    type: t.type,
  }));
}

export type Delta<T> = "=" | { "+": T } | { "-": T } | { "*": { from: T; to: T } };

export interface AccountDiff {
  balance: Delta<Hex>;
  code: Delta<Hex>;
  nonce: Delta<Hex>;
  storage: Record<Hex, Delta<Hex>>;
}

const ZERO = ("0x" + "00".repeat(32)) as Hex;

function delta<T>(from: T, to: T): Delta<T> {
  return from === to ? "=" : { "*": { from, to } };
}

/** Parity stateDiff of the touched accounts: only accounts with a change appear. */
export function stateDiff(
  pre: Map<Hex, AccountState>,
  post: Map<Hex, AccountState>,
): Record<Hex, AccountDiff> {
  const out: Record<Hex, AccountDiff> = {};
  for (const [addr, a] of pre) {
    const b = post.get(addr);
    if (b === undefined || (!a.exists && !b.exists)) continue;
    if (!a.exists || !b.exists) {
      const s = a.exists ? a : b;
      const sign = a.exists ? "-" : "+";
      const wrap = <T>(v: T) => ({ [sign]: v }) as Delta<T>;
      const storage: Record<Hex, Delta<Hex>> = {};
      for (const [slot, v] of s.storage) if (v !== ZERO) storage[slot] = wrap(v);
      out[addr] = {
        balance: wrap(toQuantity(s.balance)),
        code: wrap(bytesToHex(s.code)),
        nonce: wrap(toQuantity(s.nonce)),
        storage,
      };
      continue;
    }
    const storage: Record<Hex, Delta<Hex>> = {};
    for (const [slot, v] of a.storage) {
      const nv = b.storage.get(slot) ?? ZERO;
      if (nv !== v) storage[slot] = { "*": { from: v, to: nv } };
    }
    const d: AccountDiff = {
      balance: delta(toQuantity(a.balance), toQuantity(b.balance)),
      code: delta(bytesToHex(a.code), bytesToHex(b.code)),
      nonce: delta(toQuantity(a.nonce), toQuantity(b.nonce)),
      storage,
    };
    if (d.balance !== "=" || d.code !== "=" || d.nonce !== "=" || Object.keys(storage).length > 0) {
      out[addr] = d;
    }
  }
  return out;
}
