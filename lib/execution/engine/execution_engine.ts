/**
 * The execution engine: one sqlite database (or a memory store), the genesis, the canonical chain,
 * block building and import over the persistent state, and forkchoice (issue 3, parts 5 and 6).
 *
 * Atomicity (PLATFORM.md, "@ethereumjs traps"): the state trie's checkpoint commit arrives as
 * `batch()` while storage-trie flushes call `put()`, so every block runs inside ONE
 * `store.transactionAsync`: state execution and commit, header, body, receipts, indexes, and the
 * head when it moves. A crash leaves the whole block or nothing.
 *
 * Concurrency: writes (build, import, forkchoice) run one at a time through an internal lock;
 * readers (`chain`, `stateAt`) never wait. Events only announce: `onNewHeads` fires after the
 * forkchoice change committed.
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { join } from "node:path";
import { bytesToHex, equalBytes } from "../../common/bytes.ts";
import { BaseError, isErrorCode } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import { BadBlocks } from "./bad_blocks.ts";
import { BlobStore } from "./blob_store.ts";
import { TxConditionals } from "../txpool/mod.ts";
import { getLogger, type Logger } from "../../common/logger.ts";
import { DB_FILE_NAME, type KvStore, MemoryStore, SqliteStore } from "../../db/mod.ts";
import {
  type Block,
  type ChainConfig,
  hashHeader,
  type Header,
  type PayloadAttributes,
} from "../../protocol/mod.ts";
import { type BlockRef, ChainStore, type ReorgResult } from "../chain/mod.ts";
import {
  blobBaseFee,
  type BlockAttributes,
  BlockBuilder,
  forkRules,
  importBlock,
  type ImportTimings,
  loadKzg,
  sharedSenderCache,
} from "../evm/mod.ts";
import type { GenesisJson } from "../genesis/mod.ts";
import {
  createStateManager,
  enablePreimages,
  type OnlinePruneStats,
  type PreimageLog,
  preimageLogOf,
  StateRootTask,
  type StateRootTaskStats,
} from "../state/mod.ts";
import {
  type BuildOptions,
  type BuiltBlock,
  type ChainBlock,
  ENGINE_ERRORS,
  type EngineTxPool,
  type ExecutionEngineDeps,
  type ExecutionEngineOptions,
  type NewHeadsEvent,
} from "./engine_types.ts";
import { attrsError, toBlockAttributes } from "./block_attributes.ts";
import { GENESIS_HASH_KEY, initParsedGenesis, storedChainConfig, toGenesis } from "./genesis_store.ts";
import { blockValue, toStoredReceipts } from "./receipts.ts";
import { hasState, keptStates, prunedError, StatePruning } from "./state_pruning.ts";
import { IrregularState } from "./irregular_state.ts";
import { PoolHeadView } from "./pool_head.ts";
import { type DaLimits, engineTxPool, fillFromPool } from "./pool_link.ts";
import { Impersonation } from "./impersonation.ts";
import {
  BlockSenderRecovery,
  type PoolHead,
  SenderRecovery,
  TxPool,
  type TxPoolOptions,
} from "../txpool/mod.ts";

/**
 * Recovers pool transactions' senders on the calling thread with libsecp256k1 (WebAssembly, ~2x
 * faster than @noble/curves); an invalid signature is left for the pool to report.
 */
const poolSenderRecovery = new SenderRecovery({ workers: 0 });

async function recoverAndRemember(tx: TypedTransaction): Promise<void> {
  // Known by hash (signed here by eth_sendTransaction, or seen in a block): nothing to recover.
  if (sharedSenderCache.apply(tx)) return;
  await poolSenderRecovery.recover(tx);
  sharedSenderCache.remember(tx);
}

const ZERO32 = new Uint8Array(32);

/** The next block's parameters set by hand (dev mode), each left out when not set. */
export interface NextBlockOverrides {
  baseFeePerGas?: bigint;
  gasLimit?: bigint;
  timestamp?: bigint;
}

