/**
 * eth_simulateV1 (ethereum/execution-apis src/eth/execute.yaml and docs-api ethsimulatev1-notes; geth
 * internal/ethapi/simulate.go): a sequence of blocks of calls on a block's state, each block on the
 * one before, with block and state overrides, answered as full blocks with per-call results.
 *
 * The blocks are real: keel's BlockBuilder builds them (the fork's rules, fees to the vaults, the
 * system calls before the transactions, every root and hash) on a scratch copy of the state (an
 * OverlayStore over the node's database: nothing is written to it). Each call becomes a transaction
 * with the placeholder signature of impersonated senders (evm/impersonation.ts; registered for the
 * request only): no signature check and contracts may send, as the spec has it in both modes.
 *
 * - Blocks (geth sanitizeChain): the number defaults to the previous + 1 and must increase (-38020);
 *   a gap is filled with empty blocks, returned too; the time defaults to the previous + 12 and must
 *   increase (-38021); at most 256 blocks past the base (-38026). Coinbase and gas limit default to the
 *   previous block's, prevRandao to zero.
 * - validation false (the default, eth_call-like): base fee 0 unless overridden, each call's nonce is
 *   the sender's (the given one is not checked); a call offering no fee is not held to an overridden
 *   base fee and pays nothing (geth NoBaseFee), BASEFEE still answering the block's. validation true: the EIP-1559 base fee, the given
 *   nonce checked (-38010 too low, -38011 too high), fee cap against the base fee (-38012).
 * - Both: intrinsic gas (-38013), balance for gas and value (-38014), the block's gas (-38015); a
 *   call's gas defaults to what the block has left, under rpc.gascap over the whole request.
 * - A call that reverts or fails in the EVM is a result with status 0 and an error (code 3 with the
 *   revert data, or -32015), not an error of the request.
 * - No L1 data fee: the calls are messages without an encoding to charge (op-geth's simulated
 *   messages carry no rollup cost data).
 * - traceTransfers: ETH transfers among the logs as ERC-20 Transfer events of 0xeeee...eeee
 *   (simulate_transfers.ts).
 * - State overrides per block as geth's override.Apply: `movePrecompileToAddress` moves a precompile
 *   (for that block; the old address then runs its code, if any), any override of a precompile's
 *   address removes the precompile there; moving from a non-precompile, onto an address the same
 *   overrides name, or overriding an address a precompile was moved to is an error.
 * - A blobBaseFee override sets what BLOBBASEFEE answers (geth: the block context's BlobBaseFee).
 * - rpc.evmtimeout bounds the whole request (-32016), as geth's.
 *
 * Refused with -32602 rather than ignored: withdrawals in a block override (an OP block has none).
 */
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type LegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { Account, Address, toChecksumAddress } from "@ethereumjs/util";
import { bytesToHex, equalBytes } from "../../common/mod.ts";
import { isErrorCode } from "../../common/errors.ts";
import { authorizationTuple } from "./call_authorizations.ts";
import { OverlayStore } from "../../db/mod.ts";
import type { Header, Log } from "../../protocol/mod.ts";
import { RpcError } from "../../rpc/mod.ts";
import { toStoredReceipts } from "../engine/mod.ts";
import {
  type BlockAttributes,
  BlockBuilder,
  EVM_TIMEOUT,
  forkRules,
  installDeadlineCheck,
  placeholderSignature,
  registerImpersonated,
  txCommon,
  type TxResult,
  unregisterImpersonated,
} from "../evm/mod.ts";
import { createStateManager, KeelStateManager } from "../state/mod.ts";
import type { VM } from "@ethereumjs/vm";
import type { EthContext, ResolvedHeader } from "./backend.ts";
import {
  type AccountOverride,
  applyOverrides,
  type BlockOverrides,
  type CallArgs,
  overridePrecompiles,
  revertReason,
} from "./call_args.ts";
import { formatBlock, formatLog, h, q } from "./format.ts";
import { TransferTracer } from "./simulate_transfers.ts";
import { gethError } from "./debug/evm_errors.ts";

