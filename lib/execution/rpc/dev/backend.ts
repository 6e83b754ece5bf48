/**
 * What the dev methods (anvil_*, evm_*, hardhat_*: `keel execution --dev`) need: the engine's head and
 * its state changes, and the dev miner. The composition root passes the ExecutionEngine and DevMiner,
 * which satisfy these shapes.
 */
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { ChainConfig, Header } from "../../../protocol/mod.ts";

export interface DevChain {
  readonly config: ChainConfig;
  head(): { hash: Uint8Array; header: Header };
  /** The next block's base fee and gas limit as the pool sees them. */
  pendingRules(): { nextBaseFee: bigint; gasLimit: bigint; timestamp: bigint };
  readonly genesisHash: Uint8Array;
  impersonation: {
    impersonate(address: Uint8Array): void;
    stop(address: Uint8Array): void;
    setAuto(on: boolean): void;
  };
  pool: {
    remove(hash: Uint8Array): boolean;
    clear(): number;
    /** Drops every transaction of `sender`; returns how many. */
    removeSender(sender: Uint8Array): number;
    /** The sidecar of a pooled blob transaction. */
    blobSidecar(hash: Uint8Array): { blobs: Uint8Array[] } | undefined;
    /** Pooled blobs by versioned hash, null where none is pooled. */
    getBlobs(versionedHashes: readonly Uint8Array[]): ({ blob: Uint8Array } | null)[];
  };
  /** The blobs of blocks built here (plain chains). */
  blobs: {
    get(versionedHash: Uint8Array): { blob: Uint8Array } | undefined;
    versionedHashes(txHash: Uint8Array): Uint8Array[] | undefined;
  };
  /** The state root the dev methods gave block `hash`, if any. */
  irregular: { get(hash: Uint8Array): Uint8Array | undefined };
  /** Runs `read` on the state of `header` (it must not change the state). */
  readState<T>(header: Header, read: (sm: MerkleStateManager) => Promise<T>): Promise<T>;
  /** The accounts and storage slots the state was written under, when the chain records them. */
  readonly preimages: { accounts(): Iterable<{ address: Uint8Array; slots: Uint8Array[] }> } | undefined;
  /** Writes into the head's state without a new block; returns the new root. */
  changeHeadState(change: (sm: MerkleStateManager) => Promise<void>): Promise<Uint8Array>;
  /** Makes the canonical block `hash` the head again, with `root` as its state. */
  revertTo(hash: Uint8Array, root: Uint8Array | undefined): Promise<unknown>;
  /** Names states a pruning chain (`--gcmode full`) must keep: those evm_revert and anvil_reset go back to. */
  keepStates?(roots: () => Uint8Array[]): void;
  /** The canonical chain (anvil_rollback and anvil_reorg look up the block to go back to). */
  chain: {
    getCanonicalHash(number: bigint): Uint8Array | undefined;
    getHeaderByHash(hash: Uint8Array): Header | undefined;
  };
}

