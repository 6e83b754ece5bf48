/**
 * The transaction pool: validation with go-ethereum's rules and messages, pending (executable)
 * and queued (gapped) transactions per account, replacement by fee bump, per-account and global
 * limits with price-based eviction, queued-transaction lifetime, head changes and reorgs, and
 * price-and-nonce ordering for the block builder. Modelled on geth `core/txpool/legacypool`;
 * the OP additions (L1 data fee in the balance check, the L1-info gas reserve, no deposits or
 * blob transactions) follow op-geth `core/txpool/validation.go` and the OP specs
 * (specs/protocol/exec-engine.md, deposits.md). The stateless admission checks live in
 * admission.ts, the options and shapes in options.ts; on a plain chain blob transactions are pooled
 * with their sidecars (blob_sidecar.ts).
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { Capability } from "@ethereumjs/tx";
import type { Hex } from "../../common/bytes.ts";
import {
  type BlobsBundle,
  encodingOf,
  impersonatedSender,
  isDelegation,
  loadKzg,
  rememberEncoding,
} from "../evm/mod.ts";
import { refuseType, validateBlobTx, validateStateless } from "./admission.ts";
import {
  type BlobAndProof,
  BlobIndex,
  BlobLimbo,
  sidecarOfTx,
  splitBlobNetworkTx,
  versionedHashesOf,
} from "./blob_sidecar.ts";
import { txPoolError } from "./errors.ts";
import {
  type AddOptions,
  DEFAULT_TXPOOL_OPTIONS,
  type NewHeadEvent,
  type PendingListener,
  type PoolHead,
  type TxPoolContent,
  type TxPoolDeps,
  type TxPoolOptions,
  type TxPoolStatus,
} from "./options.ts";
import { type OrderedCandidate, TransactionsByPriceAndNonce } from "./ordering.ts";
import {
  type Account,
  bytesToHex,
  checkReplacement,
  comparePrice,
  hashKey,
  numSlots,
  type PoolEntry,
} from "./pool_entry.ts";
import type { KZG } from "@ethereumjs/util";
import { Hardfork } from "@ethereumjs/common";
import {
  blobDecodingCommon,
  decodeRawTransaction,
  decodingCommon,
  effectiveTip,
  feeCap,
  sharedTxCommon,
  tipCap,
  TX_TYPE,
  txCost,
} from "./validation.ts";

/** The eviction scan runs at most this often (geth legacypool evictionInterval, 1 minute). */
const EVICTION_INTERVAL_MS = 60_000;

export class TxPool {
  readonly options: Readonly<TxPoolOptions>;
  readonly #deps: TxPoolDeps;
  readonly #clock: () => number;
  readonly #all = new Map<Hex, PoolEntry>();
  readonly #accounts = new Map<Hex, Account>();
  readonly #listeners = new Set<PendingListener>();
  readonly #blobs = new BlobIndex();
  readonly #limbo: BlobLimbo;
  #pendingCount = 0;
  #slots = 0;
  #pendingSlots = 0;
  #seq = 0;
  #lastEviction: number;

  constructor(options: Partial<TxPoolOptions>, deps: TxPoolDeps) {
    this.options = { ...DEFAULT_TXPOOL_OPTIONS, ...options };
    this.#deps = deps;
    this.#clock = deps.clock ?? Date.now;
    this.#limbo = new BlobLimbo(this.options.blobLimbo);
    this.#lastEviction = this.#clock();
  }

