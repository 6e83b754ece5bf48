/**
 * The transaction pool: validation with go-ethereum's rules and messages, pending (executable)
 * and queued (gapped) transactions per account, replacement by fee bump, per-account and global
 * limits with price-based eviction, queued-transaction lifetime, head changes and reorgs, and
 * price-and-nonce ordering for the block builder. Modelled on geth `core/txpool/legacypool`;
 * the OP additions (L1 data fee in the balance check, the L1-info gas reserve, no deposits or
 * blob transactions) follow op-geth `core/txpool/validation.go` and the OP specs
 * (specs/protocol/exec-engine.md, deposits.md).
 */
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import { Capability } from "@ethereumjs/tx";
import type { Hex } from "../../common/bytes.ts";
import { encodingOf, rememberEncoding } from "../evm/mod.ts";
import { txPoolError } from "./errors.ts";
import { type OrderedCandidate, TransactionsByPriceAndNonce } from "./ordering.ts";
import {
  decodeRawTransaction,
  decodingCommon,
  effectiveTip,
  feeCap,
  floorDataGas,
  intrinsicGas,
  MAX_INITCODE_SIZE,
  MAX_UINT64,
  sharedTxCommon,
  tipCap,
  TX_TYPE,
  txCost,
} from "./validation.ts";

/** The chain's rules at the pending block, as the pool needs them. */
export interface PoolHead {
  chainId: bigint;
  /** Gas limit of the pending block. */
  gasLimit: bigint;
  /** Base fee of the next block. */
  nextBaseFee: bigint;
  /** Transaction types allowed now: 0, 1, 2 always; 3 never on L2; 4 from Prague / Isthmus. */
  allowedTypes: ReadonlySet<number>;
  timestamp: bigint;
  /** EIP-3860 initcode rules (Shanghai; Canyon on OP). */
  isShanghai: boolean;
  /** EIP-7623 calldata floor (Prague; Isthmus on OP). */
  isPrague: boolean;
}

/** What the pool needs from the chain; the composition root wires it. */
export interface TxPoolDeps {
  /** Account nonce and balance at the current head state. */
  getAccount(address: Uint8Array): Promise<{ nonce: bigint; balance: bigint }>;
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
};

/** The dev chain's pool: as the default, with no minimum tip (`keel execution --dev`). */
export const DEV_TXPOOL_OPTIONS: Readonly<TxPoolOptions> = { ...DEFAULT_TXPOOL_OPTIONS, minTip: 0n };

/** The eviction scan runs at most this often (geth legacypool evictionInterval, 1 minute). */
const EVICTION_INTERVAL_MS = 60_000;

interface PoolEntry {
  tx: TypedTransaction;
  hash: Hex;
  sender: Hex;
  nonce: bigint;
  feeCap: bigint;
  tipCap: bigint;
  /** value + gas * feeCap + L1 cost at admission. */
  cost: bigint;
  slots: number;
  local: boolean;
  seq: number;
  pending: boolean;
}

interface Account {
  address: Hex;
  bytes: Uint8Array;
  txs: Map<bigint, PoolEntry>;
  stateNonce: bigint;
  balance: bigint;
  /** First nonce after the contiguous run that starts at stateNonce. */
  pendingEnd: bigint;
  pendingCount: number;
  totalCost: bigint;
  lastActivity: number;
}

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

/**
 * Types the pool refuses: deposits always (op-geth: no unauthenticated deposits), blob
 * transactions always (refused on L2 by the OP specs; on L1 they need the sidecar checks of
 * geth's blobpool, which this pool does not have), and any type the fork does not allow.
 */
function refuseType(type: number, head: PoolHead): void {
  if (type === TX_TYPE.deposit || !head.allowedTypes.has(type)) {
    throw txPoolError("TX_TYPE_NOT_SUPPORTED", undefined, { type });
  }
  if (type === TX_TYPE.blob) {
    throw txPoolError("TX_TYPE_NOT_SUPPORTED", "blob transactions are not pooled", { type });
  }
}

