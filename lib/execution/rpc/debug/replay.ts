/**
 * Re-execution for tracing. To trace transaction N of a block the parent's state is opened, the
 * block's pre-transaction system changes applied (the evm BlockBuilder does them), transactions
 * 0..N-1 run untraced and N runs with the tracer attached, all with the evm package's OP runners
 * (deposits with their mint and no gas purchase, user transactions with the L1 fee), so the trace
 * sees exactly what the block saw. Calls (debug_traceCall, trace_call) run as a message on a
 * block's post-state.
 */
import { Account, Address, createAddressFromString, toChecksumAddress } from "@ethereumjs/util";
import { createVM, type VM } from "@ethereumjs/vm";
import type { EVMResult } from "@ethereumjs/evm";
import { BaseError, bytesToHex, type Hex } from "../../../common/mod.ts";
import {
  BASE_FEE_VAULT_ADDRESS,
  type Block,
  type ChainConfig,
  decodeDepositTx,
  DEPOSIT_TX_TYPE,
  hashHeader,
  type Header,
  L1_FEE_VAULT_ADDRESS,
} from "../../../protocol/mod.ts";
import {
  BlockBuilder,
  calldataFloor,
  calldataGas,
  decodeSignedTx,
  ejsBlockFor,
  type ForkRules,
  forkRules,
  type L1FeeSource,
  loadL1FeeSource,
  opPrecompiles,
  runDeposit,
  runUserTx,
  type TxContext,
  type TxResult,
} from "../../evm/mod.ts";
import type { BlockOverrides } from "../call_args.ts";
import {
  applyAuthorizations,
  type AuthorizationArg,
  PER_EMPTY_ACCOUNT_COST,
} from "../call_authorizations.ts";
import { RpcError } from "../../../rpc/mod.ts";
import { callBlock } from "../call.ts";
import type { TraceBackend } from "./backend.ts";
import {
  type AccountOverride,
  applyOverrides,
  callFees,
  namesNoFee,
  overridePrecompiles,
} from "../call_args.ts";
import {
  attachTracer,
  TIMEOUT_MESSAGE,
  TRACE_TIMEOUT,
  type Tracer,
  type TxInfo,
  type TxOutcome,
} from "./hooks.ts";
import { type AccountState, StateRecorder } from "./state_recorder.ts";

/** What a traced run gives back. */
export interface TracedRun {
  result: TxResult;
  outcome: TxOutcome;
  /** Pre and post state of the touched accounts (when asked for). */
  state?: { pre: Map<Hex, AccountState>; post: Map<Hex, AccountState> };
}

export interface RunOptions {
  tracer?: Tracer;
  /** Record the touched state (prestateTracer, stateDiff). */
  recordState?: boolean;
  /** Trace timeout in ms (0 = none). */
  timeoutMs?: number;
}

/** Clock of the timeout checks (tests may pass their own). */
export type Clock = () => number;

const ZERO32 = new Uint8Array(32);

/** The hash of an ancestor of `header` (BLOCKHASH), walking parent links from the store. */
function ancestorLookup(backend: TraceBackend, header: Header): (n: bigint) => Uint8Array {
  const known = new Map<bigint, Uint8Array>();
  let cursor: Header | undefined = header;
  let cursorHash = hashHeader(header);
  known.set(header.number, cursorHash);
  return (n: bigint) => {
    while (cursor !== undefined && cursor.number > n) {
      const parentHash: Uint8Array = cursor.parentHash;
      known.set(cursor.number - 1n, parentHash);
      cursor = backend.chain.getHeaderByHash(parentHash);
      cursorHash = parentHash;
    }
    return known.get(n) ?? ZERO32;
  };
}

async function makeVm(
  rules: ForkRules,
  sm: StateRecorder,
  blockHash: (n: bigint) => Uint8Array,
): Promise<VM> {
  const blockchain = {
    getBlock: (n: number) => Promise.resolve({ hash: () => blockHash(BigInt(n)) }),
    putBlock: async () => {},
    shallowCopy() {
      return blockchain;
    },
  };
  return await createVM({
    common: rules.common,
    stateManager: sm.proxy,
    blockchain,
    evmOpts: { customPrecompiles: opPrecompiles(rules.opFork, rules.common) },
  });
}

