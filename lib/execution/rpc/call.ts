/**
 * The execution side of message calls for eth_call, eth_estimateGas and eth_createAccessList (geth
 * internal/ethapi DoCall, eth/gasestimator): the call runs as the `from` account with geth's
 * intrinsic gas, EIP-2929 warm set, refund cap and EIP-7623 floor (no nonce check, no signature),
 * in a state checkpoint that is always reverted. With no fee fields the base fee reads as 0 (geth
 * NoBaseFee). State overrides and block overrides (./call_args.ts) apply for the call only. Only
 * L2 execution gas is counted: the L1 data fee is not part of the estimate (specs: eth_estimateGas
 * is L2 gas only).
 */
import { type Block as EjsBlock, createBlock } from "@ethereumjs/block";
import type { EVMResult } from "@ethereumjs/evm";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, Address, toChecksumAddress } from "@ethereumjs/util";
import { createVM, type VM } from "@ethereumjs/vm";
import { bytesToHex } from "../../common/mod.ts";
import type { Header } from "../../protocol/mod.ts";
import { RpcError } from "../../rpc/mod.ts";
import {
  calldataFloor,
  calldataGas,
  ejsBlockWith,
  fastEipLookup,
  forkRules,
  installDeadlineCheck,
  installFastOpcodes,
  opPrecompiles,
  shareEmptyWarmSlotSets,
  warmAddressTemplate,
} from "../evm/mod.ts";
import type { EthContext } from "./backend.ts";
import {
  type AccountOverride,
  applyOverrides,
  type BlockOverrides,
  type CallArgs,
  callError,
  callFees,
  type CallResult,
  namesNoFee,
  overridePrecompiles,
} from "./call_args.ts";
import { applyAuthorizations, PER_EMPTY_ACCOUNT_COST } from "./call_authorizations.ts";
import { gethError, invalidOpcodeError } from "./debug/evm_errors.ts";
import { OverlayState } from "./overlay_state.ts";

const ZERO_ADDRESS = new Address(new Uint8Array(20));

/**
 * A message the state transition refuses before running it (geth core errors from preCheck, buyGas and
 * the intrinsic-gas checks). Its message is eth_call's wrapping, "err: <reason> (supplied gas N)" (geth
 * applyMessageWithEVM); eth_estimateGas and eth_createAccessList wrap `reason` their own way.
 */
export class InvalidCallError extends RpcError {
  readonly reason: string;
  readonly gas: bigint;

  constructor(reason: string, gas: bigint) {
    super(-32000, `err: ${reason} (supplied gas ${gas})`);
    this.reason = reason;
    this.gas = gas;
  }
}
const EMPTY = new Uint8Array();

/** EVMs of call environments: their jump-destination analyses are cached (see patchJumpAnalysis). */
const CALL_EVMS = new WeakSet<object>();
const JUMP_ANALYSES = new WeakMap<object, WeakMap<Uint8Array, unknown>>();
let jumpAnalysisPatched = false;

type Analyse = (this: { _evm: object }, code: Uint8Array) => unknown;

/**
 * Caches @ethereumjs's jump-destination analysis per EVM and code object for the EVMs of call
 * environments, as geth keeps its analysis per code hash: eth_call repeats the same contract at the
 * same state, and re-analysing its code was about a tenth of a balanceOf call. The analysis (valid
 * JUMPDESTs, PUSH values, opcode table entries) is read-only to the interpreter and depends only on
 * the code and the EVM's opcode table. The Interpreter class is not exported: its prototype is taken
 * from the first run's interpreter (`runState.interpreter`). Other EVMs keep the original path.
 */
function patchJumpAnalysis(interpreter: unknown): void {
  if (jumpAnalysisPatched || typeof interpreter !== "object" || interpreter === null) return;
  jumpAnalysisPatched = true;
  const proto = Object.getPrototypeOf(interpreter) as { _getValidJumpDestinations?: Analyse };
  const original = proto._getValidJumpDestinations;
  if (typeof original !== "function") return;
  proto._getValidJumpDestinations = function (code) {
    if (!CALL_EVMS.has(this._evm)) return original.call(this, code);
    let perEvm = JUMP_ANALYSES.get(this._evm);
    if (perEvm === undefined) JUMP_ANALYSES.set(this._evm, perEvm = new WeakMap());
    let analysis = perEvm.get(code);
    if (analysis === undefined) perEvm.set(code, analysis = original.call(this, code));
    return analysis;
  };
}

