/**
 * Block import with full validation: header fields that follow from the parent and the fork
 * (specs/protocol/exec-engine.md, each fork's exec-engine.md "Header Validity Rules"), then
 * re-execution and comparison of everything execution produces. The state is committed only when
 * every field matches; otherwise it returns to the parent's and the error names the first field.
 *
 * OP chains take the gas limit from the payload attributes (SystemConfig), so the L1 1/1024 bound does
 * not apply (op-geth consensus/misc/eip1559 VerifyEIP1559Header); plain chains keep it.
 */
import { Hardfork } from "@ethereumjs/common";
import { bytesToHex, equalBytes } from "../../common/bytes.ts";
import { BaseError, isErrorCode } from "../../common/errors.ts";
import {
  type Block,
  EMPTY_OMMERS_HASH,
  EMPTY_REQUESTS_HASH,
  EMPTY_TRIE_ROOT,
  hashHeader,
  type Header,
} from "../../protocol/block.ts";
import type { ChainConfig } from "../../protocol/chain_config.ts";
import type { TypedTransaction } from "@ethereumjs/tx";
import { BlockBuilder, type BlockBuilderDeps, type BuilderTx, type SealedBlock } from "./block_builder.ts";
import { sharedSenderCache } from "./sender_cache.ts";
import { knownSenderAddress } from "./sender_address.ts";
import { mergeSpeculated, type SpeculationResponse, type SpeculationTask } from "./speculation.ts";
import { OPERATOR_FEE_VAULT_ADDRESS } from "../../protocol/predeploys.ts";
import { forkRules, opActive } from "./common.ts";
import { checkExtraData, expectedBlobFields, nextBlockBaseFee } from "./header_rules.ts";

const MAX_GAS_LIMIT = (1n << 63n) - 1n;
/** Accounts named to the state-root worker at a time while a block decodes (the first as soon as possible). */
const PREFETCH_CHUNK = 256;
const MIN_GAS_LIMIT = 5000n;

type Value = bigint | Uint8Array | undefined;

function show(v: Value): string {
  if (v === undefined) return "none";
  return typeof v === "bigint" ? v.toString() : bytesToHex(v);
}

function same(a: Value, b: Value): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (typeof a === "bigint" || typeof b === "bigint") return a === b;
  return equalBytes(a, b);
}

function invalid(number: bigint, field: string, message: string, cause?: unknown): BaseError {
  return new BaseError("INVALID_BLOCK", `Cannot import block ${number}: ${message}`, {
    meta: { field },
    cause,
  });
}

function expect(number: bigint, field: string, got: Value, want: Value): void {
  if (!same(got, want)) {
    throw invalid(number, field, `${field} mismatch, got ${show(got)} want ${show(want)}`);
  }
}

