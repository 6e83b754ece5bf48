/**
 * The OP state transition of one transaction on @ethereumjs/vm.
 *
 * Deposits (specs/protocol/deposits.md "Execution"; op-geth core/state_transition.go):
 * the mint is credited first and survives failure; no gas is bought or refunded and no fee is paid;
 * the nonce increments even when the deposit fails; before Regolith the receipt reports the gas limit
 * (0 for a system tx, which also takes nothing from the gas pool); from Regolith the actual gas used,
 * except that a deposit failing outside the EVM (intrinsic gas, value above balance, system tx) reports
 * its whole gas limit.
 *
 * User transactions (specs/protocol/exec-engine.md "Fees", isthmus/exec-engine.md "Operator Fee"): the
 * L1 data fee and the worst-case operator fee are bought together with the gas; base fee x gasUsed goes to
 * the BaseFeeVault (not burned), the tip to the coinbase, the L1 fee to the L1FeeVault, the effective
 * operator fee to the OperatorFeeVault and the unused operator fee back to the sender.
 */
import { Hardfork } from "@ethereumjs/common";
import type { Block as EjsBlock } from "@ethereumjs/block";
import { Capability, type TypedTransaction } from "@ethereumjs/tx";
import {
  Account,
  Address,
  bigIntToUnpaddedBytes,
  createAddressFromString,
  generateAddress,
  KECCAK256_NULL,
} from "@ethereumjs/util";
import { runTx, type RunTxResult, type VM } from "@ethereumjs/vm";
import { bytesToHex, equalBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import type { ChainConfig } from "../../protocol/chain_config.ts";
import { type DepositTx, encodeDepositTx } from "../../protocol/deposit_tx.ts";
import {
  BASE_FEE_VAULT_ADDRESS,
  L1_FEE_VAULT_ADDRESS,
  OPERATOR_FEE_VAULT_ADDRESS,
} from "../../protocol/predeploys.ts";
import type { Log, Receipt } from "../../protocol/receipt.ts";
import { type ForkRules, opActive, txCommon } from "./common.ts";
import { logsBloom } from "./bloom.ts";
import { calldataFloor, calldataGas } from "./calldata_gas.ts";
import { decodeSignedTx } from "./tx_decode.ts";
import { applyPlainTransfer } from "./plain_transfer.ts";
import { applyContractCall } from "./contract_call.ts";
import type { L1FeeInfo, L1FeeSource } from "./l1_fee.ts";
import { impersonatedSender } from "./impersonation.ts";
import { markCredit } from "../state/mod.ts";

/** What a transaction runs against: the block being built or imported. */
export interface TxContext {
  config: ChainConfig;
  rules: ForkRules;
  /** The @ethereumjs block header the EVM sees (number, timestamp, coinbase, baseFee, prevRandao...). */
  block: EjsBlock;
  timestamp: bigint;
  baseFee: bigint;
  /** OP chains: the L1 fee parameters of this block (read from L1Block after the deposits). */
  l1Fees?: () => Promise<L1FeeSource>;
  /** Jovian: DA footprint the block can still take (jovian/exec-engine.md "DA Footprint Block Limit"). */
  daFootprintRoom?: () => bigint;
  /**
   * Apply plain value transfers without the EVM (plain_transfer.ts) and calls without `runTx`
   * (contract_call.ts); block building and import only: tracers need the EVM's message events. Set
   * only when `plainTransfersApply(rules.common)`.
   */
  plainTransfers?: boolean;
  /**
   * Apply only what the direct paths above handle; any other transaction throws (speculative execution,
   * speculation.ts, whose records cover those paths).
   */
  fastOnly?: boolean;
  /**
   * The caller throws the whole block away when a transaction fails (block import): a call applied
   * without runTx then needs no state checkpoint of its own (contract_call.ts).
   */
  wholeBlock?: boolean;
  /**
   * geth's vm.Config.NoBaseFee (eth_simulateV1 without validation): a transaction that offers no fee at
   * all (fee cap and tip, or gas price, 0) is not held to the base fee and pays nothing; it runs in
   * `zeroBaseFeeBlock` when it needs the full runTx (whose VM must answer BASEFEE with the real one).
   */
  noBaseFee?: boolean;
  zeroBaseFeeBlock?: () => EjsBlock;
}

export interface TxResult {
  /** The consensus receipt (cumulativeGasUsed includes this tx). */
  receipt: Receipt;
  /** The transaction as it goes into the transactions trie and the block body. */
  encoded: Uint8Array;
  txHash: Uint8Array;
  type: number;
  from: Uint8Array;
  to: Uint8Array | null;
  nonce: bigint;
  gasUsed: bigint;
  /** Gas taken from the block's gas pool (equals gasUsed; a pre-Regolith system tx takes 0). */
  contractAddress?: Uint8Array;
  logs: Log[];
  effectiveGasPrice: bigint;
  /** OP user transactions only. */
  l1Fee?: L1FeeInfo;
  /** EIP-4844 blob gas of a blob transaction (plain chains only). */
  blobGasUsed?: bigint;
  /** The EVM error of a failed execution (status 0), for tracing and RPC. */
  error?: string;
  /** What the top call returned (revert data when it reverted); deposits and creations leave it out. */
  returnData?: Uint8Array;
}

/** The EVM result of a transaction that ran no code (a plain transfer): no logs, no error. */
const NO_EXECUTION: RunTxResult["execResult"] = Object.freeze({
  executionGasUsed: 0n,
  returnValue: new Uint8Array(0),
  logs: [],
}) as RunTxResult["execResult"];

function toLogs(raw: [Uint8Array, Uint8Array[], Uint8Array][] | undefined): Log[] {
  return (raw ?? []).map(([address, topics, data]) => ({ address, topics, data }));
}

/** Intrinsic gas of a deposit (no access list): 21000 (+32000 create), calldata 4/16, EIP-3860 initcode words. */
export function depositIntrinsicGas(dep: DepositTx, rules: ForkRules): bigint {
  const create = dep.to === null;
  return (create ? 53000n : 21000n) +
    calldataGas(dep.data, create && rules.common.gteHardfork(Hardfork.Shanghai));
}

/** EIP-7623 calldata floor (Prague, so Isthmus on OP): 21000 + 10 per token (zero byte 1, other 4); 0 before. */
export function floorDataGas(data: Uint8Array, rules: ForkRules): bigint {
  return rules.common.isActivatedEIP(7623) ? calldataFloor(data) : 0n;
}

function warm(vm: VM, addresses: (Uint8Array | null)[]): void {
  for (const [a] of vm.evm.precompiles.entries()) vm.evm.journal.addAlwaysWarmAddress(a);
  for (const a of addresses) {
    if (a !== null) vm.evm.journal.addAlwaysWarmAddress(new Address(a).toString());
  }
}

async function processSelfdestructs(
  vm: VM,
  selfdestruct: Map<string, string> | undefined,
  created: Set<string> | undefined,
): Promise<void> {
  if (selfdestruct === undefined) return;
  for (const hex of selfdestruct.keys()) {
    const address = createAddressFromString(hex);
    if (vm.common.isActivatedEIP(6780) && !(created?.has(address.toString()) ?? false)) continue;
    await vm.evm.journal.deleteAccount(address);
  }
}

/** The address a CREATE by `from` at `nonce` makes (yellow paper: keccak256(rlp([from, nonce]))[12:]). */
function createdAddressOf(from: Uint8Array, nonce: bigint): Uint8Array {
  return generateAddress(from, bigIntToUnpaddedBytes(nonce));
}

/** Applies a deposit transaction. Throws only when it cannot be included (gas pool). */
export async function runDeposit(
  vm: VM,
  dep: DepositTx,
  ctx: TxContext,
  gasUsedBefore: bigint,
): Promise<TxResult> {
  const { rules } = ctx;
  const regolith = opActive(ctx.config, "regolith", ctx.timestamp);
  const canyon = opActive(ctx.config, "canyon", ctx.timestamp);
  const from = new Address(dep.from);
  const sm = vm.stateManager;
  const encoded = encodeDepositTx(dep);

  let account = (await sm.getAccount(from)) ?? new Account();
  const nonce = account.nonce;
  // The mint is credited before the snapshot: it survives a failed deposit.
  account.balance += dep.mint;
  await vm.evm.journal.putAccount(from, account);

  await vm.evm.journal.cleanup();
  await vm.evm.journal.checkpoint();
  let failure: string | undefined;
  const intrinsic = depositIntrinsicGas(dep, rules);
  const floor = floorDataGas(dep.data, rules);
  if (dep.isSystemTx && regolith) failure = "system transactions are not supported from Regolith";
  else if (dep.gas < intrinsic) failure = `intrinsic gas too low: have ${dep.gas}, want ${intrinsic}`;
  else if (dep.gas < floor) {
    failure = `insufficient gas for floor data gas cost: have ${dep.gas}, want ${floor}`;
  } else if (account.balance < dep.value) failure = "insufficient funds for transfer";
  else if (dep.to === null && rules.common.gteHardfork(Hardfork.Shanghai)) {
    // The Common's limit: EIP-3860's, or dev mode's --dev.code-size-limit (common.ts codeSizeParams).
    const limit = Number(rules.common.param("maxInitCodeSize"));
    if (dep.data.length > limit) {
      failure = `max initcode size exceeded: code size ${dep.data.length} limit ${limit}`;
    }
  }
  let execGasUsed = 0n;
  let refund = 0n;
  let logs: Log[] = [];
  let contractAddress: Uint8Array | undefined;
  let evmError: string | undefined;
  if (failure === undefined) {
    warm(vm, [dep.from, dep.to, rules.common.isActivatedEIP(3651) ? ctx.block.header.coinbase.bytes : null]);
    try {
      const res = await vm.evm.runCall({
        block: ctx.block,
        caller: from,
        origin: from,
        to: dep.to === null ? undefined : new Address(dep.to),
        value: dep.value,
        data: dep.data,
        gasLimit: dep.gas - intrinsic,
        gasPrice: 0n,
      });
      execGasUsed = res.execResult.executionGasUsed;
      refund = res.execResult.gasRefund ?? 0n;
      evmError = res.execResult.exceptionError?.error;
      if (evmError === undefined) {
        logs = toLogs(res.execResult.logs as [Uint8Array, Uint8Array[], Uint8Array][] | undefined);
        contractAddress = res.createdAddress?.bytes;
        await processSelfdestructs(vm, res.execResult.selfdestruct, res.execResult.createdAddresses);
      }
      await vm.evm.journal.commit();
    } catch (e) {
      await vm.evm.journal.revert();
      failure = e instanceof Error ? e.message : String(e);
    }
  } else {
    await vm.evm.journal.revert();
  }
  if (failure !== undefined) {
    // Failed deposit: everything after the mint is rewound, the nonce still increments.
    account = (await sm.getAccount(from)) ?? new Account();
    account.nonce = nonce + 1n;
    await vm.evm.journal.putAccount(from, account);
  }
  await vm.evm.journal.cleanup();
  clearOriginalStorage(vm);

  let gasUsed: bigint;
  if (failure !== undefined || !regolith) {
    gasUsed = dep.isSystemTx && !regolith ? 0n : dep.gas;
  } else {
    const used = intrinsic + execGasUsed;
    const maxRefund = used / 5n; // EIP-3529 quotient (London and later)
    gasUsed = used - (refund < maxRefund ? refund : maxRefund);
    if (gasUsed < floor) gasUsed = floor; // EIP-7623 (Isthmus/Prague): data-heavy transactions pay the floor
  }
  const status = failure === undefined && evmError === undefined ? 1 : 0;
  const receipt: Receipt = {
    type: 0x7e,
    status,
    cumulativeGasUsed: gasUsedBefore + gasUsed,
    logsBloom: logsBloom(logs),
    logs,
    depositNonce: regolith ? nonce : undefined,
    depositReceiptVersion: regolith && canyon ? 1n : undefined,
  };
  return {
    receipt,
    encoded,
    txHash: keccak256(encoded),
    type: 0x7e,
    from: dep.from,
    to: dep.to,
    nonce,
    gasUsed,
    // Also when the creation failed, as op-geth's MakeReceipt: the address the sender's nonce gave.
    contractAddress: dep.to === null ? contractAddress ?? createdAddressOf(dep.from, nonce) : undefined,
    logs,
    effectiveGasPrice: 0n,
    error: failure ?? evmError,
  };
}

function clearOriginalStorage(vm: VM): void {
  const sm = vm.evm.stateManager as { originalStorageCache?: { clear(): void } };
  sm.originalStorageCache?.clear();
}

async function credit(vm: VM, address: Uint8Array, amount: bigint): Promise<void> {
  if (amount === 0n) return;
  const a = new Address(address);
  const sm = vm.stateManager;
  markCredit(sm, true);
  try {
    const account = (await sm.getAccount(a)) ?? new Account();
    account.balance += amount;
    await sm.putAccount(a, account);
  } finally {
    markCredit(sm, false);
  }
}

/**
 * Consensus encodings of transactions decoded from bytes (block import, raw pool input): kept so
 * that execution does not re-encode them (`serialize()` re-runs RLP on every call).
 */
const ENCODINGS = new WeakMap<TypedTransaction, Uint8Array>();

/** Records that `tx` was decoded from `raw` (its exact consensus encoding). */
export function rememberEncoding(tx: TypedTransaction, raw: Uint8Array): void {
  ENCODINGS.set(tx, raw);
}

/** The consensus encoding of `tx`, from decoding when known; its hash is cached on the way. */
export function encodingOf(tx: TypedTransaction): Uint8Array {
  let encoded = ENCODINGS.get(tx);
  if (encoded === undefined) {
    encoded = tx.serialize();
    ENCODINGS.set(tx, encoded);
  }
  if (Object.isFrozen(tx) && tx.cache.hash === undefined) {
    (tx.cache as { hash?: Uint8Array }).hash = keccak256(encoded);
  }
  return encoded;
}

/** The same signed transaction on the block's Common, keeping the already recovered sender. */
function rebase(tx: TypedTransaction, rules: ForkRules): TypedTransaction {
  const pub = tx.cache.senderPubKey;
  const out = decodeSignedTx(encodingOf(tx), txCommon(rules.common));
  if (pub !== undefined) (out.cache as { senderPubKey?: Uint8Array }).senderPubKey = pub;
  return out;
}

/**
 * An impersonated account with code may send (anvil turns EIP-3607 off for them; dev mode only,
 * evm/impersonation.ts): its code hash is set aside while the transaction runs, and put back by the
 * function returned. Undefined for every other sender.
 */
async function hideImpersonatedCode(
  vm: VM,
  tx: TypedTransaction,
  sender: Address,
): Promise<(() => Promise<void>) | undefined> {
  if (impersonatedSender(tx) === undefined) return undefined;
  const sm = vm.stateManager;
  const account = await sm.getAccount(sender);
  if (account === undefined || equalBytes(account.codeHash, KECCAK256_NULL)) return undefined;
  const codeHash = account.codeHash;
  account.codeHash = KECCAK256_NULL;
  await sm.putAccount(sender, account);
  return async () => {
    const after = (await sm.getAccount(sender)) ?? new Account();
    after.codeHash = codeHash;
    await sm.putAccount(sender, after);
  };
}

/** Applies a signed user transaction (senders should be recovered already). Throws BaseError when invalid. */
export async function runUserTx(
  vm: VM,
  tx: TypedTransaction,
  ctx: TxContext,
  gasUsedBefore: bigint,
): Promise<TxResult> {
  const isOp = ctx.config.op !== undefined;
  if (isOp && tx.type === 3) {
    throw new BaseError(
      "TX_TYPE_NOT_SUPPORTED",
      "Cannot apply transaction: blob transactions are not supported on L2",
    );
  }
  if (tx.supports(Capability.EIP7702EOACode) && !ctx.rules.common.isActivatedEIP(7702)) {
    throw new BaseError(
      "TX_TYPE_NOT_SUPPORTED",
      `Cannot apply transaction: set-code transactions are not supported before ${
        isOp ? "Isthmus" : "Prague"
      }`,
    );
  }
  if (tx.common.hardfork() !== ctx.rules.common.hardfork()) {
    // A transaction decoded under another fork (e.g. pooled before an activation) runs under this
    // block's rules: intrinsic gas, the calldata floor and the opcodes follow tx.common in @ethereumjs.
    try {
      tx = rebase(tx, ctx.rules);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      throw new BaseError("INVALID_TX", `Cannot apply transaction: ${msg}`, { cause: e });
    }
  }
  const sender = tx.getSenderAddress();
  const encoded = encodingOf(tx);
  let l1Fee: L1FeeInfo | undefined;
  let opFeeMax = 0n;
  let source: L1FeeSource | undefined;
  if (isOp && ctx.l1Fees !== undefined) {
    source = await ctx.l1Fees();
    l1Fee = source.l1Fee(encoded);
    opFeeMax = source.operatorFee(tx.gasLimit);
    const footprint = l1Fee.blobGasUsed;
    if (footprint !== undefined && ctx.daFootprintRoom !== undefined && footprint > ctx.daFootprintRoom()) {
      throw new BaseError(
        "GAS_LIMIT_REACHED",
        "Cannot apply transaction: DA footprint exceeds the block gas limit",
      );
    }
  }
  const upfrontL1 = (l1Fee?.l1Fee ?? 0n) + opFeeMax;
  const feeCap = "maxFeePerGas" in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice;
  const free = ctx.noBaseFee === true && feeCap === 0n &&
    (!("maxPriorityFeePerGas" in tx) || tx.maxPriorityFeePerGas === 0n);
  const baseFee = free ? 0n : ctx.baseFee;
  const block = free ? ctx.zeroBaseFeeBlock?.() ?? ctx.block : ctx.block;
  const sm = vm.stateManager;
  if (upfrontL1 > 0n) {
    // op-geth buyGas: balance >= gasLimit * gasFeeCap + value + l1Cost (+ operator fee from Isthmus).
    const account = (await sm.getAccount(sender)) ?? new Account();
    const want = tx.gasLimit * feeCap + tx.value + upfrontL1;
    if (account.balance < want) {
      throw new BaseError(
        "INSUFFICIENT_FUNDS",
        `insufficient funds for gas * price + value: address ${sender} have ${account.balance} want ${want}`,
      );
    }
    account.balance -= upfrontL1;
    await sm.putAccount(sender, account);
  }
  let result: Pick<RunTxResult, "totalGasSpent" | "execResult" | "createdAddress" | "blobGasUsed"> & {
    bloom?: RunTxResult["bloom"];
  };
  const restoreCode = await hideImpersonatedCode(vm, tx, sender);
  try {
    const plain = ctx.plainTransfers === true
      ? await applyPlainTransfer(vm, tx, ctx.block.header.coinbase, baseFee)
      : undefined;
    const call = ctx.plainTransfers === true && plain === undefined
      ? await applyContractCall(vm, tx, ctx.block, baseFee, ctx.wholeBlock !== true)
      : undefined;
    // runTx (and applyContractCall) revert their own changes when they throw; the L1 fee taken above
    // is given back by hand (cheaper than one more state checkpoint per transaction).
    if (ctx.fastOnly === true && plain === undefined && call === undefined) {
      throw new BaseError("TX_NOT_FAST", "the transaction needs the full EVM path");
    }
    result = plain !== undefined
      ? { totalGasSpent: plain.totalGasSpent, execResult: NO_EXECUTION }
      : call ?? await runTx(vm, {
        tx,
        block,
        skipHardForkValidation: true,
        skipBlockGasLimitValidation: true,
      });
  } catch (e) {
    if (upfrontL1 > 0n) {
      const account = (await sm.getAccount(sender))!;
      account.balance += upfrontL1;
      await sm.putAccount(sender, account);
    }
    const msg = e instanceof Error ? e.message : String(e);
    throw new BaseError("INVALID_TX", `Cannot apply transaction ${bytesToHex(tx.hash())}: ${msg}`, {
      cause: e,
    });
  } finally {
    await restoreCode?.();
  }
  const gasUsed = result.totalGasSpent;
  if (isOp) {
    await credit(vm, BASE_FEE_VAULT_ADDRESS, baseFee * gasUsed);
    await credit(vm, L1_FEE_VAULT_ADDRESS, l1Fee?.l1Fee ?? 0n);
    if (source !== undefined && opFeeMax > 0n) {
      const opFee = source.operatorFee(gasUsed);
      await credit(vm, OPERATOR_FEE_VAULT_ADDRESS, opFee);
      await credit(vm, sender.bytes, opFeeMax - opFee);
    }
  }
  const logs = toLogs(result.execResult.logs as [Uint8Array, Uint8Array[], Uint8Array][] | undefined);
  const status = result.execResult.exceptionError === undefined ? 1 : 0;
  const effectiveGasPrice = "maxFeePerGas" in tx
    ? baseFee + tx.getEffectivePriorityFee(baseFee)
    : (tx as { gasPrice: bigint }).gasPrice;
  return {
    receipt: {
      type: tx.type,
      status,
      cumulativeGasUsed: gasUsedBefore + gasUsed,
      // runTx already computed the bloom of these logs.
      logsBloom: result.bloom?.bitvector ?? logsBloom(logs),
      logs,
    },
    encoded,
    txHash: tx.hash(),
    type: tx.type,
    from: sender.bytes,
    to: tx.to?.bytes ?? null,
    nonce: tx.nonce,
    gasUsed,
    // Also when the creation failed (geth MakeReceipt: CreateAddress(origin, tx nonce) for every create).
    contractAddress: tx.to === undefined
      ? result.createdAddress?.bytes ?? createdAddressOf(sender.bytes, tx.nonce)
      : undefined,
    logs,
    effectiveGasPrice,
    l1Fee,
    blobGasUsed: result.blobGasUsed,
    error: result.execResult.exceptionError?.error,
    returnData: result.execResult.returnValue,
  };
}
