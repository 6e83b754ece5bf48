/**
 * What the eth/net/web3/txpool namespaces need from the execution client, as a small interface
 * the composition root fills (the engine owns the store, the head and the state), plus the
 * shared helpers every method uses: block resolution (EIP-1898 tags), and a cache of the state
 * managers of recent state roots so reads at `latest` do not open a new trie per request.
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { bytesToHex, equalBytes, type Hex } from "../../common/mod.ts";
import type { ChainConfig, Header } from "../../protocol/mod.ts";
import { type BlockSpec, RpcError } from "../../rpc/mod.ts";
import type { ChainStore } from "../chain/mod.ts";
import type { TxConditional, TxPoolContent, TxPoolStatus } from "../txpool/mod.ts";

/** The pool methods the RPC calls (a TxPool satisfies it). */
export interface RpcTxPool {
  /** Validates and inserts; rejects with geth's message (BaseError) when refused. */
  add(input: Uint8Array, options?: { local?: boolean }): Promise<Hex>;
  get(hash: Uint8Array | Hex): TypedTransaction | undefined;
  /** Next nonce after the account's executable pool transactions (or the state nonce). */
  nonce(address: Uint8Array): Promise<bigint>;
  status(): TxPoolStatus;
  content(): TxPoolContent;
  /** Transactions becoming executable (newPendingTransactionFilter). */
  onPending(listener: (tx: TypedTransaction, hash: Hex) => void): () => void;
}

/** Options of the eth namespace (geth `--rpc.*` flags). */
export interface EthRpcOptions {
  /** rpc.gascap: gas cap of eth_call / eth_estimateGas (0 = none). */
  gasCap: bigint;
  /** rpc.evmtimeout in ms: eth_call gives up after this long (0 = none). */
  evmTimeoutMs: number;
  /** rpc.txfeecap in wei: eth_sendRawTransaction refuses a fee above this (0 = none). */
  txFeeCap: bigint;
  /** Largest block range of one eth_getLogs / filter query (0 = none). */
  maxBlockRange: bigint;
  /** Most logs one eth_getLogs returns. */
  maxLogs: number;
  /** Smallest suggested priority fee (op-geth --gpo.minsuggestedpriorityfee). */
  minSuggestedPriorityFee: bigint;
  /** Highest suggested priority fee (geth --gpo.maxprice). */
  maxPrice: bigint;
  /** Most blocks one eth_feeHistory covers (geth --rpc.feehistory... maxBlockHistory). */
  maxFeeHistory: number;
  /** eth_sendRawTransactionSync's wait for the receipt when the request names none, ms (geth rpc.txsync.defaulttimeout). */
  txSyncDefaultTimeoutMs: number;
  /** The longest wait a request may ask of eth_sendRawTransactionSync, ms (geth rpc.txsync.maxtimeout). */
  txSyncMaxTimeoutMs: number;
}

export const DEFAULT_ETH_RPC_OPTIONS: EthRpcOptions = {
  gasCap: 50_000_000n, // geth ethconfig.Defaults.RPCGasCap
  evmTimeoutMs: 5_000, // geth ethconfig.Defaults.RPCEVMTimeout
  txFeeCap: 10n ** 18n, // geth ethconfig.Defaults.RPCTxFeeCap: 1 ether
  maxBlockRange: 10_000n, // the common provider limit (issue 4: a range limit with a clear error)
  maxLogs: 10_000, // the common provider result cap (ChainStore default)
  minSuggestedPriorityFee: 1_000_000n, // op-geth gpo.minsuggestedpriorityfee default: 0.001 gwei
  maxPrice: 500_000_000_000n, // geth gasprice.DefaultMaxPrice: 500 gwei
  maxFeeHistory: 1024, // geth ethconfig.Defaults.FeeHistoryMaxBlocks... (gasprice maxBlockHistory)
  txSyncDefaultTimeoutMs: 20_000, // geth ethconfig.Defaults.TxSyncDefaultTimeout
  txSyncMaxTimeoutMs: 60_000, // geth ethconfig.Defaults.TxSyncMaxTimeout
};

