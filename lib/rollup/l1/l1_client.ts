/**
 * The rollup node's view of L1 over JSON-RPC (op-node's L1Client): block references by label, number
 * or hash, headers, blocks with their transactions, and receipts.
 *
 * Unless the RPC is trusted (`--l1.trustrpc`), what it returns is checked as op-node does where it
 * matters to derivation: a header's hash is recomputed from its fields (RLP of every field of its
 * fork); a block's transactions must belong to it (block hash of each), each transaction's fields must
 * hash to its hash with the sender recovered from its signature (l1_tx.ts), and the ordered trie root
 * of their encodings must be the header's transactionsRoot (op-service/sources/types.go
 * `RPCBlock.verify`); a block's receipts must be one per transaction, belong to the block, and the
 * ordered trie root of their consensus encodings must be the header's receiptsRoot
 * (op-service/sources/receipts.go `validateReceipts`). So no transaction or log can be dropped,
 * inserted, reordered or changed.
 *
 * Receipts are fetched with the method `--l1.rpckind` prefers (l1_receipts.ts).
 */
import { bytesToHex, equalBytes, fromQuantity, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { Lru } from "../../common/lru.ts";
import { rlpDecode, rlpEncode } from "../../common/rlp.ts";
import type { JsonRpcClient } from "../../common/json_rpc_client.ts";
import { hashHeader, type Header } from "../../protocol/block.ts";
import type { L1BlockRef, L1Header } from "../../protocol/block_ref.ts";
import type { L1Receipt } from "../../protocol/deposit_event.ts";
import { orderedTrieRoot } from "../../protocol/ordered_trie.ts";
import { type L1Tx, type RpcTransaction, verifyL1TxEncoded } from "./l1_tx.ts";
import {
  decodeRawReceipt,
  type FetchedReceipt,
  isUnusableMethodError,
  parseRpcReceipt,
  pickReceiptsMethod,
  type ReceiptsMethod,
  receiptsMethodsOf,
  type RpcReceipt,
} from "./l1_receipts.ts";

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

/** A block object without full transactions (their hashes only). */
interface RpcHeaderWithTxHashes extends RpcHeader {
  transactions?: string[];
}

/** What checking and fetching a block's receipts needs of the block. */
interface BlockInfo {
  number: bigint;
  receiptsRoot: Uint8Array;
  txHashes: string[];
}

/**
 * Blocks whose BlockInfo is kept whatever --l1.cache-size says: derivation reads a block's header or
 * transactions and then its receipts, and the receipts' check should not fetch the block again.
 */
const BLOCK_INFO_CACHE_SIZE = 64;

export interface L1ClientOptions {
  /** Take the RPC's data without verification (op-node --l1.trustrpc). */
  trustRpc: boolean;
  /**
   * The L1 endpoint's kind (--l1.rpckind), which picks the receipt-fetching methods (l1_receipts.ts):
   * "basic" and "infura" endpoints are asked one transaction at a time (eth_getTransactionReceipt,
   * batched); the others for the block's receipts at once, by their methods, falling back to the next.
   */
  rpcKind: string;
  /** Milliseconds after which receipt methods set aside as unusable are tried again (op-node: 1 minute). */
  receiptsMethodResetMs: number;
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
  receiptsMethodResetMs: 60_000,
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
  readonly #infos = new Lru<string, BlockInfo>(BLOCK_INFO_CACHE_SIZE);
  /** The receipt methods not (yet) found unusable, and since when. */
  #methods: Set<ReceiptsMethod>;
  #methodsSince = performance.now();

  constructor(rpc: JsonRpcClient, options: Partial<L1ClientOptions> = {}) {
    this.rpc = rpc;
    this.options = { ...DEFAULT_L1_CLIENT_OPTIONS, ...options };
    const size = Math.max(0, this.options.cacheSize);
    this.#headers = new Lru(size);
    this.#blocks = new Lru(size);
    this.#receipts = new Lru(size);
    this.#methods = receiptsMethodsOf(this.options.rpcKind);
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

  /** Keeps what the receipts of a block (whose header `#header` accepted) need. */
  #remember(header: L1Header, h: RpcHeader, txHashes: string[] | undefined): void {
    if (txHashes === undefined) return;
    this.#infos.set(bytesToHex(header.hash), {
      number: header.number,
      receiptsRoot: hexToBytes(h.receiptsRoot),
      txHashes,
    });
  }

  /** The header of a labelled, numbered or hashed block. */
  async header(at: L1BlockLabel | bigint | Uint8Array): Promise<L1Header> {
    const what = at instanceof Uint8Array ? bytesToHex(at) : String(at);
    if (at instanceof Uint8Array) {
      const cached = this.#headers.get(what) ?? this.#blocks.get(what)?.header;
      if (cached !== undefined) return cached;
    }
    const h = at instanceof Uint8Array
      ? await this.rpc.call<RpcHeaderWithTxHashes | null>("eth_getBlockByHash", [what, false])
      : await this.rpc.call<RpcHeaderWithTxHashes | null>("eth_getBlockByNumber", [
        typeof at === "bigint" ? `0x${at.toString(16)}` : at,
        false,
      ]);
    const header = this.#header(h, what);
    this.#headers.set(bytesToHex(header.hash), header);
    this.#remember(header, h!, h!.transactions);
    return header;
  }

  /** The reference of a labelled, numbered or hashed block. */
  async blockRef(at: L1BlockLabel | bigint | Uint8Array): Promise<L1BlockRef> {
    const { hash, number, parentHash, timestamp } = await this.header(at);
    return { hash, number, parentHash, timestamp };
  }

  /** A block's header and transactions (senders and transactions root verified unless trusted). */
  async blockWithTxs(hash: Uint8Array): Promise<{ header: L1Header; txs: L1Tx[] }> {
    const what = bytesToHex(hash);
    const cached = this.#blocks.get(what);
    if (cached !== undefined) return cached;
    const b = await this.rpc.call<RpcBlock | null>("eth_getBlockByHash", [what, true]);
    const header = this.#header(b, what);
    if (!equalBytes(header.hash, hash)) {
      throw new BaseError("L1_INVALID", `Cannot trust L1 block ${what}: the RPC returned block ${b!.hash}`);
    }
    const encoded: Uint8Array[] = [];
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
      const verified = verifyL1TxEncoded(t);
      encoded.push(verified.encoded);
      return verified.tx;
    });
    if (!this.options.trustRpc) {
      const want = hexToBytes(b!.transactionsRoot);
      const root = orderedTrieRoot(encoded);
      if (!equalBytes(root, want) && !(await this.#pooledBlobsRootIs(want, b!.transactions, encoded))) {
        throw new BaseError(
          "L1_INVALID",
          `Cannot trust L1 block ${what}: its ${txs.length} transactions have root ${
            bytesToHex(root)
          }, the header says ${b!.transactionsRoot}`,
        );
      }
    }
    const block = { header, txs };
    this.#blocks.set(what, block);
    this.#remember(header, b!, b!.transactions.map((t) => t.hash));
    return block;
  }

  /**
   * Whether the block's transactions root is `want` with its blob transactions as their pooled
   * (network) encodings, `0x03 || rlp([tx, (version,) blobs, commitments, proofs])`, each holding exactly
   * the transaction verified (`encoded`). anvil up to 1.7.1 commits blocks so (foundry issue 15132, fixed
   * after 1.7.1); a canonical L1 never does, and the root still fixes every transaction and its place.
   * The pooled forms are asked for only when the canonical root did not match and a blob transaction is
   * there (eth_getRawTransactionByHash, which anvil answers with the pooled form).
   */
  async #pooledBlobsRootIs(want: Uint8Array, txs: RpcTransaction[], encoded: Uint8Array[]): Promise<boolean> {
    const blobs = txs.flatMap((t, i) => (t.type !== undefined && fromQuantity(t.type) === 3n ? [i] : []));
    if (blobs.length === 0) return false;
    const raws = await this.rpc.batch<string | null>(
      blobs.map((i) => ({ method: "eth_getRawTransactionByHash", params: [txs[i].hash] })),
    );
    const leaves = encoded.slice();
    for (let k = 0; k < blobs.length; k++) {
      const i = blobs[k];
      if (raws[k] === null) return false;
      const raw = hexToBytes(raws[k]!);
      if (raw[0] !== 3) return false;
      let inner: Uint8Array;
      try {
        const wrapper = rlpDecode(raw.subarray(1));
        if (!Array.isArray(wrapper) || wrapper.length < 4 || !Array.isArray(wrapper[0])) return false;
        inner = rlpEncode(wrapper[0]);
      } catch {
        return false;
      }
      if (!equalBytes(inner, encoded[i].subarray(1))) return false;
      leaves[i] = raw;
    }
    return equalBytes(orderedTrieRoot(leaves), want);
  }

  /** The block's receipts root, number and transaction hashes (from its header, verified unless trusted). */
  async #blockInfo(what: string): Promise<BlockInfo> {
    const known = this.#infos.get(what);
    if (known !== undefined) return known;
    const h = await this.rpc.call<RpcHeaderWithTxHashes | null>("eth_getBlockByHash", [what, false]);
    const header = this.#header(h, what);
    if (bytesToHex(header.hash) !== what) {
      throw new BaseError("L1_INVALID", `Cannot trust L1 block ${what}: the RPC returned block ${h!.hash}`);
    }
    if (!Array.isArray(h!.transactions)) {
      throw new BaseError(
        "L1_INVALID",
        `Cannot trust L1 block ${what}: the RPC returned no transaction list`,
      );
    }
    this.#headers.set(what, header);
    const info = {
      number: header.number,
      receiptsRoot: hexToBytes(h!.receiptsRoot),
      txHashes: h!.transactions,
    };
    this.#infos.set(what, info);
    return info;
  }

  /** A block's transaction receipts, one call each, in batches of --l1.rpc-max-batch-size. */
  async #receiptsOneByOne(txHashes: string[]): Promise<RpcReceipt[] | null> {
    const out: RpcReceipt[] = [];
    const size = Math.max(1, this.options.maxBatchSize);
    for (let i = 0; i < txHashes.length; i += size) {
      const calls = txHashes.slice(i, i + size).map((h) => ({
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

  /** A block's receipts by one method (null: the RPC does not know the block). */
  async #receiptsBy(
    method: ReceiptsMethod,
    what: string,
    info: () => Promise<BlockInfo>,
  ): Promise<FetchedReceipt[] | null> {
    const encode = !this.options.trustRpc;
    const json = (list: RpcReceipt[] | null) =>
      list?.map((r, i) => parseRpcReceipt(r, encode, what, i)) ?? null;
    switch (method) {
      case "eth_getTransactionReceipt":
        return json(await this.#receiptsOneByOne((await info()).txHashes));
      case "alchemy_getTransactionReceipts": {
        // Alchemy takes a block object and wraps the list (op-node blockHashParameter, receiptsWrapper).
        const got = await this.rpc.call<{ receipts: RpcReceipt[] | null } | null>(method, [{
          blockHash: what,
        }]);
        return json(got?.receipts ?? null);
      }
      case "debug_getRawReceipts": {
        const raw = await this.rpc.call<string[] | null>(method, [what]);
        return raw?.map((r, i) => decodeRawReceipt(hexToBytes(r), what, i)) ?? null;
      }
      default: // eth_getBlockReceipts, erigon_getBlockReceiptsByBlockHash, parity_getBlockReceipts: [hash]
        return json(await this.rpc.call<RpcReceipt[] | null>(method, [what]));
    }
  }

  /**
   * A block's receipts by the best method the endpoint's kind still has; a method the endpoint turns
   * out not to serve is set aside (for receiptsMethodResetMs) and the next one tried at once.
   */
  async #fetchReceipts(what: string, info: () => Promise<BlockInfo>): Promise<FetchedReceipt[] | null> {
    const kind = this.options.rpcKind;
    if (performance.now() - this.#methodsSince > this.options.receiptsMethodResetMs) {
      this.#methods = receiptsMethodsOf(kind);
      this.#methodsSince = performance.now();
    }
    for (;;) {
      // Alchemy's and QuickNode's picks weigh the transaction count.
      const txCount = kind === "alchemy" || kind === "quicknode" ? (await info()).txHashes.length : 0;
      const method = pickReceiptsMethod(kind, this.#methods, txCount);
      try {
        return await this.#receiptsBy(method, what, info);
      } catch (e) {
        if (method === "eth_getTransactionReceipt" || !isUnusableMethodError(e)) throw e;
        this.#methods.delete(method);
      }
    }
  }

  /** Checks receipts against their block (op-node validateReceipts): one per transaction, the block's, its root. */
  #verifyReceipts(what: string, info: BlockInfo, list: FetchedReceipt[]): void {
    const bad = (reason: string) =>
      new BaseError("L1_INVALID", `Cannot trust the receipts of L1 block ${what}: ${reason}`);
    if (list.length !== info.txHashes.length) {
      throw bad(`${list.length} receipts for ${info.txHashes.length} transactions`);
    }
    list.forEach((r, i) => {
      const meta = r.rpc;
      if (meta === undefined) return; // a raw receipt: no metadata
      if (
        meta.blockHash?.toLowerCase() !== what ||
        meta.transactionIndex === undefined || Number(fromQuantity(meta.transactionIndex)) !== i ||
        (meta.blockNumber !== undefined && fromQuantity(meta.blockNumber) !== info.number)
      ) {
        throw bad(`receipt ${i} is not the block's`);
      }
    });
    const root = orderedTrieRoot(list.map((r) => r.encoded!));
    if (!equalBytes(root, info.receiptsRoot)) {
      throw bad(`their root is ${bytesToHex(root)}, the header says ${bytesToHex(info.receiptsRoot)}`);
    }
  }

  /**
   * A block's receipts, in transaction order, by the method --l1.rpckind picks (l1_receipts.ts); unless
   * trusted, checked against the block's header.
   */
  async receipts(hash: Uint8Array): Promise<L1Receipt[]> {
    const what = bytesToHex(hash);
    const cached = this.#receipts.get(what);
    if (cached !== undefined) return cached;
    let pending: Promise<BlockInfo> | undefined;
    const info = () => (pending ??= this.#blockInfo(what));
    // Untrusted: the block's header is fetched alongside (unless known).
    const [list, block] = await Promise.all([
      this.#fetchReceipts(what, info),
      this.options.trustRpc ? undefined : info(),
    ]);
    if (list === null) throw new BaseError("L1_NOT_FOUND", `Cannot find the receipts of L1 block ${what}`);
    if (block !== undefined) this.#verifyReceipts(what, block, list);
    const receipts = list.map((r) => r.receipt);
    this.#receipts.set(what, receipts);
    return receipts;
  }
}
