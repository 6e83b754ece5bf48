/**
 * `eth_subscribe` over WebSocket (interfaces.md section 6; geth eth/filters/api.go): the kinds
 * newHeads, logs and newPendingTransactions. The sources are two events the composition root
 * wires in (the engine's canonical-head changes and the pool's newly executable transactions),
 * so this module depends on no concrete class.
 *
 * - newHeads: one header per newly canonical block, lowest first; on a reorg the headers of the
 *   new branch, in order (geth sends ChainEvent per inserted block).
 * - logs: for blocks removed by a reorg, their matching logs with `removed: true` first (oldest
 *   removed block first, as geth's BlockChain.reorg collects them), then the logs of the added
 *   blocks.
 * - newPendingTransactions: tx hashes; with `true` as second param, full tx objects (geth 1.12+).
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { type Hex, hexToBytes } from "../../../common/mod.ts";
import type { Block } from "../../../protocol/mod.ts";
import { defineSubscription, type Namespace, s, SchemaError } from "../../../rpc/mod.ts";
import { compileFilter, type LogEntry, type Matcher, type StoredReceipt } from "../../chain/mod.ts";
import { formatHeader, formatLog, formatTransaction } from "../format.ts";

/** A block as a head-change event carries it (the engine's ChainBlock fits). */
export interface SubscriptionBlock {
  hash: Uint8Array;
  block: Block;
  receipts: StoredReceipt[];
}

/** A canonical head change: `removed` highest first, `added` lowest first (the engine's NewHeadsEvent fits). */
export interface SubscriptionHeadsEvent {
  added: readonly SubscriptionBlock[];
  removed: readonly SubscriptionBlock[];
}

/** What the subscriptions listen to. Each `on*` returns its unsubscribe function. */
export interface EthSubscriptionDeps {
  /** Canonical head changes (ExecutionEngine.onNewHeads). */
  onNewHeads(cb: (event: SubscriptionHeadsEvent) => void): () => void;
  /** Transactions becoming executable in the pool (TxPool.onPending). */
  onPending(cb: (tx: TypedTransaction, hash: Hex) => void): () => void;
}

/** geth eth/filters/api.go: limits of one logs filter. */
export const MAX_SUBSCRIPTION_TOPICS = 4;
export const MAX_SUBSCRIPTION_ADDRESSES = 1000;

/** A parsed `logs` subscription filter. */
export interface SubscriptionLogFilter {
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
}

const addressSchema = s.address();
const hashSchema = s.hash();

function parseTopic(v: unknown, where: string): Uint8Array {
  try {
    return hashSchema.parse(v);
  } catch (err) {
    if (err instanceof SchemaError) throw new SchemaError(`${where}: ${err.message}`);
    throw err;
  }
}

/**
 * Parses geth's FilterCriteria for a logs subscription: `address` one address or an array;
 * `topics` positions, each null (any), a hash, or an array of hashes (OR; a null inside means
 * any). fromBlock, toBlock and blockHash are ignored, as geth's logs subscription does.
 */
export function parseSubscriptionLogFilter(value: unknown): SubscriptionLogFilter {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new SchemaError("json: cannot unmarshal non-object into Go value of type filters.FilterCriteria");
  }
  const obj = value as Record<string, unknown>;
  const addresses: Uint8Array[] = [];
  const rawAddress = obj.address;
  if (rawAddress !== undefined && rawAddress !== null) {
    const list = Array.isArray(rawAddress) ? rawAddress : [rawAddress];
    if (list.length > MAX_SUBSCRIPTION_ADDRESSES) throw new SchemaError("exceed max addresses");
    list.forEach((a, i) => {
      try {
        addresses.push(addressSchema.parse(a));
      } catch (err) {
        if (err instanceof SchemaError) {
          throw new SchemaError(
            `invalid address${Array.isArray(rawAddress) ? ` at index ${i}` : ""}: ${err.message}`,
          );
        }
        throw err;
      }
    });
  }
  const topics: (Uint8Array[] | null)[] = [];
  const rawTopics = obj.topics;
  if (rawTopics !== undefined && rawTopics !== null) {
    if (!Array.isArray(rawTopics)) throw new SchemaError("invalid topics: want an array");
    if (rawTopics.length > MAX_SUBSCRIPTION_TOPICS) throw new SchemaError("exceed max topics");
    rawTopics.forEach((t, i) => {
      if (t === null) {
        topics.push(null);
      } else if (typeof t === "string") {
        topics.push([parseTopic(t, `invalid topic ${i}`)]);
      } else if (Array.isArray(t)) {
        if (t.some((x) => x === null)) {
          topics.push(null); // geth: a null component matches all
        } else {
          topics.push(t.map((x, j) => parseTopic(x, `invalid topic ${i}.${j}`)));
        }
      } else {
        throw new SchemaError(`invalid topic ${i}: want null, a hash or an array of hashes`);
      }
    });
  }
  return { addresses, topics };
}