type Common = ReturnType<typeof forkRules>["common"];
const CALL_COMMONS = new WeakMap<Common, Common>();

/** A copy of the fork's Common for call VMs (with the Set-backed isActivatedEIP of evm/common.ts). */
function callCommon(common: Common): Common {
  let copy = CALL_COMMONS.get(common);
  if (copy === undefined) {
    copy = common.copy();
    fastEipLookup(copy);
    CALL_COMMONS.set(common, copy);
  }
  return copy;
}

/**
 * The block a call runs in: `header` with geth's block overrides (number, time, gasLimit,
 * feeRecipient/coinbase, prevRandao/random, baseFee, blobBaseFee, beaconRoot) applied. A blob base fee
 * override replaces the header's BLOBBASEFEE answer (geth BlockOverrides.BlobBaseFee sets the
 * block context's BlobBaseFee).
 */
export function callBlock(header: Header, common: Common, overrides?: BlockOverrides): EjsBlock {
  // A copy of the Common's template header (ejs_block.ts): the constructor's parameter merge was
  // ~0.6 ms of each eth_sendTransaction in dev mode (its gas estimate moves the call environment to
  // each new block), measured.
  return ejsBlockWith(common, {
    parentHash: header.parentHash,
    coinbase: overrides?.feeRecipient ?? overrides?.coinbase ?? header.coinbase,
    number: overrides?.number ?? header.number,
    gasLimit: overrides?.gasLimit ?? header.gasLimit,
    timestamp: overrides?.time ?? header.timestamp,
    extraData: header.extraData,
    mixHash: overrides?.prevRandao ?? overrides?.random ?? header.mixHash,
    difficulty: 0n,
    baseFeePerGas: overrides?.baseFeePerGas ?? overrides?.baseFee ?? header.baseFeePerGas,
    withdrawalsRoot: header.withdrawalsRoot,
    blobGasUsed: header.blobGasUsed,
    excessBlobGas: header.excessBlobGas,
    parentBeaconBlockRoot: overrides?.beaconRoot ?? header.parentBeaconBlockRoot,
    requestsHash: header.requestsHash,
  }, overrides?.blobBaseFee);
}

/** One prepared execution environment: a VM on a state manager at a block. */
export class CallEnv {
  header: Header;
  /** The write overlay every execution runs on (state overrides pinned at its bottom). */
  readonly sm: OverlayState;
  readonly vm: VM;
  block: EjsBlock;
  baseFee: bigint;
  /** The Common the VM was made for (one per chain and fork: forkRules). */
  readonly #forkCommon: Common;
  /** Running an execution (withCallEnv): not to be moved to another state meanwhile. */
  busy = false;

  /** The precompile addresses as the journal keys them (hex without 0x). */
  /** The precompiles, always warm (EIP-2929), as the journal's map a call starts from. */
  readonly #precompiles: ReadonlyMap<string, Set<string>>;

  private constructor(header: Header, sm: OverlayState, vm: VM, block: EjsBlock, forkCommon: Common) {
    this.header = header;
    this.sm = sm;
    this.vm = vm;
    this.block = block;
    this.baseFee = block.header.baseFeePerGas ?? 0n;
    this.#forkCommon = forkCommon;
    // The precompiles' (empty) warm-slot sets shared, not ~18 new Sets a call.
    shareEmptyWarmSlotSets(vm.evm.journal);
    this.#precompiles = warmAddressTemplate([...vm.evm.precompiles.keys()]);
  }

