/**
 * A call transaction (legacy, EIP-2930 or EIP-1559, to an address) applied around `evm.runCall`
 * without @ethereumjs `runTx`.
 *
 * `runTx` is written for every fork and every option: three journal checkpoints a transaction (its
 * own, one for EIP-7702 authorizations, the call's), two journal cleanups, the `beforeTx`/`afterTx`
 * events, the EIP-8037/7928/7864 bookkeeping. For a call on the forks keel executes, the state
 * transition it applies is (runTx.js `_runTx`, the yellow paper and the EIPs it implements):
 * - warm (EIP-2929): the precompiles, the sender, the recipient, the coinbase (EIP-3651) and the
 *   access list (EIP-2930);
 * - buy gas: the sender pays gasLimit x the effective gas price (EIP-1559), its nonce increments;
 * - run the message with gasLimit - intrinsic gas;
 * - gas used = intrinsic + execution gas - refund, the refund capped at gas used / the refund quotient
 *   (EIP-3529), raised to the calldata floor (EIP-7623); the sender gets the unused gas back, the
 *   coinbase gasUsed x the effective tip;
 * - self-destructed accounts are deleted (EIP-6780: only those created in the transaction), touched
 *   empty accounts too (EIP-161), the warm sets and original storage values are dropped.
 * This module applies that with one journal checkpoint (the caller's block stays revertible).
 *
 * Everything else goes to `runTx`: creations, blob and set-code transactions, senders with code, forks
 * whose rules reach the transaction (those of plainTransfersApply: EIP-7928, EIP-8037...), a VM with
 * debug logging, the profiler or `beforeTx`/`afterTx` listeners, and every invalid transaction (so that
 * `runTx` reports its error). Tested state for state against `runTx`
 * (tests/unit/execution/evm/contract_call_test.ts).
 */
import { Capability, type TypedTransaction } from "@ethereumjs/tx";
import type { Block as EjsBlock } from "@ethereumjs/block";
import { Account, bytesToUnprefixedHex, createAddressFromString } from "@ethereumjs/util";
import type { RunTxResult, VM } from "@ethereumjs/vm";
import { checkAsRunTx } from "./tx_checks.ts";
import { markCredit } from "../state/mod.ts";

/** What `runTx` would have returned, as far as keel's tx runner reads it. */
export type ContractCallResult = Pick<RunTxResult, "totalGasSpent" | "execResult">;

/** How many transactions took this path (tests). */
export const contractCallStats = { applied: 0 };

interface JournalState {
  journalHeight: number;
  touched: Set<string>;
  journal: Map<string, unknown>;
  alwaysWarmJournal: Map<string, unknown>;
  journalDiff: unknown[];
  accessList?: unknown;
  preimages?: unknown;
}

interface VmInternals {
  DEBUG: boolean;
  _opts: { profilerOpts?: { reportAfterTx?: boolean } };
  events: { listenerCount(topic: string): number };
}

/** Whether `vm` does nothing per transaction beyond the state transition (no events, no debug). */
function plainVm(vm: VM): boolean {
  const v = vm as unknown as VmInternals;
  if (v.DEBUG || v._opts.profilerOpts?.reportAfterTx === true) return false;
  return v.events.listenerCount("beforeTx") === 0 && v.events.listenerCount("afterTx") === 0;
}

/** Whether the journal holds nothing of an earlier transaction (as `runTx`'s first cleanup leaves it). */
function journalClean(j: JournalState): boolean {
  return j.journalHeight === 0 && j.touched.size === 0 && j.journal.size === 0 &&
    j.alwaysWarmJournal.size === 0 && j.journalDiff.length === 1 && j.accessList === undefined &&
    j.preimages === undefined;
}

/**
 * Applies `tx` when it is a valid call in `block` (the caller checked the fork with
 * `plainTransfersApply` and the block gas limit); returns undefined, with nothing changed, when it is
 * not one: the caller then runs it through `runTx`.
 */