/** What the namespaces read. The engine (or a test) assembles it. */
export interface EthBackend {
  config: ChainConfig;
  chain: ChainStore;
  pool: RpcTxPool;
  /** A fresh state manager at the header's state root; throws when the state is missing. */
  stateAt(header: Header): Promise<MerkleStateManager>;
  /** web3_clientVersion, e.g. "keel/v0.1.0-abc/linux-x64/deno2.9.6". */
  clientVersion: string;
  options: EthRpcOptions;
  /** Milliseconds since the epoch (filter expiry); default Date.now. */
  clock?: () => number;
  /**
   * Accounts whose keys the node holds (`keel execution --dev`: the test mnemonic's, as anvil): listed by
   * eth_accounts, used by eth_sendTransaction and the signing methods. None otherwise (geth without keystore).
   */
  devAccounts?: readonly { address: Uint8Array; privateKey: Uint8Array }[];
  /**
   * Accounts that send without a key (anvil_impersonateAccount): eth_sendTransaction from them, and
   * eth_sendUnsignedTransaction, carry a placeholder signature and register their sender. Dev mode only.
   */
  impersonation?: {
    canSend(address: Uint8Array): boolean;
    register(hash: Uint8Array, sender: Uint8Array): void;
  };
  /**
   * The state root reads at `header` use: its own, unless the dev methods changed the state of that
   * block (anvil_setBalance & co. write on the head without a new block, as hardhat's irregular state).
   */
  stateRootOf?(header: Header): Uint8Array;
  /**
   * Calls `listener` after blocks join the canonical chain (eth_sendRawTransactionSync waits on it);
   * returns the unsubscribe function. Without it the chain is polled.
   */
  onNewHeads?(listener: () => void): () => void;
  /**
   * Dev mode: the next block's base fee when set by hand (anvil_setNextBlockBaseFeePerGas), so that the
   * suggested gas price and eth_sendTransaction's fee cap can pay it (as anvil's); geth prices from the
   * head's base fee alone.
   */
  pendingBaseFee?(): bigint;
  /**
   * `--rollup.sequencerhttp`: signed transactions go to the sequencer first (op-geth EthAPIBackend.SendTx);
   * its refusal is the caller's answer. Throws RpcError.
   */
  sequencer?: {
    forward(raw: Uint8Array): Promise<void>;
    forwardConditional(raw: Uint8Array, conditional: unknown): Promise<Hex>;
  };
  /**
   * `--rollup.sequencertxconditionalenabled`: where eth_sendRawTransactionConditional registers a
   * transaction's conditional (the engine's TxConditionals); without it the method is not served.
   */
  txConditionals?: { set(hash: Hex, c: TxConditional): void; delete(hash: Hex): void };
}

/** The base fee a fee suggestion covers: the head's, or a higher next one set by hand (dev mode). */
export function pricingBaseFee(backend: EthBackend, headBaseFee: bigint): bigint {
  const next = backend.pendingBaseFee?.();
  return next !== undefined && next > headBaseFee ? next : headBaseFee;
}

/** A resolved block: its header and hash. */
export interface ResolvedHeader {
  header: Header;
  hash: Uint8Array;
}

function labelHeader(
  backend: EthBackend,
  label: "latest" | "safe" | "finalized",
): ResolvedHeader | undefined {
  const ref = backend.chain.getHead(label);
  const header = backend.chain.getHeadHeader(label);
  return ref === undefined || header === undefined ? undefined : { header, hash: ref.hash };
}

/**
 * The header a block parameter names, or undefined when there is no such block. `pending` reads
 * as `latest` (blocks are built on demand). A hash with requireCanonical that is not canonical
 * throws, as geth does.
 */
export function resolveHeader(backend: EthBackend, spec: BlockSpec): ResolvedHeader | undefined {
  const chain = backend.chain;
  switch (spec.kind) {
    case "tag":
      switch (spec.tag) {
        case "latest":
        case "pending":
          // pending = latest: op-geth's default without --rollup.computependingblock (no block built from the pool).
          return labelHeader(backend, "latest");
        case "safe":
        case "finalized": {
          const r = labelHeader(backend, spec.tag);
          if (r === undefined) throw RpcError.server(`${spec.tag} block not found`);
          return r;
        }
        case "earliest":
          return byNumber(backend, 0n);
      }
      break;
    case "number":
      return byNumber(backend, spec.number);
    case "hash": {
      const header = chain.getHeaderByHash(spec.hash);
      if (header === undefined) return undefined;
      if (spec.requireCanonical) {
        const canonical = chain.getCanonicalHash(header.number);
        if (canonical === undefined || !equalBytes(canonical, spec.hash)) {
          throw RpcError.server("hash is not currently canonical");
        }
      }
      return { header, hash: spec.hash };
    }
  }
}