  static async create(
    ctx: EthContext,
    header: Header,
    base: MerkleStateManager,
    overrides?: BlockOverrides,
    stateOverrides?: AccountOverride[],
  ): Promise<CallEnv> {
    const sm = new OverlayState(base);
    if (stateOverrides !== undefined) await applyOverrides(sm, stateOverrides);
    const config = ctx.backend.config;
    const timestamp = overrides?.time ?? header.timestamp;
    const rules = forkRules(config, timestamp);
    const common = callCommon(rules.common);
    const chain = ctx.backend.chain;
    const blockchain = {
      getBlock: (n: number) => {
        const hash = chain.getCanonicalHash(BigInt(n)) ?? new Uint8Array(32);
        return Promise.resolve({ hash: () => hash });
      },
      putBlock: () => Promise.resolve(),
      shallowCopy() {
        return blockchain;
      },
    };
    const vm = await createVM({
      common,
      stateManager: sm,
      blockchain,
      evmOpts: { customPrecompiles: opPrecompiles(rules.opFork, common) },
    });
    CALL_EVMS.add(vm.evm);
    installFastOpcodes(vm.evm);
    installDeadlineCheck(vm.evm, sm);
    // geth doCall / DoEstimateGas: override.Apply with the active precompiles (moved, or replaced by code).
    if (stateOverrides !== undefined) overridePrecompiles(vm, stateOverrides);
    const block = callBlock(header, common, overrides);
    sm.reset();
    return new CallEnv(header, sm, vm, block, rules.common);
  }

  /**
   * Moves an environment without overrides to the state `base` at `header`, keeping its VM, when the
   * header's fork is the VM's: a new head needs no new VM (making one, its Common parameters and opcode
   * table, was ~1 ms of each eth_call or eth_sendTransaction after a dev block, measured). False when
   * the fork differs.
   */
  retarget(ctx: EthContext, header: Header, base: MerkleStateManager): boolean {
    const rules = forkRules(ctx.backend.config, header.timestamp);
    if (rules.common !== this.#forkCommon) return false;
    this.sm.rebase(base);
    this.header = header;
    this.block = callBlock(header, callCommon(rules.common));
    this.baseFee = this.block.header.baseFeePerGas ?? 0n;
    this.#noBaseFeeBlock = undefined;
    return true;
  }

  /** A copy of the block with base fee 0 (geth NoBaseFee when the call names no fee). */
  #noBaseFeeBlock?: EjsBlock;
  noBaseFeeBlock(): EjsBlock {
    if (this.#noBaseFeeBlock === undefined) {
      const hd = this.block.header;
      this.#noBaseFeeBlock = createBlock(
        {
          header: {
            parentHash: hd.parentHash,
            coinbase: hd.coinbase,
            number: hd.number,
            gasLimit: hd.gasLimit,
            timestamp: hd.timestamp,
            extraData: hd.extraData,
            mixHash: hd.mixHash,
            difficulty: 0n,
            baseFeePerGas: hd.baseFeePerGas === undefined ? undefined : 0n,
            withdrawalsRoot: hd.withdrawalsRoot,
            blobGasUsed: hd.blobGasUsed,
            excessBlobGas: hd.excessBlobGas,
            parentBeaconBlockRoot: hd.parentBeaconBlockRoot,
            requestsHash: hd.requestsHash,
          },
        },
        { common: this.block.common, skipConsensusFormatValidation: true, freeze: false },
      );
      const fee = this.block.header.getBlobGasPrice;
      if (Object.hasOwn(this.block.header, "getBlobGasPrice")) {
        this.#noBaseFeeBlock.header.getBlobGasPrice = fee;
      }
    }
    return this.#noBaseFeeBlock;
  }