  /**
   * Validate and insert a transaction (raw eth_sendRawTransaction bytes or a decoded one).
   * Resolves to its hash; rejects with a {@link BaseError} whose code is one of
   * TXPOOL_ERROR_CODES and whose message is geth's.
   */
  add(input: Uint8Array | TypedTransaction, options: AddOptions = {}): Promise<Hex> {
    // geth --txpool.nolocals: transactions sent here get no exemptions (and are not journaled).
    return this.#add(input, (options.local ?? false) && !this.options.noLocals, false);
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

  /**
   * The local transactions (sent through this node's RPC), by sender and then nonce: what the journal
   * keeps across restarts (journal.ts; geth legacypool `local()`).
   */
  locals(): TypedTransaction[] {
    const out: TypedTransaction[] = [];
    for (const account of this.#accounts.values()) {
      const mine = [...account.txs.values()].filter((e) => e.local);
      mine.sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
      for (const e of mine) out.push(e.tx);
    }
    return out;
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

  /** The blob sidecar of a pooled blob transaction (engine_getPayloadV3/V4 blobsBundle). */
  blobSidecar(hash: Uint8Array | Hex): BlobsBundle | undefined {
    return this.#blobs.sidecar(hashKey(hash));
  }

  /** Pooled blobs and proofs by versioned hash, null where none is pooled (engine_getBlobsV1). */
  getBlobs(versionedHashes: readonly Uint8Array[]): (BlobAndProof | null)[] {
    return versionedHashes.map((h) => this.#blobs.blob(h) ?? null);
  }

  #kzg(): Promise<KZG> {
    return (this.#deps.kzg ?? loadKzg)();
  }

  /** Blobs per block at the pending block: EIP-4844 MAX_BLOBS_PER_BLOCK 6, EIP-7691 9 from Prague. */
  #maxBlobs(): number {
    const common = this.#deps.common?.();
    return common === undefined || common.gteHardfork(Hardfork.Prague) ? 9 : 6;
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

  /** Drops every transaction of `sender` (anvil_removePoolTransactions); returns how many. */
  removeSender(sender: Uint8Array): number {
    const key = bytesToHex(sender);
    const hashes = [...this.#all.values()].filter((e) => e.sender === key).map((e) => e.hash);
    for (const hash of hashes) this.remove(hash);
    return hashes.length;
  }

  /** Drops every transaction (anvil_dropAllTransactions, anvil_reset); returns how many. */
  clear(): number {
    const hashes = [...this.#all.keys()];
    for (const hash of hashes) this.remove(hash);
    return hashes.length;
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
      if (entry === undefined) continue;
      const sidecar = this.#blobs.sidecar(hash);
      if (sidecar !== undefined) this.#limbo.put(hash, sidecar);
      this.#removeEntry(this.#accounts.get(entry.sender)!, entry);
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
    let sidecar: BlobsBundle | undefined;
    if (input instanceof Uint8Array) {
      const type = input.length > 0 && input[0] < 0x80 ? input[0] : TX_TYPE.legacy;
      refuseType(type, head);
      let raw = input;
      let common = this.#deps.common?.();
      if (type === TX_TYPE.blob) {
        // EIP-4844 network form: the size limit applies to the transaction without its sidecar.
        ({ canonical: raw, sidecar } = splitBlobNetworkTx(input));
        if (common?.customCrypto.kzg === undefined) {
          common = blobDecodingCommon(head.chainId, await this.#kzg());
        }
      }
      size = raw.length;
      if (size > opts.maxTxSize) {
        throw txPoolError("OVERSIZED_DATA", `transaction size ${size}, limit ${opts.maxTxSize}`);
      }
      tx = decodeRawTransaction(
        raw,
        common === undefined ? decodingCommon(head.chainId) : sharedTxCommon(common),
        head.allowedTypes,
      );
      // The raw bytes are the canonical encoding (the decoder refuses non-canonical RLP and leading
      // zeros): the hash is theirs, and the block builder reuses them instead of re-serialising.
      rememberEncoding(tx, raw);
    } else {
      tx = input;
      refuseType(tx.type, head);
      if (tx.type === TX_TYPE.blob) sidecar = sidecarOfTx(tx);
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
    const sender = validateStateless(tx, head, this.options, reinject);
    if (tx.type === TX_TYPE.blob) {
      // A transaction of a block a reorg dropped comes back without its blobs: take them from the limbo.
      sidecar ??= this.#limbo.take(hash);
      validateBlobTx(tx, sidecar, this.#maxBlobs(), await this.#kzg());
    }

    const [state, l1Cost] = await Promise.all([this.#deps.getAccount(sender), this.#deps.l1Cost(tx)]);
    if (this.#all.has(hash)) throw txPoolError("ALREADY_KNOWN", undefined, { hash });
    // EIP-3607: a sender with code (other than an EIP-7702 delegation) can never be included, so the pool
    // refuses it at once rather than keep it pending for good (reth's pool does the same; geth's keeps it
    // and its miner skips it). An impersonated sender (dev mode) may be a contract, as in anvil.
    if (
      state.code !== undefined && state.code.length > 0 && !isDelegation(state.code) &&
      impersonatedSender(tx) === undefined
    ) {
      throw txPoolError("SENDER_NO_EOA", `address ${bytesToHex(sender)}, len(code): ${state.code.length}`);
    }
    const added = this.#insert(tx, hash, sender, size, state, l1Cost, local, head);
    if (sidecar !== undefined && this.#all.get(hash)?.tx === tx) {
      this.#blobs.add(hash, versionedHashesOf(tx), sidecar);
    }
    if (!reinject) this.evictStale();
    return added;
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
      checkReplacement(existing, entry, opts.priceBump);
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
    this.#blobs.remove(entry.hash);
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
