/**
 * Fork mode's history (dev_fork.ts): the blocks, transactions, receipts, logs and states before the fork
 * block are the remote's, so the eth methods that ask for them are passed on to the remote as they
 * arrived, as anvil does in fork mode:
 * - a method at a block number below the fork block (eth_getBalance, eth_call, eth_getBlockByNumber, ...);
 * - a method by hash (block, transaction, receipt) the local chain does not know, whose answer is kept
 *   only when it is from the fork block or before (a transaction the remote mined later is not the fork's);
 * - eth_getLogs over blocks up to the fork block: those from the remote (the fork block's logs too: its
 *   transactions are the remote's), the rest from the local chain;
 * - eth_feeHistory of blocks up to the fork block, the same way (anvil answers the remote's up to it);
 * - the traces (debug_*, trace_*) of those blocks and of the remote's transactions up to the fork block.
 * The fork block itself and everything after it are the local chain's.
 */
import { BaseError } from "../common/errors.ts";
import type { JsonRpcClient } from "../common/json_rpc_client.ts";
import { redactUrl } from "../execution/state/mod.ts";
import {
  type AnyMethodDef,
  type MethodContext,
  type Namespace,
  parseParams,
  RawJson,
  RpcError,
} from "../rpc/mod.ts";

export interface ForkHistorySource {
  client: JsonRpcClient;
  /** The fork block: history is what is below it (and its logs). */
  blockNumber: bigint;
  /** The local chain's head number. */
  head(): bigint;
  /** The most blocks eth_feeHistory answers (the local chain's --rpc.feehistory cap). */
  maxFeeHistory: number;
}

/** An eth_feeHistory answer (the optional lists absent when not asked for or not served). */
interface FeeHistory {
  oldestBlock: string;
  baseFeePerGas: string[];
  gasUsedRatio: number[];
  baseFeePerBlobGas?: string[];
  blobGasUsedRatio?: number[];
  reward?: string[][];
}

/**
 * The fee history of `theirs` (the remote's blocks) followed by `ours` (the local blocks after them):
 * the lists joined, the remote's base fee of the block after its last left out for ours (the local
 * chain's first block is that block). A list the remote does not serve is filled with zeros.
 */
export function joinFeeHistory(theirs: FeeHistory, ours: FeeHistory): FeeHistory {
  const n = theirs.gasUsedRatio.length;
  const out: FeeHistory = { ...ours, oldestBlock: theirs.oldestBlock };
  out.baseFeePerGas = [...theirs.baseFeePerGas.slice(0, n), ...ours.baseFeePerGas];
  out.gasUsedRatio = [...theirs.gasUsedRatio, ...ours.gasUsedRatio];
  if (ours.baseFeePerBlobGas !== undefined) {
    const fees = theirs.baseFeePerBlobGas?.slice(0, n) ?? new Array<string>(n).fill("0x0");
    out.baseFeePerBlobGas = [...fees, ...ours.baseFeePerBlobGas];
  }
  if (ours.blobGasUsedRatio !== undefined) {
    out.blobGasUsedRatio = [
      ...(theirs.blobGasUsedRatio ?? new Array<number>(n).fill(0)),
      ...ours.blobGasUsedRatio,
    ];
  }
  if (ours.reward !== undefined) {
    const width = ours.reward[0]?.length ?? 0;
    const none = () => new Array<string>(width).fill("0x0");
    out.reward = [...(theirs.reward ?? Array.from({ length: n }, none)), ...ours.reward];
  }
  return out;
}

/** Where the block of each method is: the index of its block tag, or "hash" for a lookup by hash. */
const AT_BLOCK: Record<string, number> = {
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getStorageAt: 2,
  eth_getTransactionCount: 1,
  eth_getProof: 2,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_createAccessList: 1,
  eth_getBlockByNumber: 0,
  eth_getHeaderByNumber: 0,
  eth_getBlockTransactionCountByNumber: 0,
  eth_getTransactionByBlockNumberAndIndex: 0,
  eth_getRawTransactionByBlockNumberAndIndex: 0,
  eth_getBlockReceipts: 0,
  eth_getUncleCountByBlockNumber: 0,
  eth_getUncleByBlockNumberAndIndex: 0,
  eth_getAccount: 1,
  debug_traceBlockByNumber: 0,
  debug_traceCall: 1,
  debug_getRawBlock: 0,
  debug_getRawHeader: 0,
  debug_getRawReceipts: 0,
  debug_getRawTransactions: 0,
  trace_block: 0,
  trace_call: 2,
  trace_replayBlockTransactions: 0,
};