/** Runs `fn` with the tracer attached; turns a timeout into TRACE_TIMEOUT whatever the runner made of it. */
async function traced<T>(
  vm: VM,
  tracer: Tracer | undefined,
  timeoutMs: number,
  clock: Clock,
  fn: () => Promise<T>,
): Promise<{ value: T; output: Uint8Array }> {
  let depth = 0;
  let output: Uint8Array = new Uint8Array();
  const top: Tracer = {
    steps: tracer?.steps ?? false,
    onStep: tracer?.onStep?.bind(tracer),
    onEnter: (msg, op) => {
      depth++;
      tracer?.onEnter?.(msg, op);
    },
    onExit: (res: EVMResult) => {
      if (--depth === 0) output = res.execResult.returnValue;
      tracer?.onExit?.(res);
    },
  };
  const deadline = timeoutMs > 0 ? clock() + timeoutMs : Infinity;
  let timedOut = false;
  const detach = attachTracer(vm.evm, top, deadline, () => {
    const t = clock();
    if (t > deadline) timedOut = true;
    return t;
  });
  try {
    const value = await fn();
    if (timedOut) throw new BaseError(TRACE_TIMEOUT, TIMEOUT_MESSAGE);
    return { value, output };
  } catch (e) {
    if (timedOut) throw new BaseError(TRACE_TIMEOUT, TIMEOUT_MESSAGE, { cause: e });
    throw e;
  } finally {
    detach();
  }
}

/** A block being re-executed on its parent's state, one transaction at a time. */
export class BlockReplay {
  readonly block: Block;
  readonly rules: ForkRules;
  readonly #recorder: StateRecorder;
  readonly #vm: VM;
  readonly #ctx: TxContext;
  readonly #clock: Clock;
  #next = 0;
  #gasUsed = 0n;
  #broken = false;

  private constructor(
    block: Block,
    rules: ForkRules,
    recorder: StateRecorder,
    vm: VM,
    ctx: TxContext,
    clock: Clock,
  ) {
    this.block = block;
    this.rules = rules;
    this.#recorder = recorder;
    this.#vm = vm;
    this.#ctx = ctx;
    this.#clock = clock;
  }

  /** Opens the parent's state and applies the block's pre-transaction changes. */
  static async open(backend: TraceBackend, block: Block, clock: Clock = Date.now): Promise<BlockReplay> {
    const header = block.header;
    const parent = backend.chain.getHeaderByHash(header.parentHash);
    if (parent === undefined) {
      throw new BaseError("TRACE_NO_PARENT", `parent ${bytesToHex(header.parentHash)} not found`);
    }
    const sm = await backend.stateAt(parent);
    // The builder applies the system changes of the block's header (beacon root, history, Canyon code).
    await BlockBuilder.openWithHeader(backend.config, parent, header, { stateManager: sm });
    const rules = forkRules(backend.config, header.timestamp);
    const recorder = new StateRecorder(sm);
    const vm = await makeVm(rules, recorder, ancestorLookup(backend, parent));
    let l1: Promise<L1FeeSource> | undefined;
    const ctx: TxContext = {
      config: backend.config,
      rules,
      block: ejsBlockFor(rules, header),
      timestamp: header.timestamp,
      baseFee: header.baseFeePerGas ?? 0n,
      l1Fees: backend.config.op === undefined
        ? undefined
        : () => (l1 ??= loadL1FeeSource(sm, rules.opFork ?? "bedrock")),
    };
    return new BlockReplay(block, rules, recorder, vm, ctx, clock);
  }

  /** Index of the next transaction to run. */
  get next(): number {
    return this.#next;
  }