export const MAX_SIMULATE_BLOCKS = 256n;
/** geth simulate.go timestampIncrement: a block without a time is 12 s after the one before. */
export const SIMULATE_TIME_INCREMENT = 12n;

/** eth_simulateV1's error codes (execution-apis execute.yaml). */
export const SIMULATE_ERRORS = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  baseFeeTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimit: -38015,
  blockNumberOrder: -38020,
  blockTimestampOrder: -38021,
  initCodeTooLarge: -38025,
  clientLimit: -38026,
  vmError: -32015,
  timeout: -32016,
  reverted: 3,
} as const;

/** One entry of `blockStateCalls`. */
export interface SimBlock {
  blockOverrides?: BlockOverrides;
  stateOverrides?: AccountOverride[];
  calls: CallArgs[];
}

export interface SimulateOptions {
  validation: boolean;
  returnFullTransactions: boolean;
  traceTransfers: boolean;
}

/** A block to build: its number and time settled, with the input it came from (none for a gap). */
export interface PlannedBlock {
  number: bigint;
  time: bigint;
  input?: SimBlock;
}

/** geth sanitizeChain: numbers and times settled, gaps filled, order and the block limit checked. */
export function planBlocks(base: Header, blocks: readonly SimBlock[]): PlannedBlock[] {
  const out: PlannedBlock[] = [];
  let prevNumber = base.number;
  let prevTime = base.timestamp;
  for (const block of blocks) {
    const number = block.blockOverrides?.number ?? prevNumber + 1n;
    if (number <= prevNumber) {
      throw new RpcError(
        SIMULATE_ERRORS.blockNumberOrder,
        `block numbers must be in order: ${number} <= ${prevNumber}`,
      );
    }
    if (number - base.number > MAX_SIMULATE_BLOCKS) {
      throw new RpcError(SIMULATE_ERRORS.clientLimit, "too many blocks");
    }
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += SIMULATE_TIME_INCREMENT;
      out.push({ number: n, time: prevTime });
    }
    const time = block.blockOverrides?.time ?? prevTime + SIMULATE_TIME_INCREMENT;
    if (time <= prevTime) {
      throw new RpcError(
        SIMULATE_ERRORS.blockTimestampOrder,
        `block timestamps must be in order: ${time} <= ${prevTime}`,
      );
    }
    out.push({ number, time, input: block });
    prevNumber = number;
    prevTime = time;
  }
  return out;
}

const ZERO32 = new Uint8Array(32);
const ZERO_ADDRESS = new Uint8Array(20);
const EMPTY = new Uint8Array(0);

/** geth txValidationError's codes, from keel's error codes and @ethereumjs's messages. */
const TX_ERROR_PATTERNS: [RegExp, number][] = [
  [/maxFeePerGas.*less than.*baseFeePerGas|base ?fee/i, SIMULATE_ERRORS.baseFeeTooLow],
  [/intrinsic|gas limit is too low|floor data gas/i, SIMULATE_ERRORS.intrinsicGas],
  [/insufficient|doesn't have enough funds/i, SIMULATE_ERRORS.insufficientFunds],
  [/initcode|init code/i, SIMULATE_ERRORS.initCodeTooLarge],
];

/** Whether `e` or one of its causes is the EVM deadline's (fast_opcodes.ts installDeadlineCheck). */
function timedOut(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x !== undefined && depth < 8; depth++) {
    if (isErrorCode(x, EVM_TIMEOUT)) return true;
    x = (x as { cause?: unknown } | null)?.cause;
  }
  return false;
}

