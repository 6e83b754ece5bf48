/**
 * The transaction pool's options (geth legacypool DefaultConfig; op-geth additions), what it needs from
 * the chain (PoolHead, TxPoolDeps) and the shapes it answers with.
 */
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { KZG } from "@ethereumjs/util";
import type { Hex } from "../../common/bytes.ts";

/** The chain's rules at the pending block, as the pool needs them. */
export interface PoolHead {
  chainId: bigint;
  /** Gas limit of the pending block. */
  gasLimit: bigint;
  /** Base fee of the next block. */
  nextBaseFee: bigint;
  /** Transaction types allowed now: 0, 1, 2 always; 3 on plain chains from Cancun, never on L2; 4 from Prague / Isthmus. */
  allowedTypes: ReadonlySet<number>;
  timestamp: bigint;
  /** EIP-3860 initcode rules (Shanghai; Canyon on OP). */
  isShanghai: boolean;
  /** EIP-3860 MAX_INITCODE_SIZE (49,152; dev mode's --dev.code-size-limit doubled). Default 49,152. */
  maxInitCodeSize?: number;
  /** EIP-7623 calldata floor (Prague; Isthmus on OP). */
  isPrague: boolean;
}

/** An account as the pool reads it at the head state. */
export interface PoolAccount {
  nonce: bigint;
  balance: bigint;
  /** The account's code, when it has code (absent for an account without). */
  code?: Uint8Array;
}

/** What the pool needs from the chain; the composition root wires it. */
export interface TxPoolDeps {
  /** Account nonce and balance at the current head state, and its code when it has any. */
  getAccount(address: Uint8Array): Promise<PoolAccount>;
  /** The chain's rules at the pending block. */
  head(): PoolHead;
  /** The L1 data fee (+ operator fee upper bound) the tx would pay at the pending block; 0n on L1. */
  l1Cost(tx: TypedTransaction): Promise<bigint> | bigint;
  /** The Common raw transactions are decoded with; default: Prague rules at head().chainId. */
  common?: () => Common;
  /** Milliseconds since the epoch; default Date.now. */
  clock?: () => number;
  /**
   * Recovers a transaction's sender into its cache before validation, e.g. a SenderRecovery
   * running ecrecover in Workers; without it the pool recovers on the calling thread.
   */
  senderRecovery?: { recover(tx: TypedTransaction): Promise<void> };
  /**
   * The KZG implementation blob sidecars are verified with (plain chains from Cancun); default the
   * lazily loaded evm `loadKzg`.
   */
  kzg?: () => Promise<KZG>;
}

export interface TxPoolOptions {
  /** Minimum fee bump in percent for replacing a transaction (both fee cap and tip). */
  priceBump: bigint;
  /** Executable slots guaranteed per account before global pending truncation touches it. */
  accountSlots: number;
  /** Maximum executable slots for all accounts. */
  globalSlots: number;
  /** Maximum non-executable (gapped) transactions per account. */
  accountQueue: number;
  /** Maximum non-executable transactions for all accounts. */
  globalQueue: number;
  /** How long an account's queued transactions are kept without activity, in ms. */
  lifetimeMs: number;
  /** Largest accepted transaction, in bytes of its encoding. */
  maxTxSize: number;
  /** Minimum tip per gas a transaction must offer. */
  minTip: bigint;
  /** Gas of the pending block not available to pool transactions (op-geth: the L1-info deposit). */
  gasLimitReserve: bigint;
  /** Accept legacy transactions without EIP-155 replay protection. */
  allowUnprotectedTxs: boolean;
  /** Refuse new transactions whose fee cap is below the next block's base fee. */
  rejectFeeCapBelowBaseFee: boolean;
  /** Blobs of included transactions kept so a reorg can return them to the pool (plain chains). */
  blobLimbo: number;
  /** geth --txpool.nolocals: transactions sent through this node's RPC are not treated as local. */
  noLocals: boolean;
}

/** One transaction slot is 32 KiB (geth legacypool `txSlotSize`). */
export const TX_SLOT_SIZE = 32 * 1024;

export const DEFAULT_TXPOOL_OPTIONS: Readonly<TxPoolOptions> = {
  priceBump: 10n, // geth legacypool DefaultConfig.PriceBump
  accountSlots: 16, // geth legacypool DefaultConfig.AccountSlots
  globalSlots: 4096 + 1024, // geth legacypool DefaultConfig.GlobalSlots ("urgent + floating queue capacity")
  accountQueue: 64, // geth legacypool DefaultConfig.AccountQueue
  globalQueue: 1024, // geth legacypool DefaultConfig.GlobalQueue
  lifetimeMs: 3 * 60 * 60 * 1000, // geth legacypool DefaultConfig.Lifetime (3 hours)
  maxTxSize: 4 * TX_SLOT_SIZE, // geth legacypool txMaxSize: 4 slots, 128 KiB
  minTip: 1n, // geth legacypool DefaultConfig.PriceLimit (--txpool.pricelimit)
  gasLimitReserve: 70_000n, // op-geth core/txpool/validation.go l1InfoGasOverhead; 0n on L1
  allowUnprotectedTxs: false, // geth --rpc.allow-unprotected-txs
  rejectFeeCapBelowBaseFee: true, // anvil's rule; geth keeps such txs queued for a lower base fee
  blobLimbo: 64, // 8 MiB of blobs, about seven full Prague blocks (geth's blobpool limbo keeps them to finality)
  noLocals: false, // geth legacypool DefaultConfig.NoLocals
};

/** The dev chain's pool: as the default, with no minimum tip (`keel execution --dev`). */
export const DEV_TXPOOL_OPTIONS: Readonly<TxPoolOptions> = { ...DEFAULT_TXPOOL_OPTIONS, minTip: 0n };

/** Options of one add. */
export interface AddOptions {
  /** Submitted through this node's RPC: never evicted for remote transactions. */
  local?: boolean;
}

/** What a new head did to the chain: transactions now included, and those of dropped blocks. */
export interface NewHeadEvent {
  included: readonly (TypedTransaction | Uint8Array | Hex)[];
  removed?: readonly TypedTransaction[];
}

export interface TxPoolStatus {
  pending: number;
  queued: number;
}

export interface TxPoolContent {
  pending: Map<Hex, Map<bigint, TypedTransaction>>;
  queued: Map<Hex, Map<bigint, TypedTransaction>>;
}

export type PendingListener = (tx: TypedTransaction, hash: Hex) => void;