/** The header checks that need no execution. Throws BaseError INVALID_BLOCK naming the field. */
export function validateHeaderStatic(config: ChainConfig, parent: Header, h: Header): void {
  const n = h.number;
  expect(n, "parentHash", h.parentHash, hashHeader(parent));
  expect(n, "number", h.number, parent.number + 1n);
  if (h.timestamp <= parent.timestamp) {
    throw invalid(n, "timestamp", `timestamp ${h.timestamp} is not after the parent's ${parent.timestamp}`);
  }
  expect(n, "ommersHash", h.ommersHash, EMPTY_OMMERS_HASH);
  expect(n, "difficulty", h.difficulty, 0n);
  expect(n, "nonce", h.nonce, new Uint8Array(8));
  if (h.gasLimit > MAX_GAS_LIMIT) {
    throw invalid(n, "gasLimit", `gasLimit ${h.gasLimit} above ${MAX_GAS_LIMIT}`);
  }
  if (h.gasUsed > h.gasLimit) {
    throw invalid(n, "gasUsed", `gasUsed ${h.gasUsed} above gasLimit ${h.gasLimit}`);
  }
  if (config.op === undefined) {
    const limit = parent.gasLimit / 1024n;
    const diff = h.gasLimit > parent.gasLimit ? h.gasLimit - parent.gasLimit : parent.gasLimit - h.gasLimit;
    if (diff >= limit || h.gasLimit < MIN_GAS_LIMIT) {
      throw invalid(n, "gasLimit", `gasLimit ${h.gasLimit} out of bounds for parent ${parent.gasLimit}`);
    }
  }
  try {
    checkExtraData(config, h.timestamp, h.extraData);
  } catch (e) {
    throw invalid(n, "extraData", (e as Error).message, e);
  }
  let baseFee: bigint;
  try {
    baseFee = nextBlockBaseFee(config, parent, h.timestamp);
  } catch (e) {
    throw invalid(n, "baseFeePerGas", (e as Error).message, e);
  }
  expect(n, "baseFeePerGas", h.baseFeePerGas, baseFee);
  const common = forkRules(config, h.timestamp).common;
  const shanghai = common.gteHardfork(Hardfork.Shanghai);
  const cancun = common.gteHardfork(Hardfork.Cancun);
  const prague = common.gteHardfork(Hardfork.Prague);
  if (!shanghai) expect(n, "withdrawalsRoot", h.withdrawalsRoot, undefined);
  else if (!opActive(config, "isthmus", h.timestamp)) {
    expect(n, "withdrawalsRoot", h.withdrawalsRoot, EMPTY_TRIE_ROOT);
  } else if (h.withdrawalsRoot?.length !== 32) {
    throw invalid(n, "withdrawalsRoot", "withdrawalsRoot must be 32 bytes");
  }
  if (!cancun) {
    expect(n, "blobGasUsed", h.blobGasUsed, undefined);
    expect(n, "excessBlobGas", h.excessBlobGas, undefined);
    expect(n, "parentBeaconBlockRoot", h.parentBeaconBlockRoot, undefined);
  } else {
    expect(
      n,
      "excessBlobGas",
      h.excessBlobGas,
      expectedBlobFields(config, parent, h.timestamp).excessBlobGas,
    );
    if (h.blobGasUsed === undefined) throw invalid(n, "blobGasUsed", "blobGasUsed is missing");
    if (config.op !== undefined && !opActive(config, "jovian", h.timestamp)) {
      expect(n, "blobGasUsed", h.blobGasUsed, 0n);
    }
    if (h.parentBeaconBlockRoot?.length !== 32) {
      throw invalid(n, "parentBeaconBlockRoot", "parentBeaconBlockRoot must be 32 bytes");
    }
  }
  if (!prague) expect(n, "requestsHash", h.requestsHash, undefined);
  else if (config.op !== undefined) expect(n, "requestsHash", h.requestsHash, EMPTY_REQUESTS_HASH);
  else if (h.requestsHash?.length !== 32) {
    // L1: EIP-7685, compared with the recomputed requests after execution.
    throw invalid(n, "requestsHash", "requestsHash must be 32 bytes");
  }
}

/** Milliseconds of an import's phases (ImportOptions.timings), for logs and benchmarks. */
export interface ImportTimings {
  /** Header checks, the block's VM and system calls. */
  open: number;
  /** Transactions decoded and their known senders applied. */
  decode: number;
  /** Transactions executed. */
  execute: number;
  /** Roots and bloom after the last transaction (with a state-root worker: waiting for it). */
  seal: number;
  /** The state committed. */
  commit: number;
}

export interface ImportOptions {
  /** Filled with the phases' milliseconds when given. */
  timings?: ImportTimings;
  /**
   * Recovers a transaction's sender into its cache (e.g. the pool's libsecp256k1 recovery, about twice
   * as fast as @ethereumjs's own); used for senders not in the cache when `blockSenders` is not given.
   */
  recoverSender?: (tx: TypedTransaction) => Promise<void>;
  /**
   * Recovers the senders missing from the cache on two threads while the block executes
   * (txpool/block_senders.ts); takes precedence over `recoverSender`.
   */
  blockSenders?: {
    start(txs: TypedTransaction[]): Promise<{ take(k: number): void; cancel(): void }>;
  };
  /**
   * Executes the block's tail on a second thread while this one executes the head (speculation.ts);
   * used when every sender is known and the state manager is a KeelStateManager over the task's file.
   */
  speculation?: SpeculationTask;
}

/**
 * Blocks whose header's transactionsRoot was computed from their own `transactions` (an Engine API
 * payload: engine/payload.ts payloadToBlock), so that import does not compute the same trie again.
 */
const DERIVED_TRANSACTIONS_ROOTS = new WeakSet<Block>();

/** Records that `block.header.transactionsRoot` is the ordered trie root of `block.transactions`. */
export function noteDerivedTransactionsRoot(block: Block): void {
  DERIVED_TRANSACTIONS_ROOTS.add(block);
}

/**
 * Re-executes `block` on `parent` (the state manager must hold the parent's state) and validates every
 * header field. On success the state is committed and the sealed result returned; on failure the state
 * is back at the parent's and a BaseError INVALID_BLOCK (meta.field) is thrown.
 */