/** The error of a call that cannot be a transaction of the block (geth txValidationError). */
function txError(i: number, e: unknown): RpcError {
  // @ethereumjs appends the VM's and the transaction's description: " (vm hf=... nonce=... )".
  const full = e instanceof Error ? e.message : String(e);
  const message = full.split(" (vm hf=")[0];
  let code: number = -32000;
  if (isErrorCode(e, "GAS_LIMIT_REACHED")) code = SIMULATE_ERRORS.blockGasLimit;
  else if (isErrorCode(e, "INSUFFICIENT_FUNDS")) code = SIMULATE_ERRORS.insufficientFunds;
  else {
    const nonce = /account has nonce of: (\d+) tx has nonce of: (\d+)/i.exec(message);
    if (nonce !== null) {
      code = BigInt(nonce[2]) < BigInt(nonce[1]) ? SIMULATE_ERRORS.nonceTooLow : SIMULATE_ERRORS.nonceTooHigh;
    } else code = TX_ERROR_PATTERNS.find(([re]) => re.test(message))?.[1] ?? code;
  }
  return new RpcError(code, `call ${i}: ${message}`);
}

/** The transaction a call becomes, with the placeholder signature of `from`. */
function callTransaction(
  args: CallArgs,
  from: Uint8Array,
  nonce: bigint,
  gasLimit: bigint,
  common: ReturnType<typeof txCommon>,
  chainId: bigint,
): TypedTransaction {
  if (args.chainId !== undefined && args.chainId !== chainId) {
    throw RpcError.invalidParams(`chainId does not match node's (have=${args.chainId}, want=${chainId})`);
  }
  if (args.input !== undefined && args.data !== undefined && !equalBytes(args.input, args.data)) {
    throw RpcError.invalidParams(`both "data" and "input" are set and not equal`);
  }
  const fields = {
    nonce,
    gasLimit,
    to: args.to,
    value: args.value ?? 0n,
    data: args.input ?? args.data ?? EMPTY,
  };
  const accessList = (args.accessList ?? []).map((
    e,
  ): [Uint8Array, Uint8Array[]] => [e.address, e.storageKeys]);
  const [v, r, s] = placeholderSignature(from);
  if (args.gasPrice !== undefined) {
    if (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined) {
      throw RpcError.invalidParams("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified");
    }
    if (args.accessList !== undefined) {
      return createAccessList2930Tx({
        ...fields,
        chainId,
        gasPrice: args.gasPrice,
        accessList,
      }, {
        common,
      }).addSignature(v, r, s);
    }
    return (createLegacyTx({ ...fields, gasPrice: args.gasPrice }, { common }) as LegacyTx).addSignature(
      v,
      r,
      s,
      true,
    );
  }
  const maxFeePerGas = args.maxFeePerGas ?? 0n;
  const maxPriorityFeePerGas = args.maxPriorityFeePerGas ?? 0n;
  if (maxPriorityFeePerGas > maxFeePerGas) {
    throw RpcError.invalidParams(
      `maxFeePerGas (${maxFeePerGas}) < maxPriorityFeePerGas (${maxPriorityFeePerGas})`,
    );
  }
  if (args.authorizationList !== undefined) {
    // EIP-7702: a set-code transaction; the builder applies its authorizations as a block does.
    if (args.to === undefined) {
      throw RpcError.invalidParams("EIP-7702 transaction cannot be used to create contract");
    }
    return createEOACode7702Tx({
      ...fields,
      chainId,
      maxFeePerGas,
      maxPriorityFeePerGas,
      accessList,
      authorizationList: args.authorizationList.map(authorizationTuple),
    }, { common }).addSignature(v, r, s);
  }
  return createFeeMarket1559Tx({
    ...fields,
    chainId,
    maxFeePerGas,
    maxPriorityFeePerGas,
    accessList,
  }, { common }).addSignature(v, r, s);
}

/** BASEFEE answers `baseFee()` whatever block a transaction runs in (geth NoBaseFee keeps the header's). */
function answerBaseFee(vm: VM, baseFee: () => bigint): void {
  const table = (vm.evm as unknown as {
    _opcodeMap: { opHandler: (runState: { stack: { push(v: bigint): void } }) => void }[];
  })._opcodeMap;
  const entry = table[0x48];
  if (entry !== undefined) entry.opHandler = (runState) => runState.stack.push(baseFee());
}

