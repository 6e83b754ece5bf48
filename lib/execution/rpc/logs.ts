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

/** One topic position: null (any), a hash, or an OR list (empty or containing null = any). */
function parseTopic(t: unknown): Uint8Array[] | null {
  if (t === null || t === undefined) return null;
  if (!Array.isArray(t)) return [hash.parse(t)];
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
  fromBlock: s.optional(s.blockTag()),
  toBlock: s.optional(s.blockTag()),
  address: s.optional(addressesSchema),
  topics: s.optional(topicsSchema),
  blockHash: s.optional(s.hash()),
});

/** The criteria of a parsed filter object; both blockHash and a range is an error. */
export function toCriteria(f: Infer<typeof logFilterSchema>): LogCriteria {
  if (f.blockHash !== undefined && (f.fromBlock !== undefined || f.toBlock !== undefined)) {
    throw RpcError.invalidParams(
      "cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other",
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

function rangeEnd(backend: EthBackend, spec: BlockSpec | undefined, head: bigint): bigint {
  const n = resolveNumber(backend, spec, head);
  return n > head ? head : n;
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
  const head = chain.headNumber();
  const from = resolveNumber(backend, c.fromBlock, head);
  if (from > head) return [];
  const to = rangeEnd(backend, c.toBlock, head);
  if (from > to) throw RpcError.server("invalid block range");
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