function byNumber(backend: EthBackend, number: bigint): ResolvedHeader | undefined {
  const latest = backend.chain.getHead("latest");
  if (latest !== undefined && number === latest.number) return labelHeader(backend, "latest");
  const hash = backend.chain.getCanonicalHash(number);
  if (hash === undefined) return undefined;
  const header = backend.chain.getHeaderByHash(hash);
  return header === undefined ? undefined : { header, hash };
}

/** As resolveHeader, but a missing block is geth's "header not found" (state reads). */
export function requireHeader(backend: EthBackend, spec: BlockSpec | undefined): ResolvedHeader {
  const r = resolveHeader(backend, spec ?? LATEST);
  if (r === undefined) {
    throw RpcError.server(spec?.kind === "hash" ? "header for hash not found" : "header not found");
  }
  return r;
}

/** The default block parameter. */
export const LATEST: BlockSpec = { kind: "tag", tag: "latest" };

/** A block number from a tag or number, for ranges (eth_getLogs, feeHistory): no hashes. */
export function resolveNumber(backend: EthBackend, spec: BlockSpec | undefined, fallback: bigint): bigint {
  if (spec === undefined) return fallback;
  if (spec.kind === "number") return spec.number;
  if (spec.kind === "hash") {
    const n = backend.chain.getBlockNumber(spec.hash);
    if (n === undefined) throw RpcError.server("header for hash not found");
    return n;
  }
  if (spec.tag === "earliest") return 0n;
  // pending = latest: op-geth's default without --rollup.computependingblock (no block built from the pool).
  if (spec.tag === "latest" || spec.tag === "pending") return backend.chain.headNumber();
  const ref = backend.chain.getHead(spec.tag);
  if (ref === undefined) throw RpcError.server(`${spec.tag} block not found`);
  return ref.number;
}

/**
 * State managers of recent state roots, keyed by root. Archive state never changes under a
 * root, so an entry stays valid; the few most recent are kept (the head moves on, old roots
 * fall out). The managers are only read: eth_call writes into an OverlayState above them, so
 * the values they cache stay warm across requests.
 */
export class StateCache {
  readonly #backend: EthBackend;
  readonly #size: number;
  readonly #reads = new Map<string, Promise<MerkleStateManager>>();
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(backend: EthBackend, size = 4) {
    this.#backend = backend;
    this.#size = size;
  }

  /** The shared manager at the header's root, for reads only. */
  read(header: Header): Promise<MerkleStateManager> {
    const key = bytesToHex(this.#backend.stateRootOf?.(header) ?? header.stateRoot);
    let entry = this.#reads.get(key);
    if (entry === undefined) {
      entry = this.#backend.stateAt(header);
      this.#reads.set(key, entry);
      entry.catch(() => this.#reads.delete(key));
      if (this.#reads.size > this.#size) this.#reads.delete(this.#reads.keys().next().value as string);
    }
    return entry;
  }

  /**
   * Runs `fn` on the shared manager at the header's root, one caller at a time (eth_call keeps
   * its write overlay and VM per root).
   */
  exclusive<T>(header: Header, fn: (sm: MerkleStateManager) => Promise<T>): Promise<T> {
    const key = bytesToHex(this.#backend.stateRootOf?.(header) ?? header.stateRoot);
    const sm = this.read(header);
    const prev = this.#locks.get(key) ?? Promise.resolve();
    const run = prev.then(() => sm, () => sm).then(fn);
    const tail = run.then(() => {}, () => {});
    this.#locks.set(key, tail);
    tail.then(() => {
      if (this.#locks.get(key) === tail) this.#locks.delete(key);
    });
    return run;
  }
}

/** Per-backend shared services the methods use. */
export interface EthContext {
  backend: EthBackend;
  states: StateCache;
}

export function ethContext(backend: EthBackend): EthContext {
  return { backend, states: new StateCache(backend) };
}
