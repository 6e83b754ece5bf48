/**
 * Polling filters (geth eth/filters/api.go): eth_newFilter, eth_newBlockFilter,
 * eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter.
 * A filter not polled for 5 minutes is dropped (geth `deadline`). Expiry is checked on every
 * call with the injected clock (no timers). The composition root reports head changes with
 * `onNewHeads`; pending transactions arrive from the pool's listener while a pending filter exists.
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex, type Hex } from "../../common/mod.ts";
import { type BlockSpec, RpcError } from "../../rpc/mod.ts";
import type { BlockRef, LogEntry, LogFilter } from "../chain/mod.ts";
import type { EthBackend } from "./backend.ts";

/** A log filter's criteria with tags still symbolic (resolved at each query). */
export interface LogCriteria {
  fromBlock?: BlockSpec;
  toBlock?: BlockSpec;
  blockHash?: Uint8Array;
  addresses?: Uint8Array[];
  topics?: (Uint8Array[] | null)[];
}

export interface FilterManagerOptions {
  /** Idle time after which a filter is dropped, ms (geth: 5 minutes). */
  timeoutMs: number;
  /** Most installed filters. */
  maxFilters: number;
  /** Most items a filter buffers between polls (oldest dropped beyond). */
  maxBuffered: number;
}

export const DEFAULT_FILTER_MANAGER_OPTIONS: FilterManagerOptions = {
  timeoutMs: 5 * 60 * 1000, // geth eth/filters: deadline = 5 * time.Minute
  maxFilters: 10_000,
  maxBuffered: 10_000,
};

type Filter =
  | { kind: "logs"; criteria: LogCriteria; buffer: LogEntry[]; lastUsed: number }
  | { kind: "blocks"; buffer: Hex[]; lastUsed: number }
  | { kind: "pending"; full: boolean; buffer: (Hex | PendingTransaction)[]; lastUsed: number };

/** A transaction that entered the pending set, for a full-transaction pending filter. */
export interface PendingTransaction {
  tx: TypedTransaction;
  hash: Hex;
}

/** A block of a head change: a BlockRef, or the engine's {hash, block} (NewHeadsEvent items). */
export type HeadBlock =
  & Pick<BlockRef, "hash">
  & (
    | Pick<BlockRef, "number">
    | { block: { header: { number: bigint } } }
  );

/**
 * Reorg-aware head change: blocks that joined the canonical chain (lowest first) and blocks that
 * left it. The execution engine's NewHeadsEvent fits as it is.
 */
export interface HeadChange {
  added: readonly HeadBlock[];
  removed?: readonly HeadBlock[];
}

function numberOf(b: HeadBlock): bigint {
  return "number" in b ? b.number : b.block.header.number;
}

export class FilterManager {
  readonly options: FilterManagerOptions;
  readonly #backend: EthBackend;
  readonly #clock: () => number;
  readonly #filters = new Map<string, Filter>();
  #unsubscribePending: (() => void) | undefined;

  constructor(options: Partial<FilterManagerOptions>, deps: { backend: EthBackend; clock?: () => number }) {
    this.options = { ...DEFAULT_FILTER_MANAGER_OPTIONS, ...options };
    this.#backend = deps.backend;
    this.#clock = deps.clock ?? deps.backend.clock ?? Date.now;
  }

  get size(): number {
    return this.#filters.size;
  }