/**
 * Traces and counts by transaction or block hash, whose answers do not say their block: passed on when the remote
 * has that transaction or block at the fork block or before (anvil passes the traces of the remote's
 * transactions on likewise).
 */
const TRACE_BY_HASH: Record<string, "eth_getTransactionByHash" | "eth_getBlockByHash"> = {
  debug_traceTransaction: "eth_getTransactionByHash",
  debug_getRawTransaction: "eth_getTransactionByHash",
  trace_transaction: "eth_getTransactionByHash",
  trace_replayTransaction: "eth_getTransactionByHash",
  trace_get: "eth_getTransactionByHash",
  debug_traceBlockByHash: "eth_getBlockByHash",
  // Counts and raw bytes do not say their block either.
  eth_getBlockTransactionCountByHash: "eth_getBlockByHash",
  eth_getUncleCountByBlockHash: "eth_getBlockByHash",
  eth_getRawTransactionByHash: "eth_getTransactionByHash",
  eth_getRawTransactionByBlockHashAndIndex: "eth_getBlockByHash",
};

const BY_HASH = new Set([
  "eth_getBlockByHash",
  "eth_getHeaderByHash",
  "eth_getTransactionByBlockHashAndIndex",
  "eth_getTransactionByHash",
  "eth_getTransactionReceipt",
  "eth_getUncleByBlockHashAndIndex",
]);

/** A block number from a block tag param (hex, or EIP-1898 {blockNumber}); undefined for names and hashes. */
function numberOf(tag: unknown): bigint | undefined {
  if (typeof tag === "string" && /^0x[0-9a-fA-F]+$/.test(tag) && tag.length <= 18) return BigInt(tag);
  if (typeof tag === "object" && tag !== null && "blockNumber" in tag) return numberOf(tag.blockNumber);
  return undefined;
}

/** An EIP-1898 {blockHash} param. */
function isHashTag(tag: unknown): boolean {
  return typeof tag === "object" && tag !== null && "blockHash" in tag;
}

/** Whether a remote answer (block, transaction or receipt) is from the fork block or before. */
function upToFork(result: unknown, fork: bigint): boolean {
  if (typeof result !== "object" || result === null) return true;
  const n = (result as { blockNumber?: unknown; number?: unknown }).blockNumber ??
    (result as { number?: unknown }).number;
  return typeof n !== "string" || BigInt(n) <= fork;
}

/** A local answer that says the block is not the local chain's. */
function notLocal(e: unknown): boolean {
  const m = e instanceof Error ? e.message : "";
  return m.includes("header not found") || m.includes("unknown block") || m.includes("not found");
}

function asJson(result: unknown): unknown {
  if (!(result instanceof RawJson)) return result;
  const text = typeof result.json === "string" ? result.json : new TextDecoder().decode(result.json);
  return JSON.parse(text);
}

