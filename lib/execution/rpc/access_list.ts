/**
 * eth_createAccessList (geth internal/ethapi AccessList and eth/tracers/logger/access_list_tracer.go):
 * the call runs with an access-list tracer that records the storage slots SLOAD/SSTORE touch (under
 * the executing account) and the accounts BALANCE, EXTCODE*, SELFDESTRUCT and the CALL family name;
 * it runs again with the list it found as its access list until the list no longer changes. The
 * sender, the recipient (or the address a create makes) and the precompiles are left out as
 * accounts (a slot of one still lists it). Each run pays no fee (geth sets the gas price to 0 and
 * NoBaseFee). The result is geth's {accessList, gasUsed, error?}, the list sorted by address and
 * slot (geth accessList.accessList).
 */
import type { InterpreterStep } from "@ethereumjs/evm";
import { Address, generateAddress } from "@ethereumjs/util";
import { RLP } from "@ethereumjs/rlp";
import { bigIntToBytes, bytesToHex, type Hex, hexToBytes, keccak256 } from "../../common/mod.ts";
import { RpcError } from "../../rpc/mod.ts";
import { type CallArgs, callGas } from "./call_args.ts";
import { type CallEnv, InvalidCallError } from "./call.ts";
import { gethError } from "./debug/mod.ts";

/** One entry of an access list in wire form. */
export interface AccessListEntry {
  address: Hex;
  storageKeys: Hex[];
}

/** geth's accessListResult. */
export interface AccessListResult {
  accessList: AccessListEntry[];
  gasUsed: Hex;
  error?: string;
}

const ADDRESS_OPS = new Set(["BALANCE", "EXTCODESIZE", "EXTCODECOPY", "EXTCODEHASH", "SELFDESTRUCT"]);
const CALL_OPS = new Set(["CALL", "CALLCODE", "DELEGATECALL", "STATICCALL"]);

function addressHex(word: bigint): Hex {
  return `0x${(word & ((1n << 160n) - 1n)).toString(16).padStart(40, "0")}`;
}

function slotHex(word: bigint): Hex {
  return `0x${word.toString(16).padStart(64, "0")}`;
}

/** The accounts and slots a run touches (geth logger.AccessListTracer). */
export class AccessListTracer {
  readonly #list = new Map<Hex, Set<Hex>>();
  readonly #excluded: ReadonlySet<Hex>;

  /** Starts from `initial` (its excluded accounts dropped, their slots kept). */
  constructor(initial: AccessListEntry[], excluded: ReadonlySet<Hex>) {
    this.#excluded = excluded;
    for (const e of initial) {
      if (!excluded.has(e.address)) this.#addAddress(e.address);
      for (const k of e.storageKeys) this.#addSlot(e.address, k);
    }
  }

  #addAddress(a: Hex): void {
    if (!this.#list.has(a)) this.#list.set(a, new Set());
  }

  #addSlot(a: Hex, slot: Hex): void {
    this.#addAddress(a);
    this.#list.get(a)!.add(slot);
  }

  /** The `step` listener. */
  readonly onStep = (step: InterpreterStep): void => {
    const name = step.opcode.name;
    const stack = step.stack;
    const n = stack.length;
    if ((name === "SLOAD" || name === "SSTORE") && n >= 1) {
      this.#addSlot(step.address.toString() as Hex, slotHex(stack[n - 1]));
    } else if (ADDRESS_OPS.has(name) && n >= 1) {
      const a = addressHex(stack[n - 1]);
      if (!this.#excluded.has(a)) this.#addAddress(a);
    } else if (CALL_OPS.has(name) && n >= 5) {
      const a = addressHex(stack[n - 2]);
      if (!this.#excluded.has(a)) this.#addAddress(a);
    }
  };

  /** The list, sorted by address and by slot. */
  list(): AccessListEntry[] {
    return [...this.#list.keys()].sort().map((address) => ({
      address,
      storageKeys: [...this.#list.get(address)!].sort(),
    }));
  }

  /** Same accounts and slots as `other`. */
  equals(other: AccessListTracer): boolean {
    if (this.#list.size !== other.#list.size) return false;
    for (const [a, slots] of this.#list) {
      const o = other.#list.get(a);
      if (o === undefined || o.size !== slots.size) return false;
      for (const k of slots) if (!o.has(k)) return false;
    }
    return true;
  }
}

/** Runs the call until its access list is stable (see the file comment). */
export async function createAccessList(
  env: CallEnv,
  args: CallArgs,
  gasCap: bigint,
): Promise<AccessListResult> {
  if (
    args.gasPrice !== undefined &&
    (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined)
  ) {
    throw RpcError.server("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified");
  }
  const from = args.from ?? new Uint8Array(20);
  const nonce = args.nonce ?? (await env.sm.getAccount(new Address(from)))?.nonce ?? 0n;
  const to = args.to ?? generateAddress(from, bigIntToBytes(nonce));
  const excluded = new Set<Hex>([bytesToHex(from), bytesToHex(to)]);
  for (const a of env.vm.evm.precompiles.keys()) excluded.add((a.startsWith("0x") ? a : `0x${a}`) as Hex);
  const gas = callGas(args, gasCap);
  const initial = (args.accessList ?? []).map((e) => ({
    address: bytesToHex(e.address),
    storageKeys: e.storageKeys.map(bytesToHex),
  }));
  let prev = new AccessListTracer(initial, excluded);
  const events = env.vm.evm.events!;
  for (;;) {
    const accessList = prev.list();
    const tracer = new AccessListTracer(accessList, excluded);
    const run: CallArgs = {
      ...args,
      gasPrice: undefined,
      maxFeePerGas: undefined,
      maxPriorityFeePerGas: undefined,
      accessList: accessList.map((e) => ({
        address: hexToBytes(e.address),
        storageKeys: e.storageKeys.map((k) => hexToBytes(k)),
      })),
    };
    events.on("step", tracer.onStep);
    let result;
    try {
      result = await env.execute(run, gas);
    } catch (e) {
      if (e instanceof InvalidCallError) {
        const hash = bytesToHex(legacyHash(args, nonce, gas));
        throw RpcError.server(`failed to apply transaction: ${hash} err: ${e.reason}`);
      }
      throw e;
    } finally {
      events.off("step", tracer.onStep);
    }
    if (tracer.equals(prev)) {
      const out: AccessListResult = { accessList, gasUsed: `0x${result.gasUsed.toString(16)}` };
      if (result.error !== undefined) out.error = gethError(result.error);
      return out;
    }
    prev = tracer;
  }
}

/**
 * The hash geth names a refused run by: its call object as an unsigned legacy transaction
 * (TransactionArgs.ToTransaction(LegacyTxType): nonce, gasPrice or 0, gas, to, value, data, v r s 0).
 */
function legacyHash(args: CallArgs, nonce: bigint, gas: bigint): Uint8Array {
  const empty = new Uint8Array();
  return keccak256(RLP.encode([
    bigIntToBytes(nonce),
    bigIntToBytes(args.gasPrice ?? 0n),
    bigIntToBytes(gas),
    args.to ?? empty,
    bigIntToBytes(args.value ?? 0n),
    args.input ?? args.data ?? empty,
    empty,
    empty,
    empty,
  ]));
}
