/**
 * The persistent chain: headers, bodies, receipts, the canonical number index, the transaction
 * and log indexes, total difficulty and the head labels (latest, safe, finalized), in the
 * shared KvStore (issue 3, part 5).
 *
 * One block is one atomic write group. The importer runs
 *
 *   await store.transactionAsync(async () => {
 *     await stateManager.commit();        // trie nodes (TrieDb puts) for the new state root
 *     chain.putBlock(block, receipts);    // header, body, receipts, hash -> number/td
 *     chain.setCanonicalHead(hash);       // number -> hash, tx index, log index, `latest`
 *   });
 *
 * so a crash leaves either all of it or none. Every write method here also works alone (it opens
 * its own group, or joins the caller's).
 *
 * Hot reads: the latest/safe/finalized refs and the recent headers, bodies and receipts are held
 * in memory, so eth_blockNumber and state-at-latest never touch sqlite for the header. Caches are
 * updated as writes happen and rebuilt from the database if the enclosing group rolls back.
 */
import { Lru } from "../../common/lru.ts";
import { bigIntToBytes, bytesToBigInt, bytesToHex, equalBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { KvStore } from "../../db/kv_store.ts";
import { prefixedKey, PREFIXES, readU64, u64Key } from "../../db/prefixes.ts";
import { type Block, encodeHeader, hashHeader, type Header } from "../../protocol/block.ts";
import { bloomBits, bloomHas } from "./bloom.ts";
import {
  decodeBody,
  decodeHeader,
  decodeLogIndex,
  decodeReceipts,
  encodeBody,
  encodeLogIndex,
  encodeReceipts,
  LOG_INDEX_BLOOM_OFFSET,
  type LogIndexEntry,
} from "./codec.ts";
import type {
  BlockRef,
  HeadLabel,
  LogEntry,
  LogFilter,
  PutBlockMeta,
  ReorgResult,
  StoredReceipt,
  TxLocation,
} from "./types.ts";

export interface ChainStoreOptions {
  /** Recent headers kept in memory. */
  headerCacheSize: number;
  /** Recent bodies and receipt lists kept in memory. */
  blockCacheSize: number;
  /** Default cap on eth_getLogs results (geth has none by default; op-geth's RPC layer caps ranges). */
  maxLogs: number;
}

export const DEFAULT_CHAIN_STORE_OPTIONS: ChainStoreOptions = {
  // A few minutes of 2-second L2 blocks: covers reorg walks and "latest - n" reads.
  headerCacheSize: 512,
  blockCacheSize: 64,
  // 10,000 logs: the common provider limit for eth_getLogs responses.
  maxLogs: 10_000,
};

const LABELS: HeadLabel[] = ["latest", "safe", "finalized"];
const LABEL_KEYS: Record<HeadLabel, Uint8Array> = {
  latest: prefixedKey(PREFIXES.headLabel, new TextEncoder().encode("latest")),
  safe: prefixedKey(PREFIXES.headLabel, new TextEncoder().encode("safe")),
  finalized: prefixedKey(PREFIXES.headLabel, new TextEncoder().encode("finalized")),
};

/** The ref of a header with a known hash. */
export function headerRef(header: Header, hash: Uint8Array): BlockRef {
  return { hash, number: header.number, parentHash: header.parentHash, timestamp: header.timestamp };
}

export class ChainStore {
  readonly store: KvStore;
  readonly options: ChainStoreOptions;
  #headers: Lru<string, Header>;
  #bodies: Lru<string, Pick<Block, "transactions" | "withdrawals">>;
  #receipts: Lru<string, StoredReceipt[]>;
  #labels = new Map<HeadLabel, { ref: BlockRef; header: Header }>();
  #rollbackArmed = false;

  constructor(options: Partial<ChainStoreOptions>, deps: { store: KvStore }) {
    this.options = { ...DEFAULT_CHAIN_STORE_OPTIONS, ...options };
    this.store = deps.store;
    this.#headers = new Lru(this.options.headerCacheSize);
    this.#bodies = new Lru(this.options.blockCacheSize);
    this.#receipts = new Lru(this.options.blockCacheSize);
    this.#loadLabels();
  }

  #loadLabels(): void {
    this.#labels.clear();
    for (const label of LABELS) {
      const hash = this.store.get(LABEL_KEYS[label]);
      if (hash === undefined) continue;
      const header = this.getHeaderByHash(hash);
      if (header === undefined) {
        throw new BaseError(
          "CHAIN_CORRUPT",
          `Cannot load ${label} head: header ${bytesToHex(hash)} is missing`,
        );
      }
      this.#labels.set(label, { ref: headerRef(header, hash), header });
    }
  }

  /** Runs `fn` as (part of) a write group; on rollback the in-memory caches are rebuilt. */
  #write<T>(fn: () => T): T {
    return this.store.transaction(() => {
      if (!this.#rollbackArmed) {
        this.#rollbackArmed = true;
        this.store.onRollback(() => {
          this.#headers.clear();
          this.#bodies.clear();
          this.#receipts.clear();
          this.#loadLabels();
        });
        this.store.onCommit(() => (this.#rollbackArmed = false));
        this.store.onRollback(() => (this.#rollbackArmed = false));
      }
      return fn();
    });
  }

  // ---- writes ---------------------------------------------------------------------------------

  /**
   * Stores a block with its receipts (header, body, receipts, hash -> number and total
   * difficulty). Does not make it canonical: call setCanonicalHead. Returns its ref.
   */
  putBlock(block: Block, receipts: StoredReceipt[], meta: PutBlockMeta = {}): BlockRef {
    const header = block.header;
    const hash = meta.hash ?? hashHeader(header);
    if (receipts.length !== block.transactions.length) {
      throw new BaseError(
        "CHAIN_BAD_BLOCK",
        `Cannot store block ${header.number}: ${block.transactions.length} transactions but ${receipts.length} receipts`,
      );
    }
    let td: bigint;
    if (meta.totalDifficulty !== undefined) td = meta.totalDifficulty;
    else if (header.number === 0n) td = header.difficulty;
    else {
      const parentTd = this.getTotalDifficulty(header.parentHash);
      if (parentTd === undefined) {
        throw new BaseError(
          "CHAIN_UNKNOWN_PARENT",
          `Cannot store block ${header.number}: parent ${bytesToHex(header.parentHash)} is unknown`,
          { meta: { number: header.number, parentHash: bytesToHex(header.parentHash) } },
        );
      }
      td = parentTd + header.difficulty;
    }
    this.#write(() => {
      this.store.put(prefixedKey(PREFIXES.header, hash), encodeHeader(header));
      this.store.put(prefixedKey(PREFIXES.body, hash), encodeBody(block));
      this.store.put(prefixedKey(PREFIXES.receipts, hash), encodeReceipts(receipts));
      this.store.put(
        prefixedKey(PREFIXES.blockInfo, hash),
        prefixedKey(0, u64Key(header.number), bigIntToBytes(td)),
      );
    });
    const key = bytesToHex(hash);
    this.#headers.set(key, header);
    this.#bodies.set(key, { transactions: block.transactions, withdrawals: block.withdrawals });
    this.#receipts.set(key, receipts);
    return headerRef(header, hash);
  }

  /**
   * Makes `hash` the canonical head (`latest`): walks back to the common ancestor with the
   * current canonical chain, rewrites number -> hash for the new branch, deletes canonical entries
   * above the new head, and re-points the transaction and log indexes.
   */
  setCanonicalHead(hash: Uint8Array): ReorgResult {
    const head = this.#mustHeader(hash);
    return this.#write(() => {
      // New branch, from the new head down to (excluding) the common ancestor.
      const branch: { ref: BlockRef; header: Header }[] = [];
      let cur: { ref: BlockRef; header: Header } = { ref: headerRef(head, hash), header: head };
      for (;;) {
        const canon = this.getCanonicalHash(cur.ref.number);
        if (canon !== undefined && equalBytes(canon, cur.ref.hash)) break;
        branch.push(cur);
        if (cur.ref.number === 0n) break;
        const parent = this.getHeaderByHash(cur.ref.parentHash);
        if (parent === undefined) {
          // An anchor block (its parent was never stored): the branch starts here.
          if (this.getCanonicalHash(cur.ref.number - 1n) === undefined) break;
          throw new BaseError(
            "CHAIN_UNKNOWN_PARENT",
            `Cannot set head ${bytesToHex(hash)}: ancestor ${bytesToHex(cur.ref.parentHash)} is unknown`,
          );
        }
        cur = { ref: headerRef(parent, cur.ref.parentHash), header: parent };
      }
      const forkNumber = branch.length === 0 ? head.number + 1n : branch[branch.length - 1].ref.number;
      const firstStale = branch.length === 0 ? head.number + 1n : forkNumber;

      // Everything canonical at or above the first stale number goes.
      const removed: BlockRef[] = [];
      const stale = [...this.store.iterate(new Uint8Array([PREFIXES.canonical]), {
        start: prefixedKey(PREFIXES.canonical, u64Key(firstStale)),
      })];
      for (const [key, oldHash] of stale.reverse()) {
        const number = readU64(key, 1);
        const oldHeader = this.#mustHeader(oldHash);
        removed.push(headerRef(oldHeader, oldHash));
        for (const r of this.getReceipts(oldHash) ?? []) {
          const txKey = prefixedKey(PREFIXES.txIndex, r.txHash);
          const loc = this.store.get(txKey);
          if (loc !== undefined && equalBytes(loc.subarray(0, 32), oldHash)) this.store.del(txKey);
        }
        this.store.del(key);
        this.store.del(prefixedKey(PREFIXES.logIndex, u64Key(number)));
      }

      const added: BlockRef[] = [];
      for (const { ref, header } of branch.reverse()) {
        this.store.put(prefixedKey(PREFIXES.canonical, u64Key(ref.number)), ref.hash);
        const receipts = this.getReceipts(ref.hash);
        if (receipts === undefined) {
          throw new BaseError(
            "CHAIN_MISSING_BLOCK",
            `Cannot set head: receipts of ${bytesToHex(ref.hash)} are missing`,
          );
        }
        const entry: LogIndexEntry = {
          blockHash: ref.hash,
          timestamp: header.timestamp,
          bloom: header.logsBloom,
          txs: [],
        };
        receipts.forEach((r, index) => {
          const loc = new Uint8Array(36);
          loc.set(ref.hash, 0);
          new DataView(loc.buffer).setUint32(32, index);
          this.store.put(prefixedKey(PREFIXES.txIndex, r.txHash), loc);
          if (r.logs.length > 0) {
            entry.txs.push({ index, hash: r.txHash, logIndexStart: r.logIndexStart, logs: r.logs });
          }
        });
        if (entry.txs.length > 0) {
          this.store.put(prefixedKey(PREFIXES.logIndex, u64Key(ref.number)), encodeLogIndex(entry));
        }
        added.push(ref);
      }
      this.#setLabel("latest", hash, head);
      return { removed, added };
    });
  }

  /** Sets the `safe` label (the block must be stored). */
  setSafeHead(hash: Uint8Array): void {
    this.#write(() => this.#setLabel("safe", hash, this.#mustHeader(hash)));
  }

  /** Sets the `finalized` label (the block must be stored). */
  setFinalizedHead(hash: Uint8Array): void {
    this.#write(() => this.#setLabel("finalized", hash, this.#mustHeader(hash)));
  }

  #setLabel(label: HeadLabel, hash: Uint8Array, header: Header): void {
    this.store.put(LABEL_KEYS[label], hash);
    this.#labels.set(label, { ref: headerRef(header, hash), header });
  }

  // ---- reads ----------------------------------------------------------------------------------

  #mustHeader(hash: Uint8Array): Header {
    const h = this.getHeaderByHash(hash);
    if (h === undefined) {
      throw new BaseError("CHAIN_MISSING_BLOCK", `Cannot find block ${bytesToHex(hash)}`, {
        meta: { hash: bytesToHex(hash) },
      });
    }
    return h;
  }

  /** The ref of a head label, or undefined before the first block. */
  getHead(label: HeadLabel = "latest"): BlockRef | undefined {
    return this.#labels.get(label)?.ref;
  }

  /** The header of a head label (from memory). */
  getHeadHeader(label: HeadLabel = "latest"): Header | undefined {
    return this.#labels.get(label)?.header;
  }

  /** The latest block number; throws CHAIN_EMPTY before the first block. */
  headNumber(): bigint {
    const head = this.#labels.get("latest");
    if (head === undefined) throw new BaseError("CHAIN_EMPTY", "Cannot read head: the chain has no blocks");
    return head.ref.number;
  }

  getCanonicalHash(number: bigint): Uint8Array | undefined {
    if (number < 0n) return undefined;
    const head = this.#labels.get("latest");
    if (head !== undefined && number === head.ref.number) return head.ref.hash;
    return this.store.get(prefixedKey(PREFIXES.canonical, u64Key(number)));
  }

  getHeaderByHash(hash: Uint8Array): Header | undefined {
    const key = bytesToHex(hash);
    const cached = this.#headers.get(key);
    if (cached !== undefined) return cached;
    const raw = this.store.get(prefixedKey(PREFIXES.header, hash));
    if (raw === undefined) return undefined;
    const header = decodeHeader(raw);
    this.#headers.set(key, header);
    return header;
  }

  /** The ref of a stored block (canonical or not). */
  getBlockRef(hash: Uint8Array): BlockRef | undefined {
    const header = this.getHeaderByHash(hash);
    return header === undefined ? undefined : headerRef(header, hash);
  }

  getHeaderByNumber(number: bigint): Header | undefined {
    const hash = this.getCanonicalHash(number);
    return hash === undefined ? undefined : this.getHeaderByHash(hash);
  }

  getBlockByHash(hash: Uint8Array): Block | undefined {
    const header = this.getHeaderByHash(hash);
    if (header === undefined) return undefined;
    const key = bytesToHex(hash);
    let body = this.#bodies.get(key);
    if (body === undefined) {
      const raw = this.store.get(prefixedKey(PREFIXES.body, hash));
      if (raw === undefined) return undefined;
      body = decodeBody(raw);
      this.#bodies.set(key, body);
    }
    const block: Block = { header, transactions: body.transactions };
    if (body.withdrawals !== undefined) block.withdrawals = body.withdrawals;
    return block;
  }

  getBlockByNumber(number: bigint): Block | undefined {
    const hash = this.getCanonicalHash(number);
    return hash === undefined ? undefined : this.getBlockByHash(hash);
  }

  /** The number of a stored block (canonical or not). */
  getBlockNumber(hash: Uint8Array): bigint | undefined {
    const raw = this.store.get(prefixedKey(PREFIXES.blockInfo, hash));
    return raw === undefined ? undefined : readU64(raw, 1);
  }

  /** Sum of difficulties up to the block: the genesis difficulty on a post-merge chain. */
  getTotalDifficulty(hash: Uint8Array): bigint | undefined {
    const raw = this.store.get(prefixedKey(PREFIXES.blockInfo, hash));
    return raw === undefined ? undefined : bytesToBigInt(raw.subarray(9));
  }

  getReceipts(blockHash: Uint8Array): StoredReceipt[] | undefined {
    const key = bytesToHex(blockHash);
    const cached = this.#receipts.get(key);
    if (cached !== undefined) return cached;
    const raw = this.store.get(prefixedKey(PREFIXES.receipts, blockHash));
    if (raw === undefined) return undefined;
    const receipts = decodeReceipts(raw);
    this.#receipts.set(key, receipts);
    return receipts;
  }

  /** Where a canonical transaction is, or undefined. */
  getTransactionLocation(txHash: Uint8Array): TxLocation | undefined {
    const raw = this.store.get(prefixedKey(PREFIXES.txIndex, txHash));
    if (raw === undefined) return undefined;
    const blockHash = raw.slice(0, 32);
    const blockNumber = this.getBlockNumber(blockHash);
    if (blockNumber === undefined) {
      throw new BaseError("CHAIN_CORRUPT", `Cannot locate tx ${bytesToHex(txHash)}: block is missing`);
    }
    return { blockHash, blockNumber, index: new DataView(raw.buffer, raw.byteOffset + 32, 4).getUint32(0) };
  }

  /**
   * Logs of a stored block (canonical or not): eth_getLogs with `blockHash` (EIP-234), or the
   * `removed: true` logs of a reorg. `filter` keeps only matching logs (addresses and topics).
   */
  getBlockLogs(
    blockHash: Uint8Array,
    removed = false,
    filter?: Pick<LogFilter, "addresses" | "topics">,
  ): LogEntry[] {
    const matcher = filter === undefined ? undefined : compileFilter(filter);
    const header = this.getHeaderByHash(blockHash);
    const receipts = this.getReceipts(blockHash);
    if (header === undefined || receipts === undefined) return [];
    const out: LogEntry[] = [];
    receipts.forEach((r, index) => {
      r.logs.forEach((log, i) => {
        if (matcher !== undefined && !matcher.log(log.address, log.topics)) return;
        out.push({
          ...log,
          blockHash,
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

  /**
   * eth_getLogs over canonical blocks [fromBlock, toBlock]: one range scan of the log index
   * (blocks without logs have no row), a bloom prefilter, then exact matching.
   */
  getLogs(filter: LogFilter): LogEntry[] {
    if (filter.fromBlock > filter.toBlock) return [];
    const matcher = compileFilter(filter);
    const max = filter.maxLogs ?? this.options.maxLogs;
    const out: LogEntry[] = [];
    const rows = this.store.iterate(new Uint8Array([PREFIXES.logIndex]), {
      start: prefixedKey(PREFIXES.logIndex, u64Key(filter.fromBlock)),
      end: prefixedKey(PREFIXES.logIndex, u64Key(filter.toBlock + 1n)),
    });
    for (const [key, raw] of rows) {
      if (!matcher.bloom(raw)) continue;
      const entry = decodeLogIndex(raw);
      const number = readU64(key, 1);
      // One copy per block, shared by its logs (they are only read).
      const blockHash = entry.blockHash.slice();
      for (const tx of entry.txs) {
        tx.logs.forEach((log, i) => {
          if (!matcher.log(log.address, log.topics)) return;
          if (out.length >= max) {
            throw new BaseError("CHAIN_TOO_MANY_LOGS", `Cannot return logs: more than ${max} results`, {
              meta: { max },
            });
          }
          out.push({
            ...log,
            blockHash,
            blockNumber: number,
            blockTimestamp: entry.timestamp,
            transactionHash: tx.hash,
            transactionIndex: tx.index,
            logIndex: tx.logIndexStart + i,
            removed: false,
          });
        });
      }
    }
    return out;
  }
}

/** A compiled log filter: a bloom prefilter over an encoded log-index entry and an exact test. */
export interface Matcher {
  bloom(raw: Uint8Array): boolean;
  log(address: Uint8Array, topics: Uint8Array[]): boolean;
}

/** A membership test over byte strings: linear for a few, a hex set for many. */
function byteSet(items: Uint8Array[]): (v: Uint8Array) => boolean {
  if (items.length <= 8) return (v) => items.some((x) => equalBytes(x, v));
  const set = new Set(items.map(bytesToHex));
  return (v) => set.has(bytesToHex(v));
}

/** Precomputes bloom bits and lookup sets of a filter. */
export function compileFilter(filter: Pick<LogFilter, "addresses" | "topics">): Matcher {
  const addresses = filter.addresses ?? [];
  const topics = filter.topics ?? [];
  const addrBits = addresses.map(bloomBits);
  const addrIn = addresses.length > 0 ? byteSet(addresses) : undefined;
  const topicBits = topics.map((t) => (t === null || t.length === 0 ? null : t.map(bloomBits)));
  const topicIn = topics.map((t) => (t === null || t.length === 0 ? null : byteSet(t)));
  const off = LOG_INDEX_BLOOM_OFFSET;
  return {
    bloom(raw) {
      if (addrBits.length > 0 && !addrBits.some((b) => bloomHas(raw, b, off))) return false;
      for (const alts of topicBits) {
        if (alts !== null && !alts.some((b) => bloomHas(raw, b, off))) return false;
      }
      return true;
    },
    log(address, logTopics) {
      if (addrIn !== undefined && !addrIn(address)) return false;
      if (topicIn.length > logTopics.length) return false;
      for (let i = 0; i < topicIn.length; i++) {
        const has = topicIn[i];
        if (has !== null && !has(logTopics[i])) return false;
      }
      return true;
    },
  };
}