export class ExecutionEngine {
  readonly config: ChainConfig;
  readonly store: KvStore;
  readonly chain: ChainStore;
  readonly genesisHash: Uint8Array;
  readonly #ownsStore: boolean;
  readonly #logger: Logger;
  readonly #now: () => number;
  /** The transaction pool (validated against the head state; refilled on reorgs). */
  readonly pool: TxPool;
  /** State roots the dev methods gave blocks (empty outside `--dev`). */
  readonly irregular: IrregularState;
  /** Accounts that send without a key, and their transactions' senders (dev methods). */
  readonly impersonation: Impersonation;
  #builderPool: EngineTxPool;
  /** Blocks imports found invalid (debug_getBadBlocks). */
  readonly badBlocks: BadBlocks;
  /** The blobs of blocks built here (plain chains: anvil_getBlobByHash). */
  readonly blobs: BlobStore;
  /** The conditionals of conditional pool transactions (eth_sendRawTransactionConditional). */
  readonly conditionals: TxConditionals;
  /** The DA limits op-batcher's throttling sets (miner_setMaxDASize); 0 is none. */
  readonly daLimits: DaLimits = { maxTxSize: 0n, maxBlockSize: 0n };
  /** What the pool reads of the head. */
  readonly #poolHead: PoolHeadView;
  #listeners = new Set<(event: NewHeadsEvent) => void>();
  #lock: Promise<unknown> = Promise.resolve();
  /** The state manager last used for a block, positioned at `root` (its caches stay warm). */
  #hot: { root: Uint8Array; sm: MerkleStateManager } | undefined;
  /** Imported blocks' state roots, computed beside execution (sqlite stores only). */
  #rootTask: StateRootTask | undefined;
  /** Imported blocks' unknown senders, recovered on this thread and a helper. */
  #blockSenders: BlockSenderRecovery;
  /** Online state pruning (gcMode "full" on sqlite). */
  #pruning: StatePruning | undefined;
  /** More states a pruning keeps (keepStates: the dev methods' snapshots). */
  #keepers: (() => Uint8Array[])[] = [];
  #closed = false;

