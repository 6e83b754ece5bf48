/**
 * The checks @ethereumjs `runTx` makes before it changes anything (runTx.js `_runTx`, in its order), for
 * the paths that apply a transaction without it (plain_transfer.ts, contract_call.ts). A transaction
 * that fails any of them is left to `runTx`, which reports the error in its own words.
 */
import { Capability, getCalldataFloorGas, type TypedTransaction } from "@ethereumjs/tx";
import { type Account, type Address, KECCAK256_NULL } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import { equalBytes } from "../../common/bytes.ts";
import { calldataFloor, primeDataGas } from "./calldata_gas.ts";

/** A transaction that passed runTx's checks, with what they computed. */
export interface CheckedTx {
  caller: Address;
  /** The sender's account as it is (not yet charged). */
  sender: Account;
  intrinsic: bigint;
  /** EIP-7623 calldata floor (0 before Prague). */
  floor: bigint;
  /** Effective gas price and tip per gas under the block's base fee (EIP-1559). */
  gasPrice: bigint;
  tip: bigint;
}

/** EIPs that price the calldata floor otherwise than EIP-7623 (left to @ethereumjs). */
const FLOOR_CHANGING_EIPS = [2780, 7976, 7981];

/** `getCalldataFloorGas(tx, caller)`, counted without a bigint per byte (calldata_gas.ts) under plain EIP-7623. */
function calldataFloorOf(tx: TypedTransaction, caller: Address): bigint {
  const common = tx.common;
  if (!common.isActivatedEIP(7623)) return 0n;
  for (const eip of FLOOR_CHANGING_EIPS) {
    if (common.isActivatedEIP(eip)) return getCalldataFloorGas(tx, caller);
  }
  return calldataFloor(tx.data);
}

/** EIP-7702's delegation designator prefix: code 0xef0100 ‖ address delegates an account. */
export const DELEGATION_PREFIX = new Uint8Array([0xef, 0x01, 0x00]);

/** Whether `code` is an EIP-7702 delegation (0xef0100 followed by a 20-byte address). */
export function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

export function hasNoCode(account: Account): boolean {
  return equalBytes(account.codeHash, KECCAK256_NULL);
}

/**
 * runTx's checks of a legacy, EIP-2930 or EIP-1559 transaction from a sender without code: gas limit
 * against intrinsic gas and the calldata floor, fee cap against the base fee, nonce, balance for the
 * upfront and the maximal cost. Undefined when one fails (or the sender has no account or has code).
 */
export async function checkAsRunTx(
  vm: VM,
  tx: TypedTransaction,
  baseFee: bigint,
): Promise<CheckedTx | undefined> {
  const caller = tx.getSenderAddress();
  primeDataGas(tx);
  const intrinsic = tx.getIntrinsicGas();
  const floor = calldataFloorOf(tx, caller);
  if (tx.gasLimit < (intrinsic > floor ? intrinsic : floor)) return undefined;
  const is1559 = tx.supports(Capability.EIP1559FeeMarket);
  const maxFee = is1559
    ? (tx as { maxFeePerGas: bigint }).maxFeePerGas
    : (tx as { gasPrice: bigint }).gasPrice;
  if (maxFee < baseFee) return undefined;
  const sender = await vm.stateManager.getAccount(caller);
  if (sender === undefined || !hasNoCode(sender) || sender.nonce !== tx.nonce) return undefined;
  if (sender.balance < tx.getUpfrontCost(baseFee)) return undefined;
  if (is1559 && sender.balance < tx.value + tx.gasLimit * maxFee) return undefined;
  const tip = is1559 ? tx.getEffectivePriorityFee(baseFee) : maxFee - baseFee;
  return { caller, sender, intrinsic, floor, gasPrice: is1559 ? tip + baseFee : maxFee, tip };
}