export async function importBlock(
  config: ChainConfig,
  parent: Header,
  block: Block,
  deps: BlockBuilderDeps,
  options: ImportOptions = {},
): Promise<SealedBlock> {
  const speculation = { merged: 0 };
  const before = options.speculation !== undefined ? await deps.stateManager.getStateRoot() : undefined;
  try {
    return await importOnce(config, parent, block, deps, options, speculation);
  } catch (e) {
    if (speculation.merged === 0 || before === undefined || !isErrorCode(e, "INVALID_BLOCK")) throw e;
    // The verdict must not rest on the speculation: the block runs again on this thread alone, on a
    // manager reset to the state it had (an aborted block can leave its flushed changes in the caches).
    options.speculation!.stats.retries++;
    await deps.stateManager.setStateRoot(before, true);
    return await importOnce(config, parent, block, deps, { ...options, speculation: undefined }, speculation);
  }
}

async function importOnce(
  config: ChainConfig,
  parent: Header,
  block: Block,
  deps: BlockBuilderDeps,
  options: ImportOptions,
  speculation: { merged: number },
): Promise<SealedBlock> {
  const h = block.header;
  const n = h.number;
  let mark = performance.now();
  const phase = (name: keyof ImportTimings) => {
    const now = performance.now();
    if (options.timings !== undefined) options.timings[name] = now - mark;
    mark = now;
  };
  validateHeaderStatic(config, parent, h);
  const shanghai = forkRules(config, h.timestamp).common.gteHardfork(Hardfork.Shanghai);
  if (shanghai && (block.withdrawals === undefined || block.withdrawals.length !== 0)) {
    throw invalid(n, "withdrawals", "the withdrawals list must be empty");
  }
  if (!shanghai && block.withdrawals !== undefined) {
    throw invalid(n, "withdrawals", "withdrawals before Shanghai");
  }
  // A failing transaction fails the block: its state is dropped whole (abort), so the calls need no
  // checkpoint of their own.
  const builder = await BlockBuilder.openWithHeader(config, parent, h, {
    ...deps,
    wholeBlock: true,
    keepRootDeltas: options.speculation !== undefined,
  });
  phase("open");
  let sealed: SealedBlock;
  let cancelSenders = () => {};
  try {
    // Senders seen before (built here, or recovered by the pool) come from the cache; the others are
    // recovered as the transactions execute (by this thread and a helper with `blockSenders`).
    const senders = deps.senderCache ?? sharedSenderCache;
    const unknown: number[] = [];
    const txs: BuilderTx[] = [];
    // The accounts the transactions change, named to the state-root worker in chunks as decoding goes.
    let touched: Uint8Array[] = builder.feeRecipients();
    for (let i = 0; i < block.transactions.length; i++) {
      let t: BuilderTx;
      try {
        t = builder.decodeTransaction(block.transactions[i]);
      } catch (e) {
        throw invalid(n, "transactions", `transaction ${i} is invalid: ${(e as Error).message}`, e);
      }
      txs.push(t);
      if ("sourceHash" in t) {
        touched.push(t.from);
        if (t.to !== null) touched.push(t.to);
      } else {
        if (senders.apply(t, block.transactions[i])) touched.push(t.getSenderAddress().bytes);
        else unknown.push(i);
        if (t.to !== undefined) touched.push(t.to.bytes);
      }
      if (touched.length >= PREFETCH_CHUNK) {
        builder.prefetch(touched);
        touched = [];
      }
    }
    builder.prefetch(touched);
    // Per transaction with an unknown sender: what to await before executing it.
    const ready = new Map<number, () => void | Promise<void>>();
    if (options.blockSenders !== undefined && unknown.length > 0) {
      const job = await options.blockSenders.start(unknown.map((i) => txs[i] as TypedTransaction));
      cancelSenders = () => job.cancel();
      unknown.forEach((i, k) => ready.set(i, () => job.take(k)));
    } else if (options.recoverSender !== undefined) {
      // A failure leaves the cache empty: executing the transaction then reports @ethereumjs's error.
      for (const i of unknown) {
        const done = options.recoverSender(txs[i] as TypedTransaction);
        ready.set(i, () => done);
      }
    }
    // The tail on the speculation worker when every sender is known (speculation.ts).
    const tail = unknown.length === 0
      ? speculate(config, parent, block, builder, txs, options.speculation)
      : undefined;
    phase("decode");
    const run = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        try {
          await ready.get(i)?.();
          await builder.addTransaction(txs[i]);
        } catch (e) {
          throw invalid(n, "transactions", `transaction ${i} is invalid: ${(e as Error).message}`, e);
        }
      }
    };
    if (tail === undefined) await run(0, txs.length);
    else {
      await run(0, tail.start);
      const t0 = performance.now();
      const answer = await tail.answer;
      const stats = options.speculation!.stats;
      stats.waitMs += performance.now() - t0;
      if (answer.kind !== "result") await run(tail.start, txs.length);
      else {
        stats.workerMs += answer.ms;
        if (answer.warm) stats.warm++;
        stats.skipped += answer.skipped;
        for (let j = 0; j < answer.txs.length; j++) {
          const i = tail.start + j;
          const tx = txs[i] as TypedTransaction;
          if (await mergeSpeculated(builder, deps.stateManager, tx, answer.txs[j])) {
            stats.merged++;
            speculation.merged++;
          } else {
            if (answer.txs[j] !== null) stats.conflicts++;
            await run(i, i + 1);
          }
        }
        // A run the worker broke off (its deposits or a decoding failed) answers fewer: the rest runs here.
        await run(tail.start + answer.txs.length, txs.length);
      }
    }
    phase("execute");
    try {
      // Each transaction applied is the block's own bytes, so a root derived from them is the one
      // executing would compute.
      sealed = await builder.finish(
        DERIVED_TRANSACTIONS_ROOTS.has(block) ? { transactionsRoot: h.transactionsRoot } : {},
      );
    } catch (e) {
      // EIP-7002/EIP-7251: a system contract without code or a failing system call invalidates the block.
      throw invalid(n, "requests", (e as Error).message, e);
    }
    const got = sealed.block.header;
    expect(n, "gasUsed", h.gasUsed, got.gasUsed);
    expect(n, "transactionsRoot", h.transactionsRoot, got.transactionsRoot);
    expect(n, "receiptsRoot", h.receiptsRoot, got.receiptsRoot);
    expect(n, "logsBloom", h.logsBloom, got.logsBloom);
    expect(n, "blobGasUsed", h.blobGasUsed, got.blobGasUsed);
    expect(n, "withdrawalsRoot", h.withdrawalsRoot, got.withdrawalsRoot);
    expect(n, "requestsHash", h.requestsHash, got.requestsHash);
    expect(n, "stateRoot", h.stateRoot, got.stateRoot);
    phase("seal");
  } catch (e) {
    cancelSenders();
    await builder.abort();
    throw e;
  }
  await builder.commit();
  options.speculation?.advance(parent.stateRoot, h.stateRoot, builder.rootChanges);
  phase("commit");
  return { ...sealed, block, hash: hashHeader(h) };
}

