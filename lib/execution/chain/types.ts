/** Data types of the persistent chain (execution/chain). Inside: bigint and bytes. */
import type { Log, Receipt } from "../../protocol/receipt.ts";

/** A pointer to a block: enough to walk the chain and to tell a reorg. */
export interface BlockRef {
  hash: Uint8Array;
  number: bigint;
  parentHash: Uint8Array;
  timestamp: bigint;
}

/**
 * The consensus receipt plus the per-transaction data the RPC needs and cannot cheaply recompute.
 * OP fields (specs/protocol/exec-engine.md, receipts; deposits.md "Deposit Receipt"): `l1*` for
 * non-deposit txs (l1FeeScalar is a decimal string before Ecotone; l1BaseFeeScalar,
 * l1BlobBaseFee, l1BlobBaseFeeScalar from Ecotone; operatorFee* from Isthmus). depositNonce and
 * depositReceiptVersion are on Receipt.
 */
export interface StoredReceipt extends Receipt {
  gasUsed: bigint;
  contractAddress: Uint8Array | null;
  from: Uint8Array;
  to: Uint8Array | null;
  effectiveGasPrice: bigint;
  txHash: Uint8Array;
  /** Block-wide index of this receipt's first log. */
  logIndexStart: number;
  l1GasUsed?: bigint;
  l1GasPrice?: bigint;
  l1Fee?: bigint;
  l1FeeScalar?: string;
  l1BaseFeeScalar?: bigint;
  l1BlobBaseFee?: bigint;
  l1BlobBaseFeeScalar?: bigint;
  operatorFeeScalar?: bigint;
  operatorFeeConstant?: bigint;
  /** From Jovian (jovian/exec-engine.md): the block's DA footprint gas scalar. */
  daFootprintGasScalar?: bigint;
  /** Jovian: the transaction's DA footprint; plain chains: a blob transaction's blob gas (EIP-4844). */
  blobGasUsed?: bigint;
  /** Plain chains: the blob base fee a blob transaction paid (EIP-4844). */
  blobGasPrice?: bigint;
}

/** The head labels the chain persists. */
export type HeadLabel = "latest" | "safe" | "finalized";

/** Where a canonical transaction is. */
export interface TxLocation {
  blockHash: Uint8Array;
  blockNumber: bigint;
  index: number;
}

/** A log with its position, as eth_getLogs returns it. */
export interface LogEntry extends Log {
  blockHash: Uint8Array;
  blockNumber: bigint;
  blockTimestamp: bigint;
  transactionHash: Uint8Array;
  transactionIndex: number;
  logIndex: number;
  removed: boolean;
}

/**
 * An eth_getLogs filter over canonical blocks (tags already resolved by the caller).
 * `topics[i]`: null = any; an array = any of those (OR); positions are ANDed. A log with fewer
 * topics than `topics.length` never matches (as geth).
 */
export interface LogFilter {
  fromBlock: bigint;
  toBlock: bigint;
  /** Any of these addresses; empty or omitted = any address. */
  addresses?: Uint8Array[];
  topics?: (Uint8Array[] | null)[];
  /** Stop with CHAIN_TOO_MANY_LOGS beyond this many results. */
  maxLogs?: number;
}

/** What a canonical-head change did, so the caller can emit removed logs and re-pool txs. */
export interface ReorgResult {
  /** Blocks no longer canonical, highest first. */
  removed: BlockRef[];
  /** Blocks newly canonical, lowest first. */
  added: BlockRef[];
}

export interface PutBlockMeta {
  /** The block hash when already known (skips hashing the header). */
  hash?: Uint8Array;
  /** Total difficulty up to and including this block, for an anchor block whose parent is absent. */
  totalDifficulty?: bigint;
}