  /**
   * Runs the call with `gas` in a checkpoint that is reverted. Invalid calls (fee below base
   * fee, insufficient funds, intrinsic gas) throw RpcError -32000 with geth's message.
   */
  async execute(args: CallArgs, gas: bigint): Promise<CallResult> {
    const from = args.from === undefined ? ZERO_ADDRESS : new Address(args.from);
    const common = this.vm.common;
    // geth TransactionArgs.CallDefaults: a call names the node's chain or none.
    if (args.chainId !== undefined && args.chainId !== common.chainId()) {
      throw RpcError.server(`chainId does not match node's (have=${args.chainId}, want=${common.chainId()})`);
    }
    // geth TransactionArgs.data(): `input` wins over `data` (only eth_sendTransaction refuses both unequal).
    const data = args.input ?? args.data ?? EMPTY;
    const value = args.value ?? 0n;
    const dynamic = args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined;
    if (args.gasPrice !== undefined && dynamic) {
      throw RpcError.server("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified");
    }
    const noFee = namesNoFee(args);
    const block = noFee ? this.noBaseFeeBlock() : this.block;
    // Named in geth's error messages only: checksummed (a keccak256) when one is made.
    const sender = () => toChecksumAddress(from.toString());
    // geth core.StateTransition.preCheck, in its order; the errors are its, as eth_call wraps them.
    const invalid = (reason: string) => new InvalidCallError(reason, gas);
    const { feeCap, price } = callFees(args, noFee ? 0n : this.baseFee, sender, invalid);
    const create = args.to === undefined;
    const accessList = args.accessList ?? [];
    const auths = args.authorizationList;
    if (auths !== undefined) {
      // geth state_transition preCheck (set-code transactions).
      if (!common.isActivatedEIP(7702)) throw RpcError.server("transaction type not supported");
      if (create) {
        throw invalid(`EIP-7702 transaction cannot be used to create contract (sender ${sender()})`);
      }
      if (auths.length === 0) throw invalid(`EIP-7702 transaction with empty auth list (sender ${sender()})`);
    }
    // Intrinsic gas (geth core.IntrinsicGas) and the EIP-7623 calldata floor, checked after the gas is
    // bought (below).
    let intrinsic = 21000n + calldataGas(data, create && common.isActivatedEIP(3860));
    if (create) intrinsic += 32000n;
    for (const e of accessList) intrinsic += 2400n + 1900n * BigInt(e.storageKeys.length);
    if (auths !== undefined) intrinsic += PER_EMPTY_ACCOUNT_COST * BigInt(auths.length);
    const floor = common.isActivatedEIP(7623) ? calldataFloor(data) : 0n;
    const sm = this.sm;
    const evm = this.vm.evm;
    sm.reset();
    try {
      const account = (await sm.getAccount(from)) ?? new Account();
      const want = gas * feeCap + value;
      if (account.balance < want) {
        throw invalid(
          `insufficient funds for gas * price + value: address ${sender()} have ${account.balance} want ${want}`,
        );
      }
      if (gas < intrinsic) throw invalid(`intrinsic gas too low: have ${gas}, want ${intrinsic}`);
      if (gas < floor) throw invalid(`insufficient gas for floor data gas cost: have ${gas}, want ${floor}`);
      if (price > 0n) {
        account.balance -= gas * price;
        await sm.putAccount(from, account);
      }
      // A fresh journal; the EIP-2929 warm set: precompiles, sender, recipient, coinbase
      // (EIP-3651), the access list.
      evm.journal.cleanJournal();
      (evm.journal as unknown as { alwaysWarmJournal: Map<string, Set<string>> }).alwaysWarmJournal = new Map(
        this.#precompiles,
      );
      evm.journal.addAlwaysWarmAddress(from.toString().slice(2));
      if (args.to !== undefined) evm.journal.addAlwaysWarmAddress(bytesToHex(args.to).slice(2));
      if (common.isActivatedEIP(3651)) {
        evm.journal.addAlwaysWarmAddress(block.header.coinbase.toString().slice(2));
      }
      for (const e of accessList) {
        const a = bytesToHex(e.address).slice(2);
        evm.journal.addAlwaysWarmAddress(a, true);
        for (const k of e.storageKeys) evm.journal.addAlwaysWarmSlot(a, bytesToHex(k).slice(2), true);
      }
      let authRefund = 0n;
      if (auths !== undefined) {
        // The sender's nonce goes up first: a self-sponsored authorization names the one after it.
        const sender = (await sm.getAccount(from)) ?? new Account();
        sender.nonce++;
        await sm.putAccount(from, sender);
        authRefund = await applyAuthorizations(evm, auths, common.chainId());
      }
      const res = await evm.runCall({
        block,
        caller: from,
        origin: from,
        to: args.to === undefined ? undefined : new Address(args.to),
        value,
        data,
        gasLimit: gas - intrinsic,
        gasPrice: price,
        skipNonceIncrement: auths !== undefined,
      });
      const exec = res.execResult;
      if (!jumpAnalysisPatched) {
        patchJumpAnalysis((exec.runState as { interpreter?: unknown } | undefined)?.interpreter);
      }
      let used = intrinsic + exec.executionGasUsed;
      const maxRefund = used / 5n; // EIP-3529
      // A failed call's own refunds are gone with its state; the authorizations' stay (they were
      // earned before it, as geth's refund counter keeps them).
      const earned = (exec.exceptionError === undefined ? exec.gasRefund ?? 0n : 0n) + authRefund;
      const refund = earned < maxRefund ? earned : maxRefund;
      used -= refund;
      if (used < floor) used = floor;
      return {
        returnValue: exec.returnValue,
        gasUsed: used,
        refund,
        error: topFrameError(exec),
      };
    } finally {
      // The journal's EIP-161 cleanup (deleting touched empty accounts) is skipped: the
      // overlay's writes are dropped right after.
      evm.journal.cleanJournal();
      sm.reset();
    }
  }
}