export interface DevMining {
  readonly automine: boolean;
  readonly period: number;
  readonly timestampInterval: bigint | undefined;
  readonly clock: { offset: number; now(): number };
  setAutomine(on: boolean): void;
  setIntervalMining(seconds: number): void;
  setNextTimestamp(timestamp: bigint): void;
  setTimestampInterval(seconds: bigint | undefined): void;
  increaseTime(seconds: number): number;
  /** anvil_setTime: the clock reads `seconds` now; a next timestamp set by hand is dropped. */
  setTime(seconds: number): void;
  setGasLimit(gas: bigint): void;
  /** The gas limit set by evm_setBlockGasLimit, if any. */
  readonly gasLimit: bigint | undefined;
  /** evm_revert: the gas limit as at the snapshot; the next timestamp set by hand is dropped. */
  restoreAfterRevert(gasLimit: bigint | undefined): void;
  setNextBaseFee(fee: bigint): void;
  setCoinbase(address: Uint8Array): void;
  /** anvil_setLoggingEnabled: whether sealed blocks are logged. */
  setLogging(on: boolean): void;
  setNextPrevRandao(value: Uint8Array): void;
  /** Clock offset, next timestamp, timestamp interval and gas limit as at start. */
  resetTime(): void;
  mineBlocks(count: bigint, options?: { interval?: bigint; timestamp?: bigint }): Promise<void>;
  /** `rewind`, then a block per entry of `blocks` with exactly those transactions (less the ones that fail). */
  reorg(rewind: () => Promise<void>, blocks: Uint8Array[][]): Promise<void>;
  /** Runs `fn` while no block is being sealed. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

/** Fork mode's origin (--dev.fork-url): anvil_metadata's forkedNetwork, anvil_nodeInfo's forkConfig, anvil_reset. */
export interface DevFork {
  url: string;
  /** The remote's chain id and the fork block's number and hash there. */
  chainId: bigint;
  blockNumber: bigint;
  blockHash: string;
  /** Milliseconds between retries of a failed remote read. */
  retryBackoffMs: number;
}

/** Where anvil_reset / hardhat_reset's `forking` goes: a remote (else the fork's own) and a block (else its head). */
export interface ForkTarget {
  url?: string;
  blockNumber?: bigint;
}

/** What anvil_metadata and anvil_nodeInfo report besides the chain. */
export interface DevInfo {
  /** Set in fork mode. */
  fork?: DevFork;
  /**
   * Replaces this chain (anvil_reset / hardhat_reset): by a fork of `target`, or without one (a fork
   * left) by a new dev chain. Undefined when the chain cannot be replaced (kept in --datadir).
   */
  refork?: (target: ForkTarget | undefined) => Promise<void>;
  /** anvil_setRpcUrl: the fork's remote read through `url` from now on (fork mode only). */
  setForkUrl?: (url: string) => void;
  /** web3_clientVersion. */
  clientVersion: string;
  /** eth_gasPrice. */
  gasPrice(): bigint;
  /**
   * The raw signed transaction of a JSON transaction request (eth_sendTransaction's fields, its gaps
   * filled the same way), its nonce, when the request has none, from `nonce` (anvil_reorg).
   */
  signRequest(request: unknown, nonce: (from: Uint8Array) => Promise<bigint>): Promise<Uint8Array>;
  /** A mined block with full transactions and each one's output (evm_mine_detailed). */
  minedBlock(hash: Uint8Array): Promise<Record<string, unknown>>;
  /**
   * Where `token`'s view `data` reads its answer at the head, undefined when it answers `value` already
   * (anvil_dealERC20, anvil_setERC20Allowance: ../erc20_slot.ts findErc20Slot).
   */
  erc20Slot(
    token: Uint8Array,
    data: Uint8Array,
    value: bigint,
    what: string,
  ): Promise<Uint8Array | undefined>;
}

export interface DevContext {
  chain: DevChain;
  miner: DevMining;
  info: DevInfo;
  /** A random id of this node instance (anvil_metadata), new on anvil_reset. */
  instanceId: Uint8Array;
  /** evm_snapshot's records, by id. */
  snapshots: Map<bigint, DevSnapshot>;
  /** The id of the next snapshot (anvil counts from 0). */
  nextSnapshot: bigint;
}

/** What evm_revert goes back to. */
export interface DevSnapshot {
  hash: Uint8Array;
  number: number;
  /** The head's state root when it differs from its header's. */
  root: Uint8Array | undefined;
  /** The dev clock's offset. */
  offset: number;
  timestampInterval: bigint | undefined;
  /** The gas limit set by evm_setBlockGasLimit when the snapshot was taken. */
  gasLimit: bigint | undefined;
}

export function devContext(chain: DevChain, miner: DevMining, info: DevInfo): DevContext {
  const ctx: DevContext = {
    chain,
    miner,
    info,
    instanceId: crypto.getRandomValues(new Uint8Array(32)),
    snapshots: new Map(),
    nextSnapshot: 0n,
  };
  // A pruning dev chain keeps the states evm_revert (each snapshot's) and anvil_reset (the genesis's) go to.
  chain.keepStates?.(() => {
    const roots: Uint8Array[] = [];
    for (const hash of [chain.genesisHash, ...[...ctx.snapshots.values()].map((s) => s.hash)]) {
      const header = chain.chain.getHeaderByHash(hash);
      if (header !== undefined) roots.push(header.stateRoot);
    }
    for (const snap of ctx.snapshots.values()) if (snap.root !== undefined) roots.push(snap.root);
    return roots;
  });
  return ctx;
}