  #newId(): string {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return "0x" + BigInt(bytesToHex(bytes)).toString(16);
  }

  #install(filter: Filter): string {
    this.expire();
    if (this.#filters.size >= this.options.maxFilters) {
      throw RpcError.server(`too many filters: at most ${this.options.maxFilters}`);
    }
    const id = this.#newId();
    this.#filters.set(id, filter);
    return id;
  }

  /** Drops filters idle for longer than the timeout. */
  expire(): void {
    const now = this.#clock();
    for (const [id, f] of this.#filters) {
      if (now - f.lastUsed > this.options.timeoutMs) this.#filters.delete(id);
    }
    this.#syncPendingListener();
  }

  newLogFilter(criteria: LogCriteria): string {
    return this.#install({ kind: "logs", criteria, buffer: [], lastUsed: this.#clock() });
  }

  newBlockFilter(): string {
    return this.#install({ kind: "blocks", buffer: [], lastUsed: this.#clock() });
  }

  /** A filter of transactions entering the pending set: hashes, or with `full` the transactions (geth `fullTx`). */
  newPendingTransactionFilter(full = false): string {
    const id = this.#install({ kind: "pending", full, buffer: [], lastUsed: this.#clock() });
    this.#syncPendingListener();
    return id;
  }

  uninstall(id: string): boolean {
    this.expire();
    const had = this.#filters.delete(id);
    this.#syncPendingListener();
    return had;
  }

  #get(id: string): Filter {
    this.expire();
    const f = this.#filters.get(id);
    if (f === undefined) throw RpcError.server("filter not found");
    f.lastUsed = this.#clock();
    return f;
  }

  /** Items since the last poll: logs, block hashes, transaction hashes or pending transactions. */
  changes(id: string): unknown[] {
    const f = this.#get(id);
    const out = f.buffer;
    f.buffer = [];
    return out;
  }

  /** The criteria of a log filter (eth_getFilterLogs runs them as eth_getLogs). */
  criteria(id: string): LogCriteria {
    const f = this.#get(id);
    if (f.kind !== "logs") throw RpcError.server("filter not found");
    return f.criteria;
  }

  /** Tell the filters about a canonical-chain change (new blocks, and reorged-out ones). */
  onNewHeads(change: HeadChange): void {
    this.expire();
    if (this.#filters.size === 0) return;
    const chain = this.#backend.chain;
    for (const f of this.#filters.values()) {
      if (f.kind === "blocks") {
        for (const ref of change.added) push(f.buffer, bytesToHex(ref.hash), this.options.maxBuffered);
      } else if (f.kind === "logs") {
        const c = f.criteria;
        if (c.blockHash !== undefined) continue;
        const match: Pick<LogFilter, "addresses" | "topics"> = { addresses: c.addresses, topics: c.topics };
        for (const ref of change.removed ?? []) {
          for (const log of chain.getBlockLogs(ref.hash, true, match)) {
            push(f.buffer, log, this.options.maxBuffered);
          }
        }
        for (const ref of change.added) {
          if (!inRange(c, numberOf(ref))) continue;
          for (const log of chain.getBlockLogs(ref.hash, false, match)) {
            push(f.buffer, log, this.options.maxBuffered);
          }
        }
      }
    }
  }

  #syncPendingListener(): void {
    let any = false;
    for (const f of this.#filters.values()) {
      if (f.kind === "pending") {
        any = true;
        break;
      }
    }
    if (any && this.#unsubscribePending === undefined) {
      this.#unsubscribePending = this.#backend.pool.onPending((tx, hash) => {
        for (const f of this.#filters.values()) {
          if (f.kind === "pending") push(f.buffer, f.full ? { tx, hash } : hash, this.options.maxBuffered);
        }
      });
    } else if (!any && this.#unsubscribePending !== undefined) {
      this.#unsubscribePending();
      this.#unsubscribePending = undefined;
    }
  }

  /** Removes every filter and the pool listener. */
  close(): void {
    this.#filters.clear();
    this.#syncPendingListener();
  }
}

function push<T>(buffer: T[], item: T, max: number): void {
  buffer.push(item);
  if (buffer.length > max) buffer.shift();
}

/** Whether block `n` is within the filter's numeric bounds (tags other than numbers: open). */
function inRange(c: LogCriteria, n: bigint): boolean {
  if (c.fromBlock?.kind === "number" && n < c.fromBlock.number) return false;
  if (c.toBlock?.kind === "number" && n > c.toBlock.number) return false;
  return true;
}