/**
 * Sends the block's tail to the speculation worker: the last `share` of its user transactions, when
 * the deposits all come first and the block has enough of them. Returns where the tail starts.
 */
function speculate(
  config: ChainConfig,
  parent: Header,
  block: Block,
  builder: BlockBuilder,
  txs: BuilderTx[],
  task: SpeculationTask | undefined,
): { start: number; answer: Promise<SpeculationResponse> } | undefined {
  if (task === undefined || task.closed) return undefined;
  let deposits = 0;
  while (deposits < txs.length && isDepositTx(txs[deposits])) deposits++;
  const users = txs.length - deposits;
  if (users < task.options.minTxs) return undefined;
  for (let i = deposits; i < txs.length; i++) if (isDepositTx(txs[i])) return undefined;
  const start = txs.length - Math.floor(users * task.options.share);
  const senders: { pub: Uint8Array; address: Uint8Array }[] = [];
  for (let i = start; i < txs.length; i++) {
    const tx = txs[i] as TypedTransaction;
    const pub = tx.cache.senderPubKey;
    if (pub === undefined) return undefined;
    senders.push({ pub, address: (knownSenderAddress(tx) ?? tx.getSenderAddress()).bytes });
  }
  const creditOnly = builder.feeRecipients();
  if (config.op !== undefined) creditOnly.push(OPERATOR_FEE_VAULT_ADDRESS);
  const answer = task.run({
    parent,
    header: block.header,
    prefix: block.transactions.slice(0, deposits),
    start,
    txs: block.transactions.slice(start),
    senders,
    creditOnly,
  });
  return { start, answer };
}

function isDepositTx(tx: BuilderTx): boolean {
  return !(tx instanceof Uint8Array) && "sourceHash" in tx;
}