/** `namespace` with the history methods passing on to the fork's remote (see the file comment). */
export function forkHistory(namespace: Namespace, source: ForkHistorySource): Namespace {
  const fork = source.blockNumber;
  const remote = async (method: string, params: unknown): Promise<unknown> => {
    try {
      return await source.client.call(method, Array.isArray(params) ? params : []);
    } catch (e) {
      if (e instanceof BaseError && e.code === "RPC_ERROR") {
        const meta = e.meta as { code?: number; data?: unknown } | undefined;
        throw new RpcError(meta?.code ?? -32000, e.message.replace(`${method} failed: `, ""), meta?.data);
      }
      throw RpcError.server(
        `the fork's remote did not answer ${method}: ${redactUrl((e as Error).message, source.client.url)}`,
      );
    }
  };
  const wrap = (def: AnyMethodDef): AnyMethodDef => {
    const local = def.handler;
    let handler: AnyMethodDef["handler"] | undefined;
    if (def.name in AT_BLOCK) {
      const at = AT_BLOCK[def.name];
      handler = async (params, ctx: MethodContext) => {
        const tag = Array.isArray(ctx.raw) ? ctx.raw[at] : undefined;
        const n = numberOf(tag);
        if (n !== undefined && n < fork) return await remote(def.name, ctx.raw);
        if (!isHashTag(tag)) return await local(params, ctx);
        try {
          const answer = await local(params, ctx);
          if (answer !== null) return answer;
        } catch (e) {
          if (!notLocal(e)) throw e;
        }
        return await remote(def.name, ctx.raw);
      };
    } else if (BY_HASH.has(def.name)) {
      handler = async (params, ctx: MethodContext) => {
        const answer = await local(params, ctx);
        if (answer !== null && answer !== undefined) return answer;
        const theirs = await remote(def.name, ctx.raw);
        return upToFork(theirs, fork) ? theirs : null;
      };
    } else if (def.name in TRACE_BY_HASH) {
      handler = async (params, ctx: MethodContext) => {
        let missed: unknown;
        let answer: unknown = null;
        try {
          answer = await local(params, ctx);
          // geth answers "0x" for raw bytes it does not have.
          if (answer !== null && answer !== undefined && answer !== "0x") return answer;
        } catch (e) {
          if (!notLocal(e)) throw e;
          missed = e;
        }
        const hash = Array.isArray(ctx.raw) ? ctx.raw[0] : undefined;
        const lookup = TRACE_BY_HASH[def.name];
        const found = await remote(lookup, lookup === "eth_getBlockByHash" ? [hash, false] : [hash]);
        if (found !== null && upToFork(found, fork)) return await remote(def.name, ctx.raw);
        if (missed !== undefined) throw missed;
        return answer ?? null;
      };
    } else if (def.name === "eth_feeHistory") {
      handler = async (params, ctx: MethodContext) => {
        const raw = Array.isArray(ctx.raw) ? ctx.raw : [];
        const [count, , percentiles] = params as [bigint, unknown, number[] | undefined];
        const reparse = (p: unknown[]) => parseParams(def.params, def.required, p) as never;
        // The newest block's number: the tag's, or a one-block local answer's.
        let last = numberOf(raw[1]);
        if (last === undefined) {
          const one = asJson(await local(reparse(["0x1", raw[1]]), ctx)) as { oldestBlock: string };
          last = BigInt(one.oldestBlock);
        }
        const asked = [...raw];
        asked[1] = `0x${last.toString(16)}`;
        if (count === 0n || last <= fork) return await remote(def.name, asked);
        let total = count < BigInt(source.maxFeeHistory) ? count : BigInt(source.maxFeeHistory);
        if (total > last + 1n) total = last + 1n;
        const oldest = last - total + 1n;
        if (oldest > fork) return await local(reparse(asked), ctx);
        const ours = asJson(
          await local(reparse([`0x${(last - fork).toString(16)}`, asked[1], ...raw.slice(2)]), ctx),
        );
        const theirs = await remote(def.name, [
          `0x${(fork - oldest + 1n).toString(16)}`,
          `0x${fork.toString(16)}`,
          ...(percentiles === undefined ? [] : [percentiles]),
        ]);
        return joinFeeHistory(theirs as FeeHistory, ours as FeeHistory);
      };
    } else if (def.name === "eth_getLogs") {
      handler = async (params, ctx: MethodContext) => {
        const filter = Array.isArray(ctx.raw) ? ctx.raw[0] as Record<string, unknown> | undefined : undefined;
        if (filter === undefined || filter === null || typeof filter !== "object") {
          return await local(params, ctx);
        }
        if ("blockHash" in filter && filter.blockHash !== undefined && filter.blockHash !== null) {
          try {
            return await local(params, ctx);
          } catch (e) {
            if (!notLocal(e)) throw e;
            return await remote(def.name, ctx.raw);
          }
        }
        const from = filter.fromBlock === "earliest" ? 0n : numberOf(filter.fromBlock);
        if (from === undefined || from > fork) return await local(params, ctx);
        const to = filter.toBlock === "earliest" ? 0n : numberOf(filter.toBlock);
        const theirs = await remote(def.name, [{
          ...filter,
          fromBlock: `0x${from.toString(16)}`,
          toBlock: `0x${(to === undefined || to > fork ? fork : to).toString(16)}`,
        }]) as unknown[];
        if ((to !== undefined && to <= fork) || source.head() <= fork) return theirs;
        const rest = { ...filter, fromBlock: `0x${(fork + 1n).toString(16)}` };
        const ours = asJson(
          await local(parseParams(def.params, def.required, [rest]) as never, ctx),
        ) as unknown[];
        return [...theirs, ...ours];
      };
    }
    return handler === undefined ? def : { ...def, handler };
  };
  return Object.fromEntries(
    Object.entries(namespace).map(([key, def]) => [key, def.kind === "method" ? wrap(def) : def]),
  );
}