function numSlots(size: number): number {
  return Math.ceil(size / TX_SLOT_SIZE);
}

/**
 * Hex with the runtime's native `toHex`: one flat string. (The common bytesToHex builds a rope two
 * characters at a time, which every Map lookup and JSON answer then flattens again.)
 */
function bytesToHex(bytes: Uint8Array): Hex {
  return `0x${bytes.toHex()}` as Hex;
}

function hashKey(hash: Uint8Array | Hex): Hex {
  return (typeof hash === "string" ? hash.toLowerCase() : bytesToHex(hash)) as Hex;
}

/** -1, 0, 1: how `a`'s price compares to `b`'s at `baseFee` (geth priceHeap.cmp). */
function comparePrice(a: PoolEntry, b: PoolEntry, baseFee: bigint): number {
  const ta = effectiveTip(a.tx, baseFee);
  const tb = effectiveTip(b.tx, baseFee);
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (a.feeCap !== b.feeCap) return a.feeCap < b.feeCap ? -1 : 1;
  if (a.tipCap !== b.tipCap) return a.tipCap < b.tipCap ? -1 : 1;
  return 0;
}

export class TxPool {
  readonly options: Readonly<TxPoolOptions>;
  readonly #deps: TxPoolDeps;
  readonly #clock: () => number;
  readonly #all = new Map<Hex, PoolEntry>();
  readonly #accounts = new Map<Hex, Account>();
  readonly #listeners = new Set<PendingListener>();
  #pendingCount = 0;
  #slots = 0;
  #pendingSlots = 0;
  #seq = 0;
  #lastEviction: number;

  constructor(options: Partial<TxPoolOptions>, deps: TxPoolDeps) {
    this.options = { ...DEFAULT_TXPOOL_OPTIONS, ...options };
    this.#deps = deps;
    this.#clock = deps.clock ?? Date.now;
    this.#lastEviction = this.#clock();
  }

  /**
   * Validate and insert a transaction (raw eth_sendRawTransaction bytes or a decoded one).
   * Resolves to its hash; rejects with a {@link BaseError} whose code is one of
   * TXPOOL_ERROR_CODES and whose message is geth's.
   */
  add(input: Uint8Array | TypedTransaction, options: AddOptions = {}): Promise<Hex> {
    return this.#add(input, options.local ?? false, false);
  }

