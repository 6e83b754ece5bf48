/**
 * The rollup node's view of L1 over JSON-RPC (op-node's L1Client): block references by label, number
 * or hash, headers, blocks with their transactions, and receipts.
 *
 * Unless the RPC is trusted (`--l1.trustrpc`), what it returns is checked as op-node does where it
 * matters to derivation: a header's hash is recomputed from its fields (RLP of every field of its
 * fork), a block's transactions must belong to it (block hash and number of each) and each
 * transaction's fields must hash to its hash with the sender recovered from its signature
 * (l1_tx.ts), and receipts must belong to the block.
 */
import { bytesToHex, equalBytes, fromQuantity, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { Lru } from "../../common/lru.ts";
import type { JsonRpcClient } from "../../common/json_rpc_client.ts";
import { hashHeader, type Header } from "../../protocol/block.ts";
import type { L1BlockRef, L1Header } from "../../protocol/block_ref.ts";
import type { L1Receipt } from "../../protocol/deposit_event.ts";
import { type L1Tx, type RpcTransaction, verifyL1Tx } from "./l1_tx.ts";

export type L1BlockLabel = "latest" | "safe" | "finalized";

/** A header object of the Ethereum JSON-RPC (hex strings). */
export interface RpcHeader {
  hash: string;
  parentHash: string;
  sha3Uncles: string;
  miner: string;
  stateRoot: string;
  transactionsRoot: string;
  receiptsRoot: string;
  logsBloom: string;
  difficulty: string;
  number: string;
  gasLimit: string;
  gasUsed: string;
  timestamp: string;
  extraData: string;
  mixHash: string;
  nonce: string;
  baseFeePerGas?: string;
  withdrawalsRoot?: string;
  blobGasUsed?: string;
  excessBlobGas?: string;
  parentBeaconBlockRoot?: string;
  requestsHash?: string;
}

interface RpcBlock extends RpcHeader {
  transactions: (RpcTransaction & { blockHash?: string; blockNumber?: string })[];
}

interface RpcReceipt {
  status: string;
  blockHash: string;
  transactionIndex: string;
  logs: { address: string; topics: string[]; data: string }[];
}

export interface L1ClientOptions {
  /** Take the RPC's data without verification (op-node --l1.trustrpc). */
  trustRpc: boolean;
  /**
   * The L1 endpoint's kind (--l1.rpckind): "basic" endpoints are asked for receipts one transaction at a
   * time (eth_getTransactionReceipt, batched); the others for the block's receipts at once.
   */
  rpcKind: string;
  /** Calls per batch at most (--l1.rpc-max-batch-size). */
  maxBatchSize: number;
  /**
   * Blocks whose header, transactions and receipts are kept by hash (--l1.cache-size; a block's content
   * never changes under its hash); 0 keeps nothing.
   */
  cacheSize: number;
}

export const DEFAULT_L1_CLIENT_OPTIONS: L1ClientOptions = {
  trustRpc: false,
  rpcKind: "standard",
  maxBatchSize: 20,
  cacheSize: 0,
};

/** The header of an RPC header object (all fields of its fork). */
export function headerFromRpc(h: RpcHeader): Header {
  const opt = (v: string | undefined) => (v === undefined ? undefined : fromQuantity(v));
  const optBytes = (v: string | undefined) => (v === undefined ? undefined : hexToBytes(v));
  return {
    parentHash: hexToBytes(h.parentHash),
    ommersHash: hexToBytes(h.sha3Uncles),
    coinbase: hexToBytes(h.miner),
    stateRoot: hexToBytes(h.stateRoot),
    transactionsRoot: hexToBytes(h.transactionsRoot),
    receiptsRoot: hexToBytes(h.receiptsRoot),
    logsBloom: hexToBytes(h.logsBloom),
    difficulty: fromQuantity(h.difficulty),
    number: fromQuantity(h.number),
    gasLimit: fromQuantity(h.gasLimit),
    gasUsed: fromQuantity(h.gasUsed),
    timestamp: fromQuantity(h.timestamp),
    extraData: hexToBytes(h.extraData),
    mixHash: hexToBytes(h.mixHash),
    nonce: hexToBytes(h.nonce),
    baseFeePerGas: opt(h.baseFeePerGas),
    withdrawalsRoot: optBytes(h.withdrawalsRoot),
    blobGasUsed: opt(h.blobGasUsed),
    excessBlobGas: opt(h.excessBlobGas),
    parentBeaconBlockRoot: optBytes(h.parentBeaconBlockRoot),
    requestsHash: optBytes(h.requestsHash),
  };
}

export class L1Client {
  readonly rpc: JsonRpcClient;
  readonly options: L1ClientOptions;

  readonly #headers: Lru<string, L1Header>;
  readonly #blocks: Lru<string, { header: L1Header; txs: L1Tx[] }>;
  readonly #receipts: Lru<string, L1Receipt[]>;

  constructor(rpc: JsonRpcClient, options: Partial<L1ClientOptions> = {}) {
    this.rpc = rpc;
    this.options = { ...DEFAULT_L1_CLIENT_OPTIONS, ...options };
    const size = Math.max(0, this.options.cacheSize);
    this.#headers = new Lru(size);
    this.#blocks = new Lru(size);
    this.#receipts = new Lru(size);
  }

  #header(h: RpcHeader | null, what: string): L1Header {
    if (h === null) throw new BaseError("L1_NOT_FOUND", `Cannot find L1 block ${what}`, { meta: { what } });
    const header = headerFromRpc(h);
    const hash = hexToBytes(h.hash);
    if (!this.options.trustRpc && !equalBytes(hashHeader(header), hash)) {
      throw new BaseError(
        "L1_INVALID",
        `Cannot trust L1 block ${what}: its header hashes to ${
          bytesToHex(hashHeader(header))
        }, not ${h.hash}`,
      );
    }
    return {
      hash,
      number: header.number,
      parentHash: header.parentHash,
      timestamp: header.timestamp,
      baseFeePerGas: header.baseFeePerGas ?? 0n,
      mixHash: header.mixHash,
      excessBlobGas: header.excessBlobGas,
      blobGasUsed: header.blobGasUsed,
      parentBeaconBlockRoot: header.parentBeaconBlockRoot,
    };
  }

  /** The header of a labelled, numbered or hashed block. */
  async header(at: L1BlockLabel | bigint | Uint8Array): Promise<L1Header> {
    const what = at instanceof Uint8Array ? bytesToHex(at) : String(at);
    if (at instanceof Uint8Array) {
      const cached = this.#headers.get(what) ?? this.#blocks.get(what)?.header;
      if (cached !== undefined) return cached;
    }
    const h = at instanceof Uint8Array
      ? await this.rpc.call<RpcHeader | null>("eth_getBlockByHash", [what, false])
      : await this.rpc.call<RpcHeader | null>("eth_getBlockByNumber", [
        typeof at === "bigint" ? `0x${at.toString(16)}` : at,
        false,
      ]);
    const header = this.#header(h, what);
    this.#headers.set(bytesToHex(header.hash), header);
    return header;
  }

  /** The reference of a labelled, numbered or hashed block. */
  async blockRef(at: L1BlockLabel | bigint | Uint8Array): Promise<L1BlockRef> {
    const { hash, number, parentHash, timestamp } = await this.header(at);
    return { hash, number, parentHash, timestamp };
  }

  /** A block's header and transactions (senders verified unless trusted). */
  async blockWithTxs(hash: Uint8Array): Promise<{ header: L1Header; txs: L1Tx[] }> {
    const what = bytesToHex(hash);
    const cached = this.#blocks.get(what);
    if (cached !== undefined) return cached;
    const b = await this.rpc.call<RpcBlock | null>("eth_getBlockByHash", [what, true]);
    const header = this.#header(b, what);
    if (!equalBytes(header.hash, hash)) {
      throw new BaseError("L1_INVALID", `Cannot trust L1 block ${what}: the RPC returned block ${b!.hash}`);
    }
    const txs = b!.transactions.map((t) => {
      if (!this.options.trustRpc && t.blockHash !== undefined && t.blockHash.toLowerCase() !== what) {
        throw new BaseError(
          "L1_INVALID",
          `Cannot trust L1 block ${what}: transaction ${t.hash} is of block ${t.blockHash}`,
        );
      }
      if (this.options.trustRpc) {
        return {
          hash: hexToBytes(t.hash),
          type: t.type === undefined ? 0 : Number(fromQuantity(t.type)),
          from: hexToBytes(t.from ?? "0x"),
          to: t.to === null || t.to === undefined ? null : hexToBytes(t.to),
          input: hexToBytes(t.input),
          blobVersionedHashes: (t.blobVersionedHashes ?? []).map(hexToBytes),
        };
      }
      return verifyL1Tx(t);
    });
    const block = { header, txs };
    this.#blocks.set(what, block);
    return block;
  }

  /** A block's transaction receipts, one call each, in batches of --l1.rpc-max-batch-size ("basic" endpoints). */
  async #receiptsOneByOne(what: string): Promise<RpcReceipt[] | null> {
    const block = await this.rpc.call<{ transactions: string[] } | null>("eth_getBlockByHash", [what, false]);
    if (block === null) return null;
    const out: RpcReceipt[] = [];
    const size = Math.max(1, this.options.maxBatchSize);
    for (let i = 0; i < block.transactions.length; i += size) {
      const calls = block.transactions.slice(i, i + size).map((h) => ({
        method: "eth_getTransactionReceipt",
        params: [h],
      }));
      const got = await this.rpc.batch<RpcReceipt | null>(calls);
      for (const r of got) {
        if (r === null) return null;
        out.push(r);
      }
    }
    return out;
  }

  /** A block's receipts, in transaction order (eth_getBlockReceipts; per transaction for "basic" endpoints). */
  async receipts(hash: Uint8Array): Promise<L1Receipt[]> {
    const what = bytesToHex(hash);
    const cached = this.#receipts.get(what);
    if (cached !== undefined) return cached;
    const list = this.options.rpcKind === "basic"
      ? await this.#receiptsOneByOne(what)
      : await this.rpc.call<RpcReceipt[] | null>("eth_getBlockReceipts", [what]);
    if (list === null) throw new BaseError("L1_NOT_FOUND", `Cannot find the receipts of L1 block ${what}`);
    const receipts = list.map((r, i): L1Receipt => {
      if (
        !this.options.trustRpc &&
        (r.blockHash.toLowerCase() !== what || Number(fromQuantity(r.transactionIndex)) !== i)
      ) {
        throw new BaseError(
          "L1_INVALID",
          `Cannot trust the receipts of L1 block ${what}: receipt ${i} is not the block's`,
        );
      }
      return {
        status: fromQuantity(r.status) === 1n ? 1 : 0,
        logs: r.logs.map((l) => ({
          address: hexToBytes(l.address),
          topics: l.topics.map(hexToBytes),
          data: hexToBytes(l.data),
        })),
      };
    });
    this.#receipts.set(what, receipts);
    return receipts;
  }
}