/**
 * The error of the top frame as geth words it where the frame's state tells more than @ethereumjs's
 * message: an invalid opcode is named (geth ErrInvalidOpCode: "invalid opcode: INVALID", "invalid opcode:
 * opcode 0xc not defined"), read from the top frame's code at its program counter.
 */
function topFrameError(exec: EVMResult["execResult"]): string | undefined {
  const error = exec.exceptionError?.error;
  if (error !== "invalid opcode") return error;
  const state = exec.runState as { code?: Uint8Array; programCounter?: number } | undefined;
  const byte = state?.code?.[state.programCounter ?? -1];
  return byte === undefined ? error : invalidOpcodeError(byte);
}

/**
 * eth_estimateGas (geth eth/gasestimator.Estimate): find the smallest gas limit with which the
 * call succeeds. Exact: the result succeeds and one less fails (no error-ratio shortcut).
 */
export async function estimateGas(env: CallEnv, args: CallArgs, gasCap: bigint): Promise<bigint> {
  let hi = args.gas !== undefined && args.gas >= 21000n ? args.gas : env.block.header.gasLimit;
  const feeCap = args.gasPrice ?? args.maxFeePerGas ?? 0n;
  if (feeCap > 0n) {
    const from = args.from === undefined ? ZERO_ADDRESS : new Address(args.from);
    const balance = (await env.sm.getAccount(from))?.balance ?? 0n;
    const value = args.value ?? 0n;
    // geth gasestimator.Estimate: the value must leave something to pay gas with.
    if (value >= balance) throw RpcError.server("insufficient funds for transfer");
    const allowance = (balance - value) / feeCap;
    if (hi > allowance) hi = allowance;
  }
  if (gasCap !== 0n && hi > gasCap) hi = gasCap;
  // A plain transfer to an account without code costs exactly 21000 (not with authorizations: they
  // cost intrinsic gas and may give the recipient code).
  const data = args.input ?? args.data ?? new Uint8Array();
  if (
    args.to !== undefined && data.length === 0 && (args.accessList ?? []).length === 0 &&
    args.authorizationList === undefined
  ) {
    const code = await env.sm.getCode(new Address(args.to));
    // geth tries 21000 and, on any failure, searches as for any call.
    if (code.length === 0 && await tryRun(env, args, 21000n).catch(() => false)) return 21000n;
  }
  let first: CallResult;
  try {
    first = await env.execute(args, hi);
  } catch (e) {
    // geth gasestimator.run: "failed with <gas> gas: <core error>".
    if (e instanceof InvalidCallError) throw RpcError.server(`failed with ${hi} gas: ${e.reason}`);
    throw e;
  }
  if (first.error !== undefined) {
    if (first.error === "revert") throw callError(first);
    if (first.error === "out of gas") throw RpcError.server(`gas required exceeds allowance (${hi})`);
    throw RpcError.server(gethError(first.error));
  }
  let lo = first.gasUsed - 1n;
  const optimistic = (first.gasUsed + first.refund + 2300n) * 64n / 63n;
  if (optimistic < hi) {
    const r = await tryRun(env, args, optimistic);
    if (r) hi = optimistic;
    else lo = optimistic;
  }
  while (lo + 1n < hi) {
    let mid = (hi + lo) / 2n;
    if (mid > lo * 2n) mid = lo * 2n;
    if (await tryRun(env, args, mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

async function tryRun(env: CallEnv, args: CallArgs, gas: bigint): Promise<boolean> {
  try {
    return (await env.execute(args, gas)).error === undefined;
  } catch (e) {
    if (
      e instanceof InvalidCallError &&
      (e.reason.startsWith("intrinsic gas too low") || e.reason.startsWith("insufficient gas for floor"))
    ) {
      return false;
    }
    if (e instanceof InvalidCallError) throw RpcError.server(`failed with ${gas} gas: ${e.reason}`);
    throw e;
  }
}