  /** Subscribe to transactions becoming executable (eth_subscribe newPendingTransactions). */
  onPending(listener: PendingListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Counts for txpool_status. */
  status(): TxPoolStatus {
    return { pending: this.#pendingCount, queued: this.#all.size - this.#pendingCount };
  }

  /** Every transaction by sender and nonce (nonces ascending), for txpool_content / inspect. */
  content(): TxPoolContent {
    const pending = new Map<Hex, Map<bigint, TypedTransaction>>();
    const queued = new Map<Hex, Map<bigint, TypedTransaction>>();
    for (const account of this.#accounts.values()) {
      const nonces = [...account.txs.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (const nonce of nonces) {
        const entry = account.txs.get(nonce)!;
        const target = entry.pending ? pending : queued;
        let byNonce = target.get(account.address);
        if (byNonce === undefined) target.set(account.address, byNonce = new Map());
        byNonce.set(nonce, entry.tx);
      }
    }
    return { pending, queued };
  }

  /** A pooled transaction by hash. */
  get(hash: Uint8Array | Hex): TypedTransaction | undefined {
    return this.#all.get(hashKey(hash))?.tx;
  }

  /** The sender of a pooled transaction (recovered when it entered). */
  senderOf(hash: Uint8Array | Hex): Hex | undefined {
    return this.#all.get(hashKey(hash))?.sender;
  }

  has(hash: Uint8Array | Hex): boolean {
    return this.#all.has(hashKey(hash));
  }

  /** Whether the pooled transaction is executable now (pending) rather than queued. */
  isPending(hash: Uint8Array | Hex): boolean {
    return this.#all.get(hashKey(hash))?.pending ?? false;
  }

  /** The next nonce after the account's executable transactions (eth_getTransactionCount "pending"). */
  async nonce(address: Uint8Array): Promise<bigint> {
    const account = this.#accounts.get(bytesToHex(address));
    if (account !== undefined) return account.pendingEnd;
    return (await this.#deps.getAccount(address)).nonce;
  }

  /** Number of pooled transactions. */
  get size(): number {
    return this.#all.size;
  }

  /** Drop one transaction (e.g. the builder found it invalid); later nonces become queued. */
  remove(hash: Uint8Array | Hex): boolean {
    const entry = this.#all.get(hashKey(hash));
    if (entry === undefined) return false;
    const account = this.#accounts.get(entry.sender)!;
    this.#removeEntry(account, entry);
    this.#refresh(account);
    return true;
  }

  /**
   * Executable transactions in the order a block builder should try them at `baseFee`
   * (geth miner/ordering.go). An account's run stops at its first transaction whose fee cap is
   * below the base fee or whose tip is below `minTip`.
   */
  pending(baseFee: bigint = this.#deps.head().nextBaseFee, minTip = 0n): TransactionsByPriceAndNonce {
    const lists: OrderedCandidate[][] = [];
    for (const account of this.#accounts.values()) {
      if (account.pendingCount === 0) continue;
      const list: OrderedCandidate[] = [];
      for (let n = account.stateNonce; n < account.pendingEnd; n++) {
        const entry = account.txs.get(n)!;
        if (entry.feeCap < baseFee) break;
        const tip = effectiveTip(entry.tx, baseFee);
        if (tip < minTip) break;
        list.push({ tx: entry.tx, tip, seq: entry.seq });
      }
      if (list.length > 0) lists.push(list);
    }
    return new TransactionsByPriceAndNonce(lists);
  }

  /**
   * A new canonical head: drop included transactions and those made stale (nonce below the
   * account's, cost above its balance, gas above the block limit), put back the transactions of
   * blocks a reorg dropped (validated again), and move transactions between pending and queued.
   */
  async onNewHead(event: NewHeadEvent): Promise<void> {
    const included = new Set<Hex>();
    for (const item of event.included) {
      included.add(
        item instanceof Uint8Array || typeof item === "string" ? hashKey(item) : hashKey(item.hash()),
      );
    }
    for (const hash of included) {
      const entry = this.#all.get(hash);
      if (entry !== undefined) this.#removeEntry(this.#accounts.get(entry.sender)!, entry);
    }
    const accounts = [...this.#accounts.values()];
    const states = await Promise.all(accounts.map((a) => this.#deps.getAccount(a.bytes)));
    const head = this.#deps.head();
    for (let i = 0; i < accounts.length; i++) {
      if (this.#accounts.get(accounts[i].address) === accounts[i]) this.#reset(accounts[i], states[i], head);
    }
    for (const tx of event.removed ?? []) {
      if (included.has(hashKey(tx.hash()))) continue;
      try {
        await this.#add(tx, false, true);
      } catch {
        // A dropped block's transaction that is no longer valid (e.g. included by the new branch)
        // simply does not come back.
      }
    }
    this.evictStale();
  }

  /**
   * Drop the queued transactions of remote accounts idle for longer than the lifetime
   * (geth legacypool loop, evictionInterval). Runs at most once a minute unless `force`.
   */
  evictStale(force = false): number {
    const now = this.#clock();
    if (!force && now - this.#lastEviction < EVICTION_INTERVAL_MS) return 0;
    this.#lastEviction = now;
    let dropped = 0;
    for (const account of [...this.#accounts.values()]) {
      if (now - account.lastActivity <= this.options.lifetimeMs) continue;
      for (const entry of [...account.txs.values()]) {
        if (!entry.pending && !entry.local) {
          this.#removeEntry(account, entry);
          dropped++;
        }
      }
      this.#refresh(account);
    }
    return dropped;
  }

  async #add(input: Uint8Array | TypedTransaction, local: boolean, reinject: boolean): Promise<Hex> {
    const opts = this.options;
    const head = this.#deps.head();
    let tx: TypedTransaction;
    let size: number;
    if (input instanceof Uint8Array) {
      const type = input.length > 0 && input[0] < 0x80 ? input[0] : TX_TYPE.legacy;
      refuseType(type, head);
      size = input.length;
      if (size > opts.maxTxSize) {
        throw txPoolError("OVERSIZED_DATA", `transaction size ${size}, limit ${opts.maxTxSize}`);
      }
      const common = this.#deps.common?.();
      tx = decodeRawTransaction(
        input,
        common === undefined ? decodingCommon(head.chainId) : sharedTxCommon(common),
        head.allowedTypes,
      );
      // The raw bytes are the canonical encoding (the decoder refuses non-canonical RLP and leading
      // zeros): the hash is theirs, and the block builder reuses them instead of re-serialising.
      rememberEncoding(tx, input);
    } else {
      tx = input;
      refuseType(tx.type, head);
      size = tx.serialize().length;
      if (size > opts.maxTxSize) {
        throw txPoolError("OVERSIZED_DATA", `transaction size ${size}, limit ${opts.maxTxSize}`);
      }
      if ("chainId" in tx && tx.chainId !== head.chainId) {
        throw txPoolError("INVALID_SENDER", "invalid chain id for signer");
      }
      if (tx.type === TX_TYPE.legacy && tx.supports(Capability.EIP155ReplayProtection)) {
        if (tx.common.chainId() !== head.chainId) {
          throw txPoolError("INVALID_SENDER", "invalid chain id for signer");
        }
      }
    }
    if (!tx.isSigned()) throw txPoolError("INVALID_SENDER", "transaction is not signed");
    encodingOf(tx); // caches tx.hash() from the encoding
    const hash = bytesToHex(tx.hash());
    if (this.#all.has(hash)) throw txPoolError("ALREADY_KNOWN", undefined, { hash });
    if (this.#deps.senderRecovery !== undefined) {
      await this.#deps.senderRecovery.recover(tx);
      if (this.#all.has(hash)) throw txPoolError("ALREADY_KNOWN", undefined, { hash });
    }
    const sender = this.#validateStateless(tx, head, reinject);

    const [state, l1Cost] = await Promise.all([this.#deps.getAccount(sender), this.#deps.l1Cost(tx)]);
    if (this.#all.has(hash)) throw txPoolError("ALREADY_KNOWN", undefined, { hash });
    const added = this.#insert(tx, hash, sender, size, state, l1Cost, local, head);
    if (!reinject) this.evictStale();
    return added;
  }

  /** geth ValidateTransaction: the checks that need no state. Returns the sender. */
  #validateStateless(tx: TypedTransaction, head: PoolHead, reinject: boolean): Uint8Array {
    const opts = this.options;
    const isCreate = tx.to === undefined;
    if (head.isShanghai && isCreate && tx.data.length > MAX_INITCODE_SIZE) {
      throw txPoolError(
        "MAX_INITCODE_SIZE_EXCEEDED",
        `code size ${tx.data.length}, limit ${MAX_INITCODE_SIZE}`,
      );
    }
    const limit = head.gasLimit > opts.gasLimitReserve ? head.gasLimit - opts.gasLimitReserve : 0n;
    if (tx.gasLimit > limit) throw txPoolError("GAS_LIMIT", undefined, { gas: tx.gasLimit, limit });
    const cap = feeCap(tx);
    const tip = tipCap(tx);
    if (cap < tip) throw txPoolError("TIP_ABOVE_FEE_CAP", undefined, { feeCap: cap, tipCap: tip });
    let sender: Uint8Array;
    try {
      sender = tx.getSenderAddress().bytes;
    } catch (err) {
      throw txPoolError("INVALID_SENDER", "invalid transaction v, r, s values", {}, err);
    }
    if (
      !reinject && !opts.allowUnprotectedTxs && tx.type === TX_TYPE.legacy &&
      !tx.supports(Capability.EIP155ReplayProtection)
    ) {
      throw txPoolError("UNPROTECTED_TX");
    }
    if (tx.nonce >= MAX_UINT64) {
      throw txPoolError("NONCE_MAX", `address ${bytesToHex(sender)}, nonce: ${tx.nonce}`);
    }
    const intrinsic = intrinsicGas(tx, head);
    if (tx.gasLimit < intrinsic) {
      throw txPoolError("INTRINSIC_GAS", `gas ${tx.gasLimit}, minimum needed ${intrinsic}`);
    }
    if (head.isPrague) {
      const floor = floorDataGas(tx);
      if (tx.gasLimit < floor) {
        throw txPoolError("FLOOR_DATA_GAS", `gas ${tx.gasLimit}, minimum needed ${floor}`);
      }
    }
    if (tip < opts.minTip) {
      throw txPoolError("TX_GAS_PRICE_TOO_LOW", `gas tip cap ${tip}, minimum needed ${opts.minTip}`);
    }
    if (!reinject && opts.rejectFeeCapBelowBaseFee && cap < head.nextBaseFee) {
      throw txPoolError(
        "FEE_CAP_TOO_LOW",
        `address ${bytesToHex(sender)}, maxFeePerGas: ${cap}, baseFee: ${head.nextBaseFee}`,
      );
    }
    if (tx.type === TX_TYPE.setCode && "authorizationList" in tx && tx.authorizationList.length === 0) {
      throw txPoolError("EMPTY_AUTHORIZATIONS");
    }
    return sender;
  }

  /** geth ValidateTransactionWithState plus the pool's replacement and capacity rules. */
  #insert(
    tx: TypedTransaction,
    hash: Hex,
    senderBytes: Uint8Array,
    size: number,
    state: { nonce: bigint; balance: bigint },
    l1Cost: bigint,
    local: boolean,
    head: PoolHead,
  ): Hex {
    const opts = this.options;
    const sender = bytesToHex(senderBytes);
    const nonce = tx.nonce;
    if (nonce < state.nonce) {
      throw txPoolError("NONCE_TOO_LOW", `next nonce ${state.nonce}, tx nonce ${nonce}`);
    }
    const cost = txCost(tx) + l1Cost;
    const balance = state.balance;
    if (balance < cost) {
      throw txPoolError(
        "INSUFFICIENT_FUNDS",
        `balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`,
        { balance, cost, l1Cost },
      );
    }
    let account = this.#accounts.get(sender);
    if (account !== undefined && (account.stateNonce !== state.nonce || account.balance !== balance)) {
      this.#reset(account, state, head);
      account = this.#accounts.get(sender);
    }
    const existing = account?.txs.get(nonce);
    const spent = (account?.totalCost ?? 0n) - (existing?.cost ?? 0n);
    const entry: PoolEntry = {
      tx,
      hash,
      sender,
      nonce,
      feeCap: feeCap(tx),
      tipCap: tipCap(tx),
      cost,
      slots: numSlots(size),
      local,
      seq: this.#seq,
      pending: false,
    };
    if (existing !== undefined) {
      // geth legacypool list.Add: both caps strictly higher and at least priceBump percent higher.
      const bump = 100n + opts.priceBump;
      const feeThreshold = (existing.feeCap * bump) / 100n;
      const tipThreshold = (existing.tipCap * bump) / 100n;
      if (
        existing.feeCap >= entry.feeCap || existing.tipCap >= entry.tipCap ||
        entry.feeCap < feeThreshold || entry.tipCap < tipThreshold
      ) {
        throw txPoolError("REPLACE_UNDERPRICED", undefined, {
          feeCap: entry.feeCap,
          tipCap: entry.tipCap,
          minFeeCap: feeThreshold,
          minTipCap: tipThreshold,
        });
      }
      if (balance < spent + cost) {
        throw txPoolError(
          "INSUFFICIENT_FUNDS",
          `balance ${balance}, queued cost ${spent}, tx bumped ${cost - existing.cost}, overshot ${
            spent + cost - balance
          }`,
        );
      }
    } else if (balance < spent + cost) {
      throw txPoolError(
        "INSUFFICIENT_FUNDS",
        `balance ${balance}, queued cost ${spent}, tx cost ${cost}, overshot ${spent + cost - balance}`,
      );
    }
    const pendingEnd = account?.pendingEnd ?? state.nonce;
    const willPend = nonce <= pendingEnd;
    if (existing === undefined) {
      if (!willPend && !local && account !== undefined) {
        const queued = account.txs.size - account.pendingCount;
        if (queued >= opts.accountQueue) {
          throw txPoolError("ACCOUNT_LIMIT_EXCEEDED", `pooled ${queued} txs`);
        }
      }
      if (!willPend && this.#all.size - this.#pendingCount >= opts.globalQueue) {
        this.#truncateQueue(sender, local);
      }
      if (willPend && !local && this.#pendingSlots + entry.slots > opts.globalSlots) {
        this.#truncatePending(sender, account);
      }
    }
    const freed = existing?.slots ?? 0;
    const capacity = opts.globalSlots + opts.globalQueue;
    if (this.#slots - freed + entry.slots > capacity) {
      this.#makeRoom(entry, this.#slots - freed + entry.slots - capacity, willPend, head.nextBaseFee);
    }

    // Admit.
    this.#seq++;
    if (account === undefined || !this.#accounts.has(sender)) {
      account = {
        address: sender,
        bytes: senderBytes,
        txs: new Map(),
        stateNonce: state.nonce,
        balance,
        pendingEnd: state.nonce,
        pendingCount: 0,
        totalCost: 0n,
        lastActivity: this.#clock(),
      };
      this.#accounts.set(sender, account);
    }
    account.lastActivity = this.#clock();
    if (existing !== undefined) this.#removeEntry(account, existing);
    account.txs.set(nonce, entry);
    account.totalCost += cost;
    this.#all.set(hash, entry);
    this.#slots += entry.slots;
    if (nonce < account.pendingEnd) {
      this.#setPending(entry, true);
      account.pendingCount++;
      this.#emit(entry);
    } else if (nonce === account.pendingEnd) {
      let n = nonce;
      for (let next = account.txs.get(n); next !== undefined; next = account.txs.get(++n)) {
        this.#setPending(next, true);
        account.pendingCount++;
        this.#emit(next);
      }
      account.pendingEnd = n;
    }
    return hash;
  }

  /** Free `needed` slots by dropping the cheapest remote transactions, never one priced ≥ `entry`. */
  #makeRoom(entry: PoolEntry, needed: number, willPend: boolean, baseFee: bigint): void {
    const candidates: PoolEntry[] = [];
    for (const e of this.#all.values()) {
      if (e.local || e.sender === entry.sender) continue;
      // A future transaction never pushes out an executable one (geth ErrFutureReplacePending).
      if (!willPend && e.pending) continue;
      candidates.push(e);
    }
    candidates.sort((a, b) =>
      comparePrice(a, b, baseFee) || (a.nonce > b.nonce ? -1 : a.nonce < b.nonce ? 1 : 0)
    );
    const drop: PoolEntry[] = [];
    let freed = 0;
    for (const c of candidates) {
      if (freed >= needed) break;
      if (!entry.local && comparePrice(c, entry, baseFee) >= 0) {
        throw txPoolError("UNDERPRICED", undefined, { cheapest: c.hash });
      }
      drop.push(c);
      freed += c.slots;
    }
    if (freed < needed) throw txPoolError("TXPOOL_FULL");
    const touched = new Set<Account>();
    for (const d of drop) {
      const account = this.#accounts.get(d.sender)!;
      this.#removeEntry(account, d);
      touched.add(account);
    }
    for (const account of touched) this.#refresh(account);
  }

  /** Global queue full: drop queued transactions of the longest-idle remote account (geth truncateQueue). */
  #truncateQueue(sender: Hex, local: boolean): void {
    let victim: Account | undefined;
    for (const account of this.#accounts.values()) {
      if (account.address === sender || account.txs.size === account.pendingCount) continue;
      if ([...account.txs.values()].some((e) => e.local)) continue;
      if (victim === undefined || account.lastActivity < victim.lastActivity) victim = account;
    }
    if (victim === undefined) {
      if (local) return;
      throw txPoolError("TXPOOL_FULL");
    }
    const queued = [...victim.txs.values()].filter((e) => !e.pending).sort((
      a,
      b,
    ) => (a.nonce > b.nonce ? -1 : 1));
    this.#removeEntry(victim, queued[0]);
    this.#refresh(victim);
  }

  /**
   * Global pending slots full: take the highest-nonce executable transaction of the remote
   * account furthest above its `accountSlots` share (geth truncatePending). When only the sender
   * itself is above its share, the new transaction is the one refused.
   */
  #truncatePending(sender: Hex, own: Account | undefined): void {
    let victim: Account | undefined;
    for (const account of this.#accounts.values()) {
      if (account.address === sender || account.pendingCount <= this.options.accountSlots) continue;
      if ([...account.txs.values()].some((e) => e.local)) continue;
      if (victim === undefined || account.pendingCount > victim.pendingCount) victim = account;
    }
    if (victim === undefined) {
      if (own !== undefined && own.pendingCount >= this.options.accountSlots) {
        throw txPoolError("TXPOOL_FULL");
      }
      return;
    }
    const last = victim.txs.get(victim.pendingEnd - 1n)!;
    this.#removeEntry(victim, last);
    this.#refresh(victim);
  }

  /** Re-read an account's state: drop stale and unaffordable transactions, then re-sort. */
  #reset(account: Account, state: { nonce: bigint; balance: bigint }, head: PoolHead): void {
    account.stateNonce = state.nonce;
    account.balance = state.balance;
    const limit = head.gasLimit > this.options.gasLimitReserve
      ? head.gasLimit - this.options.gasLimitReserve
      : 0n;
    for (const entry of [...account.txs.values()]) {
      if (entry.nonce < state.nonce || entry.cost > state.balance || entry.tx.gasLimit > limit) {
        this.#removeEntry(account, entry);
      }
    }
    this.#refresh(account);
  }

  /** Recompute which of the account's transactions are executable; announce newly executable ones. */
  #refresh(account: Account): void {
    let n = account.stateNonce;
    while (account.txs.has(n)) n++;
    account.pendingEnd = n;
    let count = 0;
    const promoted: PoolEntry[] = [];
    for (const entry of account.txs.values()) {
      const pending = entry.nonce >= account.stateNonce && entry.nonce < n;
      if (pending) count++;
      if (pending !== entry.pending) {
        this.#setPending(entry, pending);
        if (pending) promoted.push(entry);
      }
    }
    account.pendingCount = count;
    if (account.txs.size === 0) this.#accounts.delete(account.address);
    promoted.sort((a, b) => (a.nonce < b.nonce ? -1 : 1));
    for (const entry of promoted) this.#emit(entry);
  }

  #setPending(entry: PoolEntry, pending: boolean): void {
    if (entry.pending === pending) return;
    entry.pending = pending;
    this.#pendingCount += pending ? 1 : -1;
    this.#pendingSlots += pending ? entry.slots : -entry.slots;
  }

  /** Remove an entry from the indexes; the caller refreshes the account afterwards. */
  #removeEntry(account: Account, entry: PoolEntry): void {
    if (account.txs.get(entry.nonce) !== entry) return;
    if (entry.pending) account.pendingCount--;
    this.#setPending(entry, false);
    account.txs.delete(entry.nonce);
    account.totalCost -= entry.cost;
    this.#all.delete(entry.hash);
    this.#slots -= entry.slots;
  }

  #emit(entry: PoolEntry): void {
    for (const listener of this.#listeners) {
      try {
        listener(entry.tx, entry.hash);
      } catch {
        // A subscriber's failure must not break the pool.
      }
    }
  }
}
