/** The execution engine's public shapes: options, the pool it builds from, built blocks and head events, error codes. */
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Logger } from "../../common/logger.ts";
import type { KvStore, SqliteStoreOptions } from "../../db/mod.ts";
import type { Block } from "../../protocol/mod.ts";
import type { BlockRef, ChainStoreOptions, StoredReceipt } from "../chain/mod.ts";
import type { TxResult } from "../evm/mod.ts";
import type { Genesis, GenesisJson } from "../genesis/mod.ts";
import type { OnlinePruneOptions, RootWorkerChannel } from "../state/mod.ts";
import type { SendersWorkerChannel, TxPoolOptions } from "../txpool/mod.ts";

/** What the block builder needs of a transaction pool (the engine adapts its TxPool to it). */
export interface EngineTxPool {
  /** Executable transactions at `baseFee`, best first: peek, then shift (included) or pop (skip the account). */
  pending(baseFee: bigint): PendingTransactions;
  /** The canonical head moved: drop included transactions, take back those of removed blocks. */
  onNewHead(event: NewHeadsEvent): void | Promise<void>;
}

/** The builder's cursor over pending transactions (txpool `TransactionsByPriceAndNonce`). */
export interface PendingTransactions {
  peek(): TypedTransaction | undefined;
  shift(): void;
  pop(): void;
}

/** A block with its hash and receipts, as announced to subscribers. */
export interface ChainBlock {
  hash: Uint8Array;
  block: Block;
  receipts: StoredReceipt[];
}

/** A canonical head change: `removed` highest first, `added` lowest first (as ChainStore reports them). */
export interface NewHeadsEvent {
  added: ChainBlock[];
  removed: ChainBlock[];
  head: BlockRef;
}

/** A block built on a parent, executed but not yet stored. */
export interface BuiltBlock {
  block: Block;
  hash: Uint8Array;
  receipts: StoredReceipt[];
  results: TxResult[];
  /** Priority fees paid to the fee recipient (engine_getPayload `blockValue`). */
  blockValue: bigint;
  /** Pool transactions skipped because they failed (their accounts were skipped for this block). */
  skipped: number;
  /** EIP-7685 requests of an L1 block from Prague (engine_getPayloadV4 `executionRequests`). */
  requests?: Uint8Array[];
  /** Made head, safe and finalized with it (BuildOptions.head). */
  head?: boolean;
}

export interface BuildOptions {
  /** Stop taking pool transactions after this many (default: no limit). */
  maxPoolTxs?: number;
  /** The block's base fee instead of the EIP-1559 one (dev mode: anvil_setNextBlockBaseFeePerGas). */
  baseFeePerGas?: bigint;
  /**
   * Dev mode: make the block head, safe and finalized in the write that stores it (one commit a block
   * instead of two); "withPoolTxs" only when it took pool transactions (an empty automine block is
   * stored but not adopted).
   */
  head?: "always" | "withPoolTxs";
  /**
   * Transactions tried after the attributes' ones (before the pool's), each left out of the block when
   * it cannot be applied, as pool transactions are (dev mode: the blocks anvil_reorg mines).
   */
  candidates?: Uint8Array[];
}

export interface ExecutionEngineOptions {
  /** Data directory holding keel.sqlite; ignored when `store` is given. */
  dataDir?: string;
  /** An open store to use (the engine does not close it); a MemoryStore when neither is given. */
  store?: KvStore;
  /**
   * The genesis (parsed, or op-geth genesis.json content). Optional for a database initialised from a
   * genesis.json (`keel execution init`): its chain config is kept in the database.
   */
  genesis?: Genesis | GenesisJson;
  chain?: Partial<ChainStoreOptions>;
  sqlite?: Partial<SqliteStoreOptions>;
  /** Transaction pool options (DEFAULT_TXPOOL_OPTIONS; DEV_TXPOOL_OPTIONS for --dev). */
  txpool?: Partial<TxPoolOptions>;
  /**
   * Compute imported blocks' state roots on a second thread while their transactions execute
   * (state/root_task.ts; only with a sqlite file). Default true.
   */
  stateRootWorker?: boolean;
  /**
   * Record the address and storage slot of everything the state is written under (state/preimages.ts;
   * dev mode, for anvil_dumpState). Takes effect only for a database whose genesis is written now.
   */
  preimages?: boolean;
  /**
   * "full" (geth's --gcmode default): the state of the recent blocks is kept and older states are
   * pruned as the chain grows (state/online_prune.ts; a sqlite file only). "archive" (the default here):
   * every state is kept.
   */
  gcMode?: "full" | "archive";
  /** Online pruning's parameters (DEFAULT_ONLINE_PRUNE_OPTIONS). */
  prune?: Partial<OnlinePruneOptions>;
  /**
   * Dev mode: the contract code size limit in bytes instead of EIP-170's 24,576, the initcode limit
   * twice it (ChainConfig.codeSizeLimit; anvil --code-size-limit). Not stored: it holds while set.
   */
  codeSizeLimit?: number;
}

export interface ExecutionEngineDeps {
  logger?: Logger;
  /** Replaces the builder's view of the engine's TxPool (e.g. a pool kept elsewhere). */
  pool?: EngineTxPool;
  /** Unix seconds, for the pending block's timestamp (pool rules); default the wall clock. */
  now?: () => number;
  /**
   * Asks another thread for the state-root worker (lib/node/threads.ts; called when the first block is
   * imported); without it the engine starts its own.
   */
  stateRootChannel?: () => RootWorkerChannel;
  /** The same for the sender-recovery helper of block import. */
  sendersChannel?: () => SendersWorkerChannel;
}

/** Error codes of the engine (the Engine API maps them to statuses and JSON-RPC errors). */
export const ENGINE_ERRORS = {
  GENESIS_MISMATCH: "ENGINE_GENESIS_MISMATCH",
  NO_GENESIS: "ENGINE_NO_GENESIS",
  UNKNOWN_BLOCK: "ENGINE_UNKNOWN_BLOCK",
  UNKNOWN_PARENT: "ENGINE_UNKNOWN_PARENT",
  INVALID_ATTRIBUTES: "ENGINE_INVALID_ATTRIBUTES",
  INVALID_FORKCHOICE: "ENGINE_INVALID_FORKCHOICE",
  CLOSED: "ENGINE_CLOSED",
} as const;