/** A call's result (execution-apis CallResultSuccess / CallResultFailure). */
function callResult(r: TxResult, logs: Record<string, unknown>[]): Record<string, unknown> {
  // As geth: a failed call returns no data; what a revert returned is the error's data.
  const out: Record<string, unknown> = {
    returnData: h(r.receipt.status === 1 ? r.returnData ?? EMPTY : EMPTY),
    logs,
    gasUsed: q(r.gasUsed),
    status: r.receipt.status === 1 ? "0x1" : "0x0",
  };
  if (r.receipt.status !== 1) {
    const data = r.returnData ?? EMPTY;
    if (r.error === "revert") {
      const reason = revertReason(data);
      out.error = {
        code: SIMULATE_ERRORS.reverted,
        message: reason === undefined ? "execution reverted" : `execution reverted: ${reason}`,
        data: bytesToHex(data),
      };
    } else {
      // geth: the VM error's own words (result.Err.Error()), e.g. "out of gas".
      out.error = { code: SIMULATE_ERRORS.vmError, message: gethError(r.error ?? "execution failed") };
    }
  }
  return out;
}

/** Runs eth_simulateV1's blocks on the state of `base`; the answer's array of blocks. */
export async function simulateV1(
  ctx: EthContext,
  base: ResolvedHeader,
  blocks: readonly SimBlock[],
  options: SimulateOptions,
): Promise<Record<string, unknown>[]> {
  const backend = ctx.backend;
  const config = backend.config;
  const planned = planBlocks(base.header, blocks);
  const at = await backend.stateAt(base.header);
  if (!(at instanceof KeelStateManager) || at.nodeDb === undefined) {
    throw RpcError.server("eth_simulateV1 needs the node's own state database");
  }
  const sm = await createStateManager(new OverlayStore(at.nodeDb.store), await at.getStateRoot());
  const gasCap = backend.options.gasCap;
  // rpc.evmtimeout over the whole request, as geth's simulator (checked on jumps, as eth_call's).
  const timeoutMs = backend.options.evmTimeoutMs;
  const clock = { deadline: timeoutMs > 0 ? Date.now() + timeoutMs : 0 };
  let gasBudget = gasCap === 0n ? (1n << 64n) - 1n : gasCap;
  /** Hashes of the blocks simulated so far, by number (BLOCKHASH sees them). */
  const simulated = new Map<bigint, Uint8Array>();
  const registered: Uint8Array[] = [];
  const out: Record<string, unknown>[] = [];
  let parent = base.header;
  try {
    for (const plan of planned) {
      const o = plan.input?.blockOverrides;
      const stateOverrides = plan.input?.stateOverrides ?? [];
      await applyOverrides(sm, stateOverrides.map((o) => ({ ...o, movePrecompileTo: undefined })));
      const attrs: BlockAttributes = {
        timestamp: plan.time,
        coinbase: o?.feeRecipient ?? o?.coinbase ?? parent.coinbase,
        prevRandao: o?.prevRandao ?? o?.random ?? ZERO32,
        gasLimit: o?.gasLimit ?? parent.gasLimit,
        parentBeaconBlockRoot: o?.beaconRoot ?? ZERO32,
        eip1559Params: config.op === undefined ? undefined : new Uint8Array(8),
        baseFeePerGas: o?.baseFeePerGas ?? o?.baseFee ?? (options.validation ? undefined : 0n),
      };
      const tracer = options.traceTransfers ? new TransferTracer() : undefined;
      /** The block's base fee, what BASEFEE answers also for a fee-less call run at base fee 0. */
      let baseFee = 0n;
      const builder = await BlockBuilder.open(config, parent, attrs, {
        stateManager: sm,
        getBlockHash: (n) => Promise.resolve(simulated.get(n) ?? backend.chain.getCanonicalHash(n)),
        noL1Fee: true,
        blobBaseFee: o?.blobBaseFee,
        noBaseFee: !options.validation,
        // The tracer needs every message through the EVM's events.
        evmOnly: tracer !== undefined,
        onVm: (vm) => {
          installDeadlineCheck(vm.evm, clock);
          answerBaseFee(vm, () => baseFee);
          overridePrecompiles(vm, stateOverrides);
          tracer?.attach(vm);
        },
      });
      baseFee = builder.header.baseFeePerGas ?? 0n;
      /** Per call its logs as answered (with the transfers when traced). */
      const callLogs: Log[][] = [];
      const common = txCommon(forkRules(config, plan.time).common);
      const calls = plan.input?.calls ?? [];
      try {
        for (let i = 0; i < calls.length; i++) {
          const args = calls[i];
          const from = args.from ?? ZERO_ADDRESS;
          const account = (await sm.getAccount(new Address(from))) ?? new Account();
          const nonce = options.validation ? (args.nonce ?? account.nonce) : account.nonce;
          const left = builder.header.gasLimit - builder.gasUsed;
          const gas = args.gas ?? (left < gasBudget ? left : gasBudget);
          if (gas > left) {
            throw new RpcError(
              SIMULATE_ERRORS.blockGasLimit,
              `block gas limit reached: ${builder.gasUsed} + ${gas} > ${builder.header.gasLimit}`,
            );
          }
          if (gas > gasBudget) {
            throw new RpcError(
              SIMULATE_ERRORS.clientLimit,
              `the request's gas cap of ${gasCap} is exhausted`,
            );
          }
          if (options.validation && nonce !== account.nonce) {
            // geth preCheck: the nonce before the fees (@ethereumjs checks the base fee first).
            const low = nonce < account.nonce;
            throw new RpcError(
              low ? SIMULATE_ERRORS.nonceTooLow : SIMULATE_ERRORS.nonceTooHigh,
              `err: nonce too ${low ? "low" : "high"}: address ${
                toChecksumAddress(bytesToHex(from))
              }, tx: ${nonce} state: ${account.nonce} (supplied gas ${gas})`,
            );
          }
          let tx: TypedTransaction;
          try {
            tx = callTransaction(args, from, nonce, gas, common, config.chainId);
          } catch (e) {
            // @ethereumjs refuses a field out of range (e.g. a nonce of 2^64 - 1, EIP-2681).
            throw e instanceof RpcError ? e : RpcError.invalidParams(`call ${i}: ${(e as Error).message}`);
          }
          registerImpersonated(tx.hash(), from);
          registered.push(tx.hash());
          let result: TxResult;
          tracer?.begin();
          try {
            result = await builder.addTransaction(tx);
          } catch (e) {
            if (timedOut(e)) {
              throw new RpcError(SIMULATE_ERRORS.timeout, `execution aborted (timeout = ${timeoutMs}ms)`);
            }
            throw e instanceof RpcError ? e : txError(i, e);
          }
          callLogs.push(tracer === undefined ? result.logs : tracer.logs(result.logs));
          gasBudget -= result.gasUsed;
        }
      } catch (e) {
        await builder.abort();
        throw e;
      }
      const sealed = await builder.seal();
      const header = sealed.block.header;
      simulated.set(header.number, sealed.hash);
      const receipts = toStoredReceipts(sealed.receipts);
      const block = formatBlock(sealed.block, sealed.hash, options.returnFullTransactions, {
        receipts,
        chainId: config.chainId,
      });
      let logIndex = 0;
      block.calls = sealed.receipts.map((r, i) =>
        callResult(
          r,
          callLogs[i].map((l) =>
            formatLog({
              ...l,
              blockHash: sealed.hash,
              blockNumber: header.number,
              blockTimestamp: header.timestamp,
              transactionHash: r.txHash,
              transactionIndex: i,
              logIndex: logIndex++,
              removed: false,
            })
          ),
        )
      );
      out.push(block);
      parent = header;
    }
  } finally {
    for (const hash of registered) unregisterImpersonated(hash);
  }
  return out;
}
