/**
 * eth_getLogs filter parsing and execution (geth eth/filters FilterCriteria): address (one or a
 * list), topics (positions ANDed, each null = any or a list ORed; at most 4), fromBlock/toBlock
 * tags or blockHash (EIP-234, exclusive with the range). A range longer than maxBlockRange and
 * more than maxLogs results are refused with -32005 (EIP-1474 "limit exceeded").
 */
import { BaseError } from "../../common/mod.ts";
import { type BlockSpec, type Infer, RpcError, s, SchemaError } from "../../rpc/mod.ts";
import type { LogEntry } from "../chain/mod.ts";
import { type EthBackend, resolveNumber } from "./backend.ts";
import type { LogCriteria } from "./filters.ts";

/** -32005: a query over a provider limit (EIP-1474). */
export const LIMIT_EXCEEDED = -32005;

const address = s.address();
const hash = s.hash();

const addressesSchema = s.custom<Uint8Array[]>("addresses", (v) => {
  if (Array.isArray(v)) {
    return v.map((a, i) => {
      try {
        return address.parse(a);
      } catch (e) {
        throw new SchemaError(`address ${i}: ${(e as Error).message}`);
      }
    });
  }
  return [address.parse(v)];
});

/**
 * Most addresses, and most topics in one position's OR list, a query may name (geth eth/filters
 * maxSubTopics, the --rpc.logquerylimit default).
 */
export const LOG_QUERY_LIMIT = 1000;
const EXCEED_LOG_QUERY_LIMIT = "exceed max addresses or topics per search position";

/** One topic position: null (any), a hash, or an OR list (empty or containing null = any). */
function parseTopic(t: unknown): Uint8Array[] | null {
  if (t === null || t === undefined) return null;
  if (!Array.isArray(t)) return [hash.parse(t)];
  if (t.length > LOG_QUERY_LIMIT) throw new SchemaError(EXCEED_LOG_QUERY_LIMIT);
  if (t.length === 0 || t.some((x) => x === null)) return null;
  return t.map((x) => hash.parse(x));
}

const topicsSchema = s.custom<(Uint8Array[] | null)[]>("topics", (v) => {
  if (!Array.isArray(v)) {
    throw new SchemaError("json: cannot unmarshal non-array into Go value of type topics");
  }
  if (v.length > 4) throw new SchemaError("exceed max topics");
  return v.map(parseTopic);
});

export const logFilterSchema = s.object({
  // geth FilterCriteria: block numbers or tags (rpc.BlockNumber), not EIP-1898 objects.
  fromBlock: s.optional(s.blockNumber()),
  toBlock: s.optional(s.blockNumber()),
  address: s.optional(addressesSchema),
  topics: s.optional(topicsSchema),
  blockHash: s.optional(s.hash()),
});

/** The criteria of a parsed filter object; both blockHash and a range is an error. */
export function toCriteria(f: Infer<typeof logFilterSchema>): LogCriteria {
  if (f.address !== undefined && f.address.length > LOG_QUERY_LIMIT) {
    throw RpcError.server(EXCEED_LOG_QUERY_LIMIT);
  }
  if (f.blockHash !== undefined && (f.fromBlock !== undefined || f.toBlock !== undefined)) {
    throw RpcError.invalidParams(
      "invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other",
    );
  }
  return {
    fromBlock: f.fromBlock,
    toBlock: f.toBlock,
    blockHash: f.blockHash,
    addresses: f.address,
    topics: f.topics,
  };
}

function isPending(spec: BlockSpec | undefined): boolean {
  return spec?.kind === "tag" && spec.tag === "pending";
}

/** geth eth/filters: no logs of a pending block (there is none to read them from). */
function refusePending(c: LogCriteria): void {
  if (isPending(c.fromBlock) || isPending(c.toBlock)) throw RpcError.server("pending logs are not supported");
}

/**
 * eth_newFilter's accepted ranges (geth EventSystem.SubscribeLogs): latest to latest (new blocks), a
 * number to a number not below it, a number to latest; an omitted bound is latest. Anything else
 * (safe or finalized bounds, a reversed range) is refused.
 */
export function checkFilterRange(c: LogCriteria): void {
  if (c.blockHash !== undefined) return;
  refusePending(c);
  const num = (b: BlockSpec | undefined) =>
    b?.kind === "number" ? b.number : b?.kind === "tag" && b.tag === "earliest" ? 0n : undefined;
  const latest = (b: BlockSpec | undefined) => b === undefined || (b.kind === "tag" && b.tag === "latest");
  const from = num(c.fromBlock);
  const to = num(c.toBlock);
  const ok = (latest(c.fromBlock) && latest(c.toBlock)) ||
    (from !== undefined && to !== undefined && to >= from) || (from !== undefined && latest(c.toBlock));
  if (!ok) throw RpcError.server("invalid block range params");
}

/** Runs the criteria over the canonical chain (or one block for blockHash). */
export function queryLogs(backend: EthBackend, c: LogCriteria): LogEntry[] {
  const chain = backend.chain;
  const match = { addresses: c.addresses, topics: c.topics };
  if (c.blockHash !== undefined) {
    if (chain.getHeaderByHash(c.blockHash) === undefined) throw RpcError.server("unknown block");
    const logs = chain.getBlockLogs(c.blockHash, false, match);
    if (logs.length > backend.options.maxLogs) {
      throw new RpcError(LIMIT_EXCEEDED, `query returned more than ${backend.options.maxLogs} results`);
    }
    return logs;
  }
  refusePending(c);
  const head = chain.headNumber();
  const from = resolveNumber(backend, c.fromBlock, head);
  const to = resolveNumber(backend, c.toBlock, head);
  // execution-apis tests/eth_getLogs filter-error-reversed-block-range, -future-block-range,
  // -fully-future-block-range, -future-block-to-latest: a reversed range first, then one past the head.
  if (from > to) throw RpcError.invalidParams("invalid block range params");
  if (to > head) throw RpcError.invalidParams("block range extends beyond current head block");
  const max = backend.options.maxBlockRange;
  if (max > 0n && to - from + 1n > max) {
    throw new RpcError(LIMIT_EXCEEDED, `query exceeds max block range ${max}`);
  }
  try {
    return chain.getLogs({ fromBlock: from, toBlock: to, ...match, maxLogs: backend.options.maxLogs });
  } catch (e) {
    if (e instanceof BaseError && e.code === "CHAIN_TOO_MANY_LOGS") {
      throw new RpcError(LIMIT_EXCEEDED, `query returned more than ${backend.options.maxLogs} results`);
    }
    throw e;
  }
}