  private constructor(
    config: ChainConfig,
    store: KvStore,
    ownsStore: boolean,
    chain: ChainStore,
    genesisHash: Uint8Array,
    deps: ExecutionEngineDeps,
    txpool: Partial<TxPoolOptions>,
  ) {
    this.config = config;
    this.store = store;
    this.#ownsStore = ownsStore;
    this.chain = chain;
    this.genesisHash = genesisHash;
    this.irregular = new IrregularState(store);
    this.badBlocks = new BadBlocks(store);
    this.blobs = new BlobStore(store);
    this.impersonation = new Impersonation(store);
    this.#logger = deps.logger ?? getLogger(["execution", "engine"]);
    this.#now = deps.now ?? (() => Math.floor(Date.now() / 1000));
    this.#poolHead = new PoolHeadView({
      config,
      store,
      irregular: this.irregular,
      head: () => this.head(),
      now: this.#now,
    });
    this.pool = new TxPool(txpool, {
      getAccount: (address) => this.#poolHead.account(address),
      head: () => this.pendingRules(),
      l1Cost: (tx) => this.#poolHead.l1Cost(tx),
      common: () => forkRules(this.config, this.pendingRules().timestamp).common,
      // The sender recovered on arrival is remembered by tx hash, so importing a block that carries
      // the transaction (newPayload from another sequencer) skips ecrecover (evm/sender_cache.ts).
      senderRecovery: { recover: recoverAndRemember },
    });
    this.#builderPool = deps.pool ?? engineTxPool(this.pool, this.config);
    this.conditionals = new TxConditionals(this.pool);
    this.#blockSenders = new BlockSenderRecovery({}, { connect: deps.sendersChannel });
  }

  /** The blob base fee of a block on a plain chain from Cancun (receipts of blob transactions). */
  #blobGasPrice(header: Header): bigint | undefined {
    if (this.config.op !== undefined || header.excessBlobGas === undefined) return undefined;
    return blobBaseFee(this.config, header.timestamp, header.excessBlobGas);
  }

  /** The rules of the next block on the head (the pool validates against them). */
  pendingRules(): PoolHead {
    const rules = this.#poolHead.rules();
    const o = this.#nextBlock?.();
    if (o === undefined) return rules;
    return {
      ...rules,
      nextBaseFee: o.baseFeePerGas ?? rules.nextBaseFee,
      gasLimit: o.gasLimit ?? rules.gasLimit,
      timestamp: o.timestamp ?? rules.timestamp,
    };
  }

  /** What the next block will differ in (dev mode: the miner's anvil_setNextBlockBaseFeePerGas & co). */
  #nextBlock?: () => NextBlockOverrides;

  /**
   * Lets the dev miner tell the pool, and through it the RPC, the next block's base fee, gas limit and
   * timestamp when they were set by hand (anvil_setNextBlockBaseFeePerGas, evm_setBlockGasLimit,
   * evm_setNextBlockTimestamp): transactions are then checked and priced for the block they will be in.
   */
  setNextBlockOverrides(source: () => NextBlockOverrides): void {
    this.#nextBlock = source;
  }

  /** Opens the database, writes or checks the genesis, and resumes at the stored head. */
  static async open(
    options: ExecutionEngineOptions,
    deps: ExecutionEngineDeps = {},
  ): Promise<ExecutionEngine> {
    let store: KvStore;
    let owns = false;
    if (options.store !== undefined) store = options.store;
    else if (options.dataDir !== undefined) {
      await Deno.mkdir(options.dataDir, { recursive: true });
      store = SqliteStore.open(join(options.dataDir, DB_FILE_NAME), options.sqlite);
      owns = true;
    } else {
      store = new MemoryStore();
      owns = true;
    }
    try {
      let config: ChainConfig;
      let genesisHash: Uint8Array;
      if (options.genesis !== undefined) {
        const input = options.genesis;
        const parsed = toGenesis(input);
        const configJson = input.alloc instanceof Map
          ? undefined
          : new TextEncoder().encode(JSON.stringify((input as GenesisJson).config));
        // A new database records the preimages from its genesis on (an existing one keeps its way).
        if (options.preimages === true && store.get(GENESIS_HASH_KEY) === undefined) enablePreimages(store);
        genesisHash = await initParsedGenesis(store, parsed, configJson);
        config = parsed.config;
      } else {
        const stored = storedChainConfig(store);
        const first = store.get(GENESIS_HASH_KEY);
        if (stored === undefined || first === undefined) {
          throw new BaseError(
            ENGINE_ERRORS.NO_GENESIS,
            "Cannot open database: it holds no genesis from a genesis.json; run `keel execution init` first",
          );
        }
        config = stored;
        genesisHash = first;
      }
      const limit = options.codeSizeLimit;
      if (limit !== undefined) {
        if (!Number.isSafeInteger(limit) || limit < 1) {
          throw new BaseError(
            "INVALID_OPTION",
            `Cannot open the engine: the code size limit must be a whole number of bytes from 1, got ${limit}`,
          );
        }
        config = { ...config, codeSizeLimit: limit };
      }
      // A plain chain from Cancun holds blob transactions, which @ethereumjs decodes only with KZG
      // (blocks read back for the RPC after a restart, before any new blob transaction loads it).
      if (config.op === undefined && config.l1.cancunTime !== undefined) await loadKzg();
      // After the genesis is written: the chain store loads its head labels when constructed.
      const chain = new ChainStore(options.chain ?? {}, { store });
      const engine = new ExecutionEngine(
        config,
        store,
        owns,
        chain,
        genesisHash,
        deps,
        options.txpool ?? {},
      );
      if (store instanceof SqliteStore && store.path !== ":memory:" && options.stateRootWorker !== false) {
        engine.#rootTask = new StateRootTask(store.path, {}, { connect: deps.stateRootChannel });
      }
      if (options.gcMode === "full" && store instanceof SqliteStore) {
        engine.#pruning = new StatePruning(store, options.prune ?? {}, {
          serial: (fn) => engine.#serial(fn),
          keptRoots: (recent) => engine.keptStates(recent).roots,
          logger: engine.#logger,
        });
      }
      const head = engine.head();
      engine.#logger.info("Execution engine opened", {
        chainId: config.chainId.toString(),
        genesis: bytesToHex(genesisHash),
        head: head.header.number.toString(),
        headHash: bytesToHex(head.hash),
        // geth's --gcmode: "full" prunes old states as the chain grows (a sqlite file only).
        gcmode: engine.#pruning === undefined ? "archive" : "full",
        ...(limit === undefined ? {} : {
          codeSizeLimit: limit === Number.MAX_SAFE_INTEGER ? "none" : limit,
        }),
      });
      return engine;
    } catch (err) {
      if (owns) store.close();
      throw err;
    }
  }

  /** The canonical head. */
  head(): { hash: Uint8Array; header: Header } {
    const ref = this.chain.getHead("latest");
    const header = this.chain.getHeadHeader("latest");
    if (ref === undefined || header === undefined) {
      throw new BaseError("CHAIN_CORRUPT", "Cannot read the head: the database has no head block");
    }
    return { hash: ref.hash, header };
  }

  /** The states a pruning keeps now (state_pruning.ts keptStates) and the lowest block kept. */
  keptStates(recent: number): { from: bigint; roots: Uint8Array[] } {
    return keptStates(
      this.chain,
      this.irregular,
      this.head().header.number,
      recent,
      this.#keepers.flatMap((k) => k()),
    );
  }

  /** Names more states a pruning must keep, read when each pass starts (evm_snapshot's, anvil_reset's genesis). */
  keepStates(roots: () => Uint8Array[]): void {
    this.#keepers.push(roots);
  }

  /** Counters of online state pruning (undefined when the engine keeps every state). */
  pruneStats(): Readonly<OnlinePruneStats> | undefined {
    return this.#pruning?.stats;
  }

  /** Counters of the state-root worker of imported blocks (undefined without one). */
  stateRootStats(): Readonly<StateRootTaskStats> | undefined {
    return this.#rootTask?.stats;
  }

  /** The addresses and slots the state was written under, when this database records them (dev mode). */
  get preimages(): PreimageLog | undefined {
    return preimageLogOf(this.store);
  }

  /** A fresh state manager at `header`'s state root (for eth_call, eth_getBalance, eth_getProof). */
  async stateAt(header: Header): Promise<MerkleStateManager> {
    return await createStateManager(this.store, this.irregular.rootOf(header));
  }

  /**
   * Runs `read` on the state of `header` between two writes: on the state manager kept from the last
   * block built or imported when `header` has that block's state (its caches hold what the block
   * touched: the dev miner reads back the L1Block values the parent block wrote), else on a fresh one.
   * `read` must not change the state.
   */
  readState<T>(header: Header, read: (sm: MerkleStateManager) => Promise<T>): Promise<T> {
    return this.#serial(async () => {
      const root = this.irregular.rootOf(header);
      const hot = this.#hot;
      const sm = hot !== undefined && equalBytes(hot.root, root)
        ? hot.sm
        : await createStateManager(this.store, root);
      return await read(sm);
    });
  }

  /**
   * Changes the head block's state outside any transaction (the dev methods anvil_setBalance & co.):
   * `change` writes into a state manager at the head's state, whose new root becomes the head's state
   * (IrregularState). The pool re-reads its accounts. Returns the new root.
   */
  changeHeadState(change: (sm: MerkleStateManager) => Promise<void>): Promise<Uint8Array> {
    return this.#serial(async () => {
      this.#pruning?.stop("the head's state changed outside a block");
      const head = this.head();
      const sm = await createStateManager(this.store, this.irregular.rootOf(head.header, head.hash));
      const root = await this.store.transactionAsync(async () => {
        await change(sm);
        const root = await sm.getStateRoot();
        await sm.flush();
        this.irregular.set(head.hash, equalBytes(root, head.header.stateRoot) ? undefined : root);
        return root;
      });
      this.#forgetHeadState();
      await this.#followHead({ added: [], removed: [] }, true);
      return root;
    });
  }

  /**
   * Moves the chain back to the canonical block `hash` with `root` as its state (its header's when
   * undefined), as evm_revert: the blocks after it leave the canonical chain and their transactions do
   * not return to the pool. Head, safe and finalized all become `hash`.
   */
  revertTo(hash: Uint8Array, root: Uint8Array | undefined): Promise<ReorgResult> {
    return this.#serial(async () => {
      const header = this.chain.getHeaderByHash(hash);
      if (header === undefined || !equalBytes(this.chain.getCanonicalHash(header.number) ?? ZERO32, hash)) {
        throw new BaseError(
          ENGINE_ERRORS.UNKNOWN_BLOCK,
          `Cannot revert to ${bytesToHex(hash)}: not canonical`,
        );
      }
      const state = root ?? header.stateRoot;
      if (!hasState(this.store, state)) throw prunedError(header.number, this.#pruning?.pruner.options);
      this.#pruning?.stop("the chain was reverted");
      let reorg: ReorgResult = { added: [], removed: [] };
      await this.store.transactionAsync(async () => {
        await Promise.resolve();
        reorg = this.chain.setCanonicalHead(hash);
        this.chain.setSafeHead(hash);
        this.chain.setFinalizedHead(hash);
        this.irregular.set(
          hash,
          root !== undefined && !equalBytes(root, header.stateRoot) ? root : undefined,
        );
      });
      this.#forgetHeadState();
      await this.#followHead(reorg, false);
      return reorg;
    });
  }

  /**
   * Rewinds the canonical chain to block `number` (geth debug_setHead): the blocks after it leave the
   * canonical chain (they stay stored, a later forkchoice may make them canonical again), safe and
   * finalized come down to it when they were above, and the dropped blocks' transactions return to
   * the pool. A number above the head is refused.
   */
  setHead(number: bigint): Promise<ReorgResult> {
    return this.#serial(async () => {
      const head = this.head().header.number;
      const hash = this.chain.getCanonicalHash(number);
      if (number > head || hash === undefined) {
        throw new BaseError(
          ENGINE_ERRORS.UNKNOWN_BLOCK,
          `Cannot set the head to block ${number}: the head is block ${head}`,
        );
      }
      const header = this.chain.getHeaderByHash(hash)!;
      if (!hasState(this.store, this.irregular.rootOf(header, hash))) {
        throw prunedError(number, this.#pruning?.pruner.options);
      }
      this.#pruning?.stop("the chain was rewound");
      let reorg: ReorgResult = { added: [], removed: [] };
      await this.store.transactionAsync(async () => {
        await Promise.resolve();
        reorg = this.chain.setCanonicalHead(hash);
        if ((this.chain.getHead("safe")?.number ?? 0n) > number) this.chain.setSafeHead(hash);
        if ((this.chain.getHead("finalized")?.number ?? 0n) > number) this.chain.setFinalizedHead(hash);
      });
      if (reorg.removed.length > 0) {
        this.#logger.warn("Chain rewound", { number: number.toString(), dropped: reorg.removed.length });
      }
      this.#forgetHeadState();
      await this.#followHead(reorg, true);
      return reorg;
    });
  }

  /** Drops what was read from the head's state (it changed without a new head). */
  #forgetHeadState(): void {
    this.#hot = undefined;
    this.#poolHead.forget();
  }

  /** Subscribes to canonical head changes; returns the unsubscribe function. */
  onNewHeads(cb: (event: NewHeadsEvent) => void): () => void {
    this.#listeners.add(cb);
    return () => this.#listeners.delete(cb);
  }

  /** Runs `fn` after every earlier write operation settled. */
  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(() => {
      if (this.#closed) {
        throw new BaseError(ENGINE_ERRORS.CLOSED, "Cannot use the execution engine: it is closed");
      }
      return fn();
    });
    this.#lock = run.catch(() => {});
    return run;
  }

  async #stateFor(root: Uint8Array): Promise<MerkleStateManager> {
    const hot = this.#hot;
    this.#hot = undefined;
    if (hot !== undefined && equalBytes(hot.root, root)) return hot.sm;
    return await createStateManager(this.store, root);
  }

  #blockHashLookup(parent: Header, parentHash: Uint8Array): (n: bigint) => Promise<Uint8Array | undefined> {
    const canonical = equalBytes(this.chain.getCanonicalHash(parent.number) ?? ZERO32, parentHash);
    return (n: bigint) => {
      if (n > parent.number || parent.number - n > 256n) return Promise.resolve(undefined);
      if (canonical) return Promise.resolve(this.chain.getCanonicalHash(n));
      let hash = parentHash;
      let header: Header | undefined = parent;
      while (header !== undefined && header.number > n) {
        hash = header.parentHash;
        header = this.chain.getHeaderByHash(hash);
      }
      return Promise.resolve(header === undefined ? undefined : hash);
    };
  }

  #parent(parentHash: Uint8Array): Header {
    const parent = this.chain.getHeaderByHash(parentHash);
    if (parent === undefined) {
      throw new BaseError(
        ENGINE_ERRORS.UNKNOWN_PARENT,
        `Cannot build on ${bytesToHex(parentHash)}: unknown block`,
        {
          meta: { parentHash: bytesToHex(parentHash) },
        },
      );
    }
    return parent;
  }

  /** Internal attributes of the builder, with the OP rules applied to the Engine API attributes. */
  blockAttributes(parent: Header, attrs: PayloadAttributes): BlockAttributes {
    return toBlockAttributes(this.config, parent, attrs);
  }

  /**
   * Builds a block on `parentHash`: first the attributes' transactions (a failing one fails the build
   * with ENGINE_INVALID_ATTRIBUTES), then, unless `noTxPool`, pool transactions in pending order until
   * the gas runs out. Executes and stores the block (not canonical) in one atomic write.
   */
  buildBlock(
    parentHash: Uint8Array,
    attrs: PayloadAttributes,
    options: BuildOptions = {},
  ): Promise<BuiltBlock> {
    return this.#serial(() => this.#build(parentHash, attrs, options));
  }

  async #build(parentHash: Uint8Array, attrs: PayloadAttributes, options: BuildOptions): Promise<BuiltBlock> {
    const parent = this.#parent(parentHash);
    const battrs = this.blockAttributes(parent, attrs);
    if (options.baseFeePerGas !== undefined) battrs.baseFeePerGas = options.baseFeePerGas;
    let reorg: ReorgResult | undefined;
    const parentRoot = this.irregular.rootOf(parent, parentHash);
    this.#pruning?.using(parentRoot);
    const built = await this.store.transactionAsync(async () => {
      const sm = await this.#stateFor(parentRoot);
      let builder: BlockBuilder;
      try {
        builder = await BlockBuilder.open(this.config, parent, battrs, {
          stateManager: sm,
          getBlockHash: this.#blockHashLookup(parent, parentHash),
        });
      } catch (e) {
        throw attrsError((e as Error).message, e);
      }
      let skipped = 0;
      try {
        const forced = attrs.transactions ?? [];
        for (let i = 0; i < forced.length; i++) {
          try {
            await builder.addTransaction(forced[i]);
          } catch (e) {
            throw attrsError(`transaction ${i} cannot be applied: ${(e as Error).message}`, e);
          }
        }
        for (const tx of options.candidates ?? []) {
          try {
            await builder.addTransaction(tx);
          } catch (e) {
            // As a pool transaction that cannot be applied: left out, no trace left.
            skipped++;
            this.#logger.debug("Transaction left out of the block", { error: (e as Error).message });
          }
        }
        if (attrs.noTxPool !== true) {
          skipped += await fillFromPool(
            builder,
            this.#builderPool,
            options.maxPoolTxs ?? Infinity,
            this.#logger,
            this.daLimits,
            this.conditionals,
          );
        }
      } catch (e) {
        await builder.abort();
        throw e;
      }
      const sealed = await builder.seal();
      await sm.flush();
      const receipts = toStoredReceipts(sealed.receipts, this.#blobGasPrice(sealed.block.header));
      this.chain.putBlock(sealed.block, receipts, { hash: sealed.hash });
      this.#keepBlobs(sealed.block.transactions);
      const poolTxs = sealed.block.transactions.length - (attrs.transactions?.length ?? 0);
      if (options.head === "always" || (options.head === "withPoolTxs" && poolTxs > 0)) {
        reorg = this.chain.setCanonicalHead(sealed.hash);
        this.chain.setSafeHead(sealed.hash);
        this.chain.setFinalizedHead(sealed.hash);
      }
      this.store.onCommit(() => (this.#hot = { root: sealed.stateRoot, sm }));
      return {
        block: sealed.block,
        hash: sealed.hash,
        receipts,
        results: sealed.receipts,
        blockValue: blockValue(sealed.receipts, sealed.block.header.baseFeePerGas ?? 0n),
        skipped,
        requests: sealed.requests,
        head: reorg !== undefined,
      };
    });
    this.#pruning?.stored(built.block.header.stateRoot);
    if (reorg !== undefined) await this.#adopted(reorg, built.block.header.number, built.hash);
    return built;
  }

  /**
   * Keeps the pooled sidecars of a built block's blob transactions (the pool drops them with the
   * transactions; a plain chain's dev node is its own consensus client).
   */
  #keepBlobs(transactions: Uint8Array[]): void {
    if (this.config.op !== undefined) return;
    for (const encoded of transactions) {
      if (encoded[0] !== 3) continue;
      const hash = keccak256(encoded);
      const sidecar = this.pool.blobSidecar(hash);
      if (sidecar !== undefined) this.blobs.put(hash, sidecar);
    }
  }

  /**
   * Imports a block with full validation on its parent's state and stores it (not canonical).
   * Throws ENGINE_UNKNOWN_PARENT when the parent is unknown, INVALID_BLOCK (from the importer) when
   * the block is invalid; an invalid block leaves nothing behind. A known block returns at once.
   */
  importPayload(
    block: Block,
    hash: Uint8Array = hashHeader(block.header),
  ): Promise<{ hash: Uint8Array; known: boolean }> {
    return this.#serial(async () => {
      if (this.chain.getHeaderByHash(hash) !== undefined) return { hash, known: true };
      const parent = this.#parent(block.header.parentHash);
      const started = performance.now();
      const rootsBefore = this.#rootTask?.stats.roots ?? 0;
      const senders = { ...this.#blockSenders.stats };
      const timings: ImportTimings = { open: 0, decode: 0, execute: 0, seal: 0, commit: 0 };
      const parentRoot = this.irregular.rootOf(parent, block.header.parentHash);
      this.#pruning?.using(parentRoot);
      try {
        await this.store.transactionAsync(async () => {
          // Taken out of #hot and put back only on commit: when the import fails, the group rolls back
          // the trie nodes this attempt wrote, which the manager's tries and caches may still point at,
          // so the manager is dropped.
          const sm = await this.#stateFor(parentRoot);
          const sealed = await importBlock(this.config, parent, block, {
            stateManager: sm,
            // The worker starts from the parent header's root: not for a parent the dev methods changed.
            stateRoot: equalBytes(parentRoot, parent.stateRoot) ? this.#rootTask : undefined,
            getBlockHash: this.#blockHashLookup(parent, block.header.parentHash),
          }, { recoverSender: recoverAndRemember, blockSenders: this.#blockSenders, timings });
          await sm.flush();
          this.chain.putBlock(block, toStoredReceipts(sealed.receipts, this.#blobGasPrice(block.header)), {
            hash,
          });
          this.store.onCommit(() => (this.#hot = { root: block.header.stateRoot, sm }));
        });
      } catch (e) {
        // Kept for debug_getBadBlocks, in a write of its own (the group above rolled back).
        if (isErrorCode(e, "INVALID_BLOCK")) {
          try {
            this.badBlocks.record(block, hash);
          } catch (failure) {
            this.#logger.warn("Cannot keep the bad block", { error: (failure as Error).message });
          }
        }
        throw e;
      }
      this.#pruning?.stored(block.header.stateRoot);
      // geth: "Imported new potential chain segment".
      this.#logger.info("Imported new block", {
        number: block.header.number.toString(),
        hash: bytesToHex(hash),
        txs: block.transactions.length,
        gas: block.header.gasUsed.toString(),
        elapsed: `${(performance.now() - started).toFixed(1)}ms`,
        // Where the time went: decoding, execution, roots (waiting for the state-root worker), commit.
        phases: Object.entries(timings).map(([k, v]) => `${k}=${v.toFixed(1)}`).join(","),
        stateRoot: (this.#rootTask?.stats.roots ?? 0) > rootsBefore ? "worker" : "inline",
        // Senders not seen before, and how many of them the helper thread recovered.
        recovered: this.#blockSenders.stats.taken - senders.taken,
        recoveredByHelper: this.#blockSenders.stats.helped - senders.helped,
      });
      return { hash, known: false };
    });
  }

  /**
   * Makes `head` canonical and sets the safe and finalized labels (a zero hash leaves a label as it
   * is). Safe and finalized must be canonical ancestors of (or equal to) the new head.
   */
  forkchoiceUpdate(
    head: Uint8Array,
    safe: Uint8Array = ZERO32,
    finalized: Uint8Array = ZERO32,
  ): Promise<ReorgResult> {
    return this.#serial(async () => {
      const headHeader = this.chain.getHeaderByHash(head);
      if (headHeader === undefined) {
        throw new BaseError(
          ENGINE_ERRORS.UNKNOWN_BLOCK,
          `Cannot set head: unknown block ${bytesToHex(head)}`,
        );
      }
      const current = this.chain.getHead("latest");
      if (current === undefined || !equalBytes(current.hash, head)) {
        this.#pruning?.using(this.irregular.rootOf(headHeader, head));
      }
      let reorg: ReorgResult = { added: [], removed: [] };
      await this.store.transactionAsync(async () => {
        await Promise.resolve();
        if (current === undefined || !equalBytes(current.hash, head)) {
          reorg = this.chain.setCanonicalHead(head);
        }
        for (const [label, hash] of [["finalized", finalized], ["safe", safe]] as const) {
          if (equalBytes(hash, ZERO32)) continue;
          const h = this.chain.getHeaderByHash(hash);
          const canonical = h !== undefined &&
            equalBytes(this.chain.getCanonicalHash(h.number) ?? ZERO32, hash);
          if (!canonical || h.number > headHeader.number) {
            throw new BaseError(
              ENGINE_ERRORS.INVALID_FORKCHOICE,
              `Invalid forkchoice state: ${label} block ${
                bytesToHex(hash)
              } is not a canonical ancestor of the head`,
            );
          }
          if (label === "safe") this.chain.setSafeHead(hash);
          else this.chain.setFinalizedHead(hash);
        }
      });
      await this.#adopted(reorg, headHeader.number, head);
      return reorg;
    });
  }

  /** After a new head was written: the reorg logged, the pool and the listeners told. */
  async #adopted(reorg: ReorgResult, number: bigint, hash: Uint8Array): Promise<void> {
    if (reorg.removed.length > 0) {
      this.#logger.info("Chain reorganised", {
        number: number.toString(),
        hash: bytesToHex(hash),
        dropped: reorg.removed.length,
        added: reorg.added.length,
      });
    }
    if (reorg.added.length > 0 || reorg.removed.length > 0) await this.#followHead(reorg, true);
  }

  #chainBlock(ref: BlockRef): ChainBlock {
    const block = this.chain.getBlockByHash(ref.hash);
    if (block === undefined) {
      throw new BaseError("CHAIN_CORRUPT", `Cannot read block ${bytesToHex(ref.hash)}`);
    }
    return { hash: ref.hash, block, receipts: this.chain.getReceipts(ref.hash) ?? [] };
  }

  /**
   * The pool follows a head change, then the listeners hear of it (when blocks came or went).
   * `requeue` false: the dropped blocks' transactions do not return to the pool (evm_revert).
   */
  async #followHead(reorg: ReorgResult, requeue: boolean): Promise<void> {
    const event: NewHeadsEvent = {
      added: reorg.added.map((r) => this.#chainBlock(r)),
      removed: reorg.removed.map((r) => this.#chainBlock(r)),
      head: this.chain.getHead("latest")!,
    };
    try {
      await this.#builderPool.onNewHead(requeue ? event : { ...event, removed: [] });
    } catch (e) {
      this.#logger.warn("Transaction pool failed to follow the head", { error: (e as Error).message });
    }
    if (event.added.length === 0 && event.removed.length === 0) return;
    for (const cb of [...this.#listeners]) {
      try {
        cb(event);
      } catch (e) {
        this.#logger.warn("New-head listener failed", { error: (e as Error).message });
      }
    }
  }

  /** Waits for running writes, then closes the database if the engine opened it. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#pruning?.close();
    await this.#serial(() => Promise.resolve());
    this.#closed = true;
    this.#listeners.clear();
    this.#hot = undefined;
    this.#poolHead.forget();
    this.#rootTask?.close();
    this.#blockSenders.close();
    if (this.#ownsStore) this.store.close();
  }
}