export async function applyContractCall(
  vm: VM,
  tx: TypedTransaction,
  block: EjsBlock,
  baseFee: bigint,
  /** False when the caller discards all state on an error (block import): no checkpoint of its own. */
  atomic = true,
): Promise<ContractCallResult | undefined> {
  if (tx.type > 2 || tx.to === undefined || !plainVm(vm)) return undefined;
  const checked = await checkAsRunTx(vm, tx, baseFee);
  if (checked === undefined) return undefined;
  const { caller, sender, intrinsic, floor, gasPrice, tip } = checked;
  const common = vm.common;
  const to = tx.to;
  const sm = vm.stateManager;
  const evm = vm.evm;
  const journal = evm.journal;
  if (!journalClean(journal as unknown as JournalState)) await journal.cleanup();
  if (atomic) await journal.checkpoint();
  let cleaned = false;
  try {
    for (const [address] of evm.precompiles.entries()) journal.addAlwaysWarmAddress(address);
    journal.addAlwaysWarmAddress(bytesToUnprefixedHex(caller.bytes));
    journal.addAlwaysWarmAddress(bytesToUnprefixedHex(to.bytes));
    const coinbase = block.header.coinbase;
    if (common.isActivatedEIP(3651)) journal.addAlwaysWarmAddress(bytesToUnprefixedHex(coinbase.bytes));
    if (tx.supports(Capability.EIP2930AccessLists)) {
      for (const [address, slots] of (tx as { accessList: [Uint8Array, Uint8Array[]][] }).accessList) {
        const a = bytesToUnprefixedHex(address);
        journal.addAlwaysWarmAddress(a, true);
        for (const slot of slots) journal.addAlwaysWarmSlot(a, bytesToUnprefixedHex(slot), true);
      }
    }

    sender.balance -= tx.gasLimit * gasPrice;
    sender.nonce += 1n;
    await journal.putAccount(caller, sender);

    const { execResult } = await evm.runCall({
      block,
      gasPrice,
      caller,
      gasLimit: tx.gasLimit - intrinsic,
      to,
      value: tx.value,
      data: tx.data,
      skipNonceIncrement: true,
    });

    let gasUsed = execResult.executionGasUsed + intrinsic;
    const refund = execResult.gasRefund ?? 0n;
    if (refund !== 0n) {
      const max = gasUsed / common.param("maxRefundQuotient");
      gasUsed -= refund < max ? refund : max;
    }
    if (common.isActivatedEIP(7623) && gasUsed < floor) gasUsed = floor;

    const paid = (await sm.getAccount(caller)) ?? new Account();
    paid.balance += (tx.gasLimit - gasUsed) * gasPrice;
    await journal.putAccount(caller, paid);
    markCredit(sm, true);
    try {
      const miner = (await sm.getAccount(coinbase)) ?? new Account();
      miner.balance += gasUsed * tip;
      await journal.putAccount(coinbase, miner);
    } finally {
      markCredit(sm, false);
    }

    for (const hex of execResult.selfdestruct?.keys() ?? []) {
      if (common.isActivatedEIP(6780) && !(execResult.createdAddresses?.has(hex) ?? false)) continue;
      await journal.deleteAccount(createAddressFromString(hex));
    }
    // EIP-161 (touched empty accounts deleted) and the journal's reset, as runTx's last cleanup; then
    // this transaction's state checkpoint is merged into the block's. Its look at the credited coinbase
    // only asks whether it is empty, which more credits do not change.
    markCredit(sm, true);
    try {
      await journal.cleanup();
    } finally {
      markCredit(sm, false);
    }
    cleaned = true;
    sm.originalStorageCache.clear();
    if (atomic) await sm.commit();
    contractCallStats.applied++;
    return { totalGasSpent: gasUsed, execResult };
  } catch (e) {
    // As runTx: this transaction's changes are dropped, the block's stay.
    if (!cleaned && atomic) await journal.revert();
    journal.cleanJournal();
    sm.originalStorageCache.clear();
    throw e;
  }
}