  /** Runs transactions up to (excluding) `index` untraced. */
  async skipTo(index: number): Promise<void> {
    while (this.#next < index) await this.run();
  }

  /** Runs the next transaction, traced when options say so. */
  async run(options: RunOptions = {}): Promise<TracedRun> {
    if (this.#broken) throw new BaseError("TRACE_BROKEN", "Cannot continue the replay after a timeout");
    const i = this.#next;
    const raw = this.block.transactions[i];
    if (raw === undefined) throw new BaseError("TRACE_NO_TX", `transaction index ${i} out of range`);
    const vm = this.#vm;
    const rec = this.#recorder;
    let info: TxInfo;
    let exec: () => Promise<TxResult>;
    if (raw[0] === DEPOSIT_TX_TYPE) {
      const dep = decodeDepositTx(raw);
      info = {
        from: dep.from,
        to: dep.to,
        value: dep.value,
        gasLimit: dep.gas,
        input: dep.data,
        gasPrice: 0n,
      };
      exec = () => runDeposit(vm, dep, this.#ctx, this.#gasUsed);
    } else {
      const tx = decodeSignedTx(raw, this.rules.common);
      info = {
        from: tx.getSenderAddress().bytes,
        to: tx.to?.bytes ?? null,
        value: tx.value,
        gasLimit: tx.gasLimit,
        input: tx.data,
        gasPrice: "maxFeePerGas" in tx
          ? (this.#ctx.baseFee + tx.getEffectivePriorityFee(this.#ctx.baseFee))
          : (tx as { gasPrice: bigint }).gasPrice,
      };
      exec = () => runUserTx(vm, tx, this.#ctx, this.#gasUsed);
    }
    if (options.tracer === undefined && !options.recordState && !options.timeoutMs) {
      const result = await exec();
      this.#advance(result);
      return { result, outcome: { gasUsed: result.gasUsed, error: result.error, output: new Uint8Array() } };
    }
    if (options.recordState) {
      // The L1 fee parameters are read outside the recording (they are not the transaction's reads).
      await this.#ctx.l1Fees?.();
      rec.start();
      for (const a of txStartAccounts(this.#ctx.config, info.from, info.to, this.block.header.coinbase)) {
        await rec.touch(new Address(a));
      }
    }
    options.tracer?.onTxStart?.(info);
    try {
      const { value: result, output } = await traced(
        vm,
        options.tracer,
        options.timeoutMs ?? 0,
        this.#clock,
        exec,
      );
      this.#advance(result);
      const outcome: TxOutcome = {
        gasUsed: result.gasUsed,
        error: result.error,
        output,
        contractAddress: result.contractAddress,
      };
      let state: TracedRun["state"];
      if (options.recordState) {
        rec.stop();
        state = { pre: await rec.pre(), post: await rec.post((h) => createAddressFromString(h)) };
      }
      await options.tracer?.onTxEnd?.(outcome);
      return { result, outcome, state };
    } catch (e) {
      this.#broken = true;
      throw e;
    } finally {
      rec.stop();
    }
  }

  #advance(result: TxResult): void {
    this.#gasUsed += result.gasUsed;
    this.#next++;
  }
}

/**
 * The accounts geth's prestate tracer looks up before the transaction runs (OnTxStart): the sender,
 * the recipient, the coinbase and, on OP chains, the L1 and base fee vaults (op-geth).
 */
function txStartAccounts(
  config: ChainConfig,
  from: Uint8Array,
  to: Uint8Array | null,
  coinbase: Uint8Array,
): Uint8Array[] {
  const out = [from, ...(to === null ? [] : [to]), coinbase];
  if (config.op !== undefined) out.push(L1_FEE_VAULT_ADDRESS, BASE_FEE_VAULT_ADDRESS);
  return out;
}

/** A message to trace on a block's post-state (debug_traceCall, trace_call). */
export interface CallMessage {
  from?: Uint8Array;
  to?: Uint8Array | null;
  gas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  /** EIP-7702 authorizations (../call_authorizations.ts). */
  authorizationList?: AuthorizationArg[];
  /** EIP-2930 access list: intrinsic gas and warm addresses and slots, as a transaction's. */
  accessList?: { address: Uint8Array; storageKeys: Uint8Array[] }[];
  /** Fees (geth TransactionArgs): none means no gas is bought and the block's base fee reads 0. */
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
}

async function credit(vm: VM, address: Address, amount: bigint): Promise<void> {
  if (amount === 0n) return;
  const account = (await vm.stateManager.getAccount(address)) ?? new Account();
  account.balance += amount;
  await vm.stateManager.putAccount(address, account);
}

/** geth's intrinsic gas of a call message (no access list): 21000 (+32000 create), 4/16 per byte, initcode words. */
export function intrinsicGas(data: Uint8Array, create: boolean, rules: ForkRules): bigint {
  return (create ? 53000n : 21000n) + calldataGas(data, create && rules.common.gteHardfork("shanghai"));
}

/**
 * Runs `msg` as geth's traceCall does (core.ApplyMessage: with a fee the gas is bought, the unused gas
 * refunded and the tip paid to the coinbase, and on an OP chain the base fee to its vault; without one
 * nothing is bought and BASEFEE reads 0) on the state of `header`, with the tracer attached. Block overrides
 * change the block the call sees, and the fork rules follow an overridden time (geth traceCall:
 * BlockOverrides.Apply, then the rules of the overridden block context).
 */
export async function replayCall(
  backend: TraceBackend,
  header: Header,
  msg: CallMessage,
  options: RunOptions & {
    clock?: Clock;
    stateOverrides?: AccountOverride[];
    blockOverrides?: BlockOverrides;
  },
): Promise<TracedRun> {
  // A call naming no fee buys no gas and sees a zero base fee (geth TraceCall).
  const noFee = namesNoFee(msg);
  const sm = await backend.stateAt(header);
  // Never committed: nothing the call (or an override) writes reaches the database.
  await sm.checkpoint();
  if (options.stateOverrides !== undefined) await applyOverrides(sm, options.stateOverrides);
  const overrides = noFee && header.baseFeePerGas !== undefined
    ? { ...options.blockOverrides, baseFeePerGas: 0n } as BlockOverrides
    : options.blockOverrides;
  const rules = forkRules(backend.config, overrides?.time ?? header.timestamp);
  const recorder = new StateRecorder(sm);
  const vm = await makeVm(rules, recorder, ancestorLookup(backend, header));
  // geth traceCall: StateOverrides.Apply with the active precompiles (moved, or replaced by code).
  if (options.stateOverrides !== undefined) overridePrecompiles(vm, options.stateOverrides);
  const block = overrides === undefined
    ? ejsBlockFor(rules, header)
    : callBlock(header, rules.common, overrides);
  const coinbase = block.header.coinbase.bytes;
  const from = msg.from ?? new Uint8Array(20);
  const to = msg.to ?? null;
  const data = msg.data ?? new Uint8Array();
  const value = msg.value ?? 0n;
  const cap = backend.options.gasCap;
  let gas = msg.gas ?? (cap > 0n ? cap : header.gasLimit);
  if (cap > 0n && gas > cap) gas = cap;
  const auths = msg.authorizationList;
  if (auths !== undefined) {
    // geth state_transition preCheck (set-code transactions).
    if (!rules.common.isActivatedEIP(7702)) throw RpcError.server("transaction type not supported");
    if (to === null) throw RpcError.server("EIP-7702 transaction cannot be used to create contract");
    if (auths.length === 0) throw RpcError.server("EIP-7702 transaction with empty auth list");
  }
  // geth preCheck's fee checks, then buyGas's funds check (before the intrinsic gas, as geth orders them).
  const baseFee = noFee ? 0n : block.header.baseFeePerGas ?? 0n;
  const sender = new Address(from);
  const { feeCap, price } = callFees(
    msg,
    baseFee,
    () => toChecksumAddress(sender.toString()),
    (reason) => new BaseError("TRACE_INVALID_MESSAGE", reason),
  );
  const balance = (await sm.getAccount(sender))?.balance ?? 0n;
  if (balance < gas * feeCap + value) {
    throw new BaseError(
      "TRACE_INVALID_MESSAGE",
      `insufficient funds for gas * price + value: address ${
        toChecksumAddress(sender.toString())
      } have ${balance} want ${gas * feeCap + value}`,
    );
  }
  const accessList = msg.accessList ?? [];
  let intrinsic = intrinsicGas(data, to === null, rules) +
    PER_EMPTY_ACCOUNT_COST * BigInt(auths?.length ?? 0);
  for (const e of accessList) intrinsic += 2400n + 1900n * BigInt(e.storageKeys.length);
  if (gas < intrinsic) {
    throw new BaseError("TRACE_INTRINSIC_GAS", `intrinsic gas too low: have ${gas}, want ${intrinsic}`);
  }
  if (rules.common.isActivatedEIP(7623) && gas < calldataFloor(data)) {
    throw new BaseError(
      "TRACE_INTRINSIC_GAS",
      `insufficient gas for floor data gas cost: have ${gas}, want ${calldataFloor(data)}`,
    );
  }
  const info: TxInfo = { from, to, value, gasLimit: gas, input: data, gasPrice: price };
  if (options.recordState) {
    recorder.start();
    for (const a of txStartAccounts(backend.config, from, to, coinbase)) await recorder.touch(new Address(a));
  }
  options.tracer?.onTxStart?.(info);
  let authRefund = 0n;
  const exec = async () => {
    await vm.evm.journal.cleanup();
    for (const [a] of vm.evm.precompiles.entries()) vm.evm.journal.addAlwaysWarmAddress(a);
    for (const a of [from, to, rules.common.isActivatedEIP(3651) ? coinbase : null]) {
      if (a !== null) vm.evm.journal.addAlwaysWarmAddress(new Address(a).toString());
    }
    for (const e of accessList) {
      const a = bytesToHex(e.address).slice(2);
      vm.evm.journal.addAlwaysWarmAddress(a, true);
      for (const k of e.storageKeys) vm.evm.journal.addAlwaysWarmSlot(a, bytesToHex(k).slice(2), true);
    }
    if (price > 0n) {
      // buyGas: the whole gas limit, at the effective price.
      const account = (await vm.stateManager.getAccount(sender)) ?? new Account();
      account.balance -= gas * price;
      await vm.stateManager.putAccount(sender, account);
    }
    if (auths !== undefined) {
      // The sender's nonce goes up before the authorizations (a self-sponsored one names the next).
      const sender = (await vm.stateManager.getAccount(new Address(from))) ?? new Account();
      sender.nonce++;
      await vm.stateManager.putAccount(new Address(from), sender);
      authRefund = await applyAuthorizations(vm.evm, auths, rules.common.chainId());
    }
    return await vm.evm.runCall({
      skipNonceIncrement: auths !== undefined,
      block,
      caller: new Address(from),
      origin: new Address(from),
      to: to === null ? undefined : new Address(to),
      value,
      data,
      gasLimit: gas - intrinsic,
      gasPrice: price,
    });
  };
  try {
    const { value: res } = await traced(
      vm,
      options.tracer,
      options.timeoutMs ?? 0,
      options.clock ?? Date.now,
      exec,
    );
    const used = intrinsic + res.execResult.executionGasUsed;
    const own = res.execResult.exceptionError === undefined ? res.execResult.gasRefund ?? 0n : 0n;
    const refund = own + authRefund;
    const maxRefund = used / 5n;
    let gasUsed = used - (refund < maxRefund ? refund : maxRefund);
    // EIP-7623 (Prague, Isthmus): a call pays at least its calldata floor (geth ApplyMessage).
    if (rules.common.isActivatedEIP(7623)) {
      const floor = calldataFloor(data);
      if (gasUsed < floor) gasUsed = floor;
    }
    if (price > 0n) {
      // The unused gas back to the sender; the tip to the coinbase; on an OP chain the base fee to
      // its vault (op-geth: not burned).
      await credit(vm, sender, (gas - gasUsed) * price);
      await credit(vm, new Address(coinbase), (price - baseFee) * gasUsed);
      if (backend.config.op !== undefined) {
        await credit(vm, new Address(BASE_FEE_VAULT_ADDRESS), baseFee * gasUsed);
      }
    }
    const error = res.execResult.exceptionError?.error;
    const outcome: TxOutcome = {
      gasUsed,
      error,
      output: res.execResult.returnValue,
      contractAddress: error === undefined ? res.createdAddress?.bytes : undefined,
    };
    let state: TracedRun["state"];
    if (options.recordState) {
      recorder.stop();
      state = { pre: await recorder.pre(), post: await recorder.post((h) => createAddressFromString(h)) };
    }
    await options.tracer?.onTxEnd?.(outcome);
    const result: TxResult = {
      receipt: {
        type: 0,
        status: error === undefined ? 1 : 0,
        cumulativeGasUsed: gasUsed,
        logsBloom: new Uint8Array(256),
        logs: [],
      },
      encoded: new Uint8Array(),
      txHash: new Uint8Array(32),
      type: 0,
      from,
      to,
      nonce: 0n,
      gasUsed,
      contractAddress: outcome.contractAddress,
      logs: [],
      effectiveGasPrice: 0n,
      error,
    };
    return { result, outcome, state };
  } finally {
    recorder.stop();
  }
}