/** The logs of one block that pass `matcher`, positioned as eth_getLogs reports them. */
export function blockLogs(b: SubscriptionBlock, removed: boolean, matcher?: Matcher): LogEntry[] {
  const header = b.block.header;
  const out: LogEntry[] = [];
  b.receipts.forEach((r, index) => {
    r.logs.forEach((log, i) => {
      if (matcher !== undefined && !matcher.log(log.address, log.topics)) return;
      out.push({
        ...log,
        blockHash: b.hash,
        blockNumber: header.number,
        blockTimestamp: header.timestamp,
        transactionHash: r.txHash,
        transactionIndex: index,
        logIndex: r.logIndexStart + i,
        removed,
      });
    });
  });
  return out;
}

// One formatted header per block, shared by every newHeads subscription.
const headerCache = new WeakMap<SubscriptionBlock, Record<string, unknown>>();

function cachedHeader(b: SubscriptionBlock): Record<string, unknown> {
  let out = headerCache.get(b);
  if (out === undefined) {
    out = formatHeader(b.block.header, b.hash);
    headerCache.set(b, out);
  }
  return out;
}

/** The `eth_subscribe` kinds (newHeads, logs, newPendingTransactions, syncing) as an "eth" namespace. */
export function ethSubscriptions(deps: EthSubscriptionDeps): Namespace {
  return {
    newHeads: defineSubscription({
      namespace: "eth",
      name: "newHeads",
      params: [],
      start: (_params, emit) =>
        deps.onNewHeads((event) => {
          for (const b of event.added) emit(cachedHeader(b));
        }),
    }),
    logs: defineSubscription({
      namespace: "eth",
      name: "logs",
      params: [s.optional(s.custom("filters.FilterCriteria", parseSubscriptionLogFilter))],
      start: ([filter], emit) => {
        const matcher = compileFilter(filter ?? { addresses: [], topics: [] });
        return deps.onNewHeads((event) => {
          // removed is highest first: walk it backwards so the oldest removed block goes first.
          for (let i = event.removed.length - 1; i >= 0; i--) {
            for (const log of blockLogs(event.removed[i], true, matcher)) emit(formatLog(log));
          }
          for (const b of event.added) {
            for (const log of blockLogs(b, false, matcher)) emit(formatLog(log));
          }
        });
      },
    }),
    // geth's downloader notifies when a sync starts and ends. The execution client never syncs on its own
    // (blocks come from the rollup node; eth_syncing is always false), so a subscriber waits in vain, as
    // on a geth that stays in sync.
    syncing: defineSubscription({
      namespace: "eth",
      name: "syncing",
      params: [],
      start: () => () => {},
    }),
    newPendingTransactions: defineSubscription({
      namespace: "eth",
      name: "newPendingTransactions",
      params: [s.optional(s.bool())],
      start: ([fullTx], emit) =>
        deps.onPending((tx, hash) => {
          emit(fullTx === true ? formatTransaction(tx, undefined, hexToBytes(hash)) : hash);
        }),
    }),
  };
}
