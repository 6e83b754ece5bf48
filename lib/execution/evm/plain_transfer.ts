/**
 * A value transfer between two accounts without code, applied without the EVM.
 *
 * Most L2 transactions by count are plain transfers, and `runTx` spends most of their time on what a
 * transfer never needs: two journal checkpoints, the warm sets of EIP-2929, a `Message`, the code
 * lookup. For a transaction that only moves value the state transition is fixed by the yellow paper
 * and the EIPs @ethereumjs implements in `runTx` and `EVM._executeCall`:
 * - the sender pays gasUsed x the effective gas price (EIP-1559) plus the value, its nonce increments;
 * - the recipient receives the value; the coinbase receives gasUsed x the effective tip;
 * - gasUsed is the intrinsic gas (21,000), or the EIP-7623 calldata floor if higher;
 * - an account left empty by the transaction (EIP-161: nonce 0, balance 0, no code) is deleted.
 *
 * Anything else goes the EVM way: a recipient with code or a precompile, calldata, an access list or
 * authorizations, a sender with code (EIP-3607, EIP-7702), aliased accounts, forks whose rules reach
 * transfers (EIP-7928 access lists, EIP-8037 state gas, EIP-7864 witnesses...), and every invalid
 * transaction (so that `runTx` reports the error). The equivalence is tested state for state against
 * `runTx` (tests/execution/plain_transfer_test.ts).
 */
import { type Common, ConsensusType } from "@ethereumjs/common";
import { Capability, type TypedTransaction } from "@ethereumjs/tx";
import { Account, type Address, bytesToUnprefixedHex } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import { checkAsRunTx, hasNoCode } from "./tx_checks.ts";
import { markCredit } from "../state/mod.ts";

/** What `runTx` would have returned, as far as its caller reads it. */
export interface PlainTransferResult {
  totalGasSpent: bigint;
}

const MAX_UINT256 = (1n << 256n) - 1n;

/** How many transactions took this path (tests). */
export const plainTransferStats = { applied: 0 };

/**
 * EIPs that change how a value transfer executes (Amsterdam and the verkle/binary tree drafts): with
 * any of them active the fast path is off.
 */
const TRANSFER_CHANGING_EIPS = [2780, 6800, 7708, 7778, 7864, 7928, 8037, 8246];

/** Whether blocks under `common` may take the fast path (London or later, proof of stake). */
export function plainTransfersApply(common: Common): boolean {
  return common.isActivatedEIP(1559) && common.consensusType() !== ConsensusType.ProofOfAuthority &&
    !TRANSFER_CHANGING_EIPS.some((eip) => common.isActivatedEIP(eip));
}

function isEmpty(account: Account): boolean {
  return account.nonce === 0n && account.balance === 0n && hasNoCode(account);
}

/** Writes an account as the journal's cleanup leaves it: deleted when empty (EIP-161). */
async function store(vm: VM, address: Address, account: Account): Promise<void> {
  if (isEmpty(account)) await vm.stateManager.deleteAccount(address);
  else await vm.stateManager.putAccount(address, account);
}

/**
 * Applies `tx` when it is a valid plain transfer in `block` (the caller checked the fork with
 * `plainTransfersApply` and the block gas limit); returns undefined, with nothing changed, when it is
 * not one: the caller then runs it through `runTx`.
 */
export async function applyPlainTransfer(
  vm: VM,
  tx: TypedTransaction,
  coinbase: Address,
  baseFee: bigint,
): Promise<PlainTransferResult | undefined> {
  if (tx.type > 2 || tx.to === undefined || tx.data.length !== 0) return undefined;
  if (tx.supports(Capability.EIP2930AccessLists) && (tx as { accessList: unknown[] }).accessList.length > 0) {
    return undefined;
  }
  const to = tx.to;
  const toKey = bytesToUnprefixedHex(to.bytes);
  // getPrecompile, not the precompile map: eth_simulateV1 may have moved one (rpc/simulate.ts).
  if ((vm.evm.getPrecompile?.(to) ?? vm.evm.precompiles.get(toKey)) !== undefined) return undefined;
  const callerKey = bytesToUnprefixedHex(tx.getSenderAddress().bytes);
  const coinbaseKey = bytesToUnprefixedHex(coinbase.bytes);
  if (callerKey === toKey || callerKey === coinbaseKey || toKey === coinbaseKey) return undefined;

  const checked = await checkAsRunTx(vm, tx, baseFee);
  if (checked === undefined) return undefined;
  const { caller, sender, intrinsic, floor, tip, gasPrice } = checked;
  const gasUsed = intrinsic > floor ? intrinsic : floor;
  const sm = vm.stateManager;
  const recipient = await sm.getAccount(to);
  if (recipient !== undefined && !hasNoCode(recipient)) return undefined;
  if ((recipient?.balance ?? 0n) + tx.value > MAX_UINT256) return undefined;
  markCredit(sm, true);
  let miner: Account | undefined;
  try {
    miner = await sm.getAccount(coinbase);
  } finally {
    markCredit(sm, false);
  }

  sender.nonce += 1n;
  sender.balance -= tx.value + gasUsed * gasPrice;
  await store(vm, caller, sender);
  if (recipient !== undefined) {
    recipient.balance += tx.value;
    await store(vm, to, recipient);
  } else if (tx.value > 0n) {
    await sm.putAccount(to, new Account(0n, tx.value));
  } else {
    // Touched and empty: runTx creates it and the cleanup deletes it again.
    await sm.deleteAccount(to);
  }
  markCredit(sm, true);
  try {
    if (miner !== undefined) {
      miner.balance += gasUsed * tip;
      await store(vm, coinbase, miner);
    } else if (tip > 0n) {
      await sm.putAccount(coinbase, new Account(0n, gasUsed * tip));
    } else {
      await sm.deleteAccount(coinbase);
    }
  } finally {
    markCredit(sm, false);
  }
  plainTransferStats.applied++;
  return { totalGasSpent: gasUsed };
}
