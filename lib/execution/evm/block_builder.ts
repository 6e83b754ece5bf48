/**
 * Block building without @ethereumjs `buildBlock` (quadratic, PLATFORM.md): one state checkpoint per
 * block, `runTx` (or the deposit runner) per transaction, header fields per fork, and the
 * transactions/receipts roots from the one-pass ordered trie.
 *
 * Before the transactions (op-geth core/state_processor.go, miner/worker.go):
 * - the Canyon create2deployer code at the block whose timestamp is the Canyon time (canyon/overview.md);
 * - Ecotone/Cancun: the EIP-4788 beacon-roots system call;
 * - Isthmus/Prague: the EIP-2935 parent-hash system call.
 * Network-upgrade deposits arrive as ordinary deposit transactions from the rollup node.
 *
 * After the transactions, a plain (L1) chain from Prague collects its EIP-7685 requests (requests.ts:
 * EIP-6110 deposits, EIP-7002 withdrawal and EIP-7251 consolidation system calls) into requestsHash;
 * OP chains keep the empty requests hash (isthmus/exec-engine.md).
 */
import type { Block as EjsBlock } from "@ethereumjs/block";
import { Hardfork } from "@ethereumjs/common";
import type { StateManagerInterface } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import { Address, bigIntToBytes as ejsBigIntToBytes, setLengthLeft } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import { type BlockVm, blockVm, keepBlockVm } from "./block_vm.ts";
import { ejsBlockFor } from "./ejs_block.ts";
import { bytesToHex } from "../../common/bytes.ts";
import { BaseError, isErrorCode } from "../../common/errors.ts";
import {
  type Block,
  EMPTY_OMMERS_HASH,
  EMPTY_REQUESTS_HASH,
  EMPTY_TRIE_ROOT,
  hashHeader,
  type Header,
} from "../../protocol/block.ts";
import type { ChainConfig } from "../../protocol/chain_config.ts";
import { decodeDepositTx, DEPOSIT_TX_TYPE, type DepositTx } from "../../protocol/deposit_tx.ts";
import {
  BASE_FEE_VAULT_ADDRESS,
  BEACON_ROOTS_ADDRESS,
  CREATE2_DEPLOYER_ADDRESS,
  CREATE2_DEPLOYER_CODE,
  HISTORY_STORAGE_ADDRESS,
  L1_FEE_VAULT_ADDRESS,
  L2_TO_L1_MESSAGE_PASSER_ADDRESS,
} from "../../protocol/predeploys.ts";
import { encodeReceipt } from "../../protocol/receipt.ts";
import { type ForkRules, forkRules, opActive, txCommon } from "./common.ts";
import { orBlooms } from "./bloom.ts";
import { expectedBlobFields, expectedExtraData, nextBlockBaseFee } from "./header_rules.ts";
import { type L1FeeSource, loadL1FeeSource } from "./l1_fee.ts";
import { ensureKzg } from "./kzg.ts";
import { orderedTrieRoot } from "../../protocol/ordered_trie.ts";
import { decodeSignedTx } from "./tx_decode.ts";
import { plainTransfersApply } from "./plain_transfer.ts";
import { rememberEncoding, runDeposit, runUserTx, type TxContext, type TxResult } from "./tx_runner.ts";
import { type SenderCache, sharedSenderCache } from "./sender_cache.ts";
import { type ExternalState, KeelStateManager, type StateRootJob, type StateRootTask } from "../state/mod.ts";
import {
  computeRequestsHash,
  CONSOLIDATION_REQUEST_ADDRESS,
  CONSOLIDATION_REQUEST_TYPE,
  depositRequests,
  systemCallRequests,
  WITHDRAWAL_REQUEST_ADDRESS,
  WITHDRAWAL_REQUEST_TYPE,
} from "./requests.ts";

/** What the consensus layer asks for (Engine API payload attributes, in internal form). */
export interface BlockAttributes {
  timestamp: bigint;
  /** suggestedFeeRecipient: on OP chains the SequencerFeeVault. */
  coinbase: Uint8Array;
  prevRandao: Uint8Array;
  gasLimit: bigint;
  /** Ecotone/Cancun and later. */
  parentBeaconBlockRoot?: Uint8Array;
  /** Holocene: 8 bytes, denominator u32 || elasticity u32 (all zero = the chain config's Canyon values). */
  eip1559Params?: Uint8Array;
  /** Jovian. */
  minBaseFee?: bigint;
  /** Plain chains only (OP chains derive extraData from the fee parameters). */
  extraData?: Uint8Array;
  /**
   * The block's base fee instead of the EIP-1559 one (dev mode only: anvil_setNextBlockBaseFeePerGas;
   * such a block is not valid under the consensus rules, and only a dev chain builds it).
   */
  baseFeePerGas?: bigint;
}

export interface BlockBuilderDeps {
  stateManager: StateManagerInterface;
  /** Hash of an earlier canonical block, for BLOCKHASH (unknown: zero). */
  getBlockHash?: (number: bigint) => Promise<Uint8Array | undefined>;
  /**
   * Senders recovered before, by tx hash: the builder records every executed transaction's sender,
   * block import looks them up instead of recovering (default: the process-wide `sharedSenderCache`).
   */
  senderCache?: SenderCache;
  /**
   * Compute the state root on a second thread while the transactions execute (root_task.ts; the state
   * manager must be a KeelStateManager over the task's database file, at a committed state).
   */
  stateRoot?: StateRootTask;
  /**
   * Run plain value transfers in the EVM too instead of applying them directly (plain_transfer.ts):
   * the reference the direct path is tested against.
   */
  evmOnly?: boolean;
  /**
   * OP chains: leave out the L1 data fee and the operator fee (eth_simulateV1, whose calls are messages
   * without an encoding to charge for, as op-geth's simulated messages carry no rollup cost data).
   */
  noL1Fee?: boolean;
  /** Called with the block's VM before anything runs on it (eth_simulateV1's transfer tracer). */
  onVm?: (vm: VM) => void;
  /** What BLOBBASEFEE answers instead of the header's blob base fee (eth_simulateV1's block override). */
  blobBaseFee?: bigint;
  /** geth's NoBaseFee for transactions offering no fee (tx_runner.ts TxContext.noBaseFee). */
  noBaseFee?: boolean;
  /**
   * Any failed transaction discards the whole block (block import): calls then run without a state
   * checkpoint of their own (tx_runner.ts TxContext.wholeBlock).
   */
  wholeBlock?: boolean;
  /** Only transactions the direct paths apply; others throw (speculative execution: tx_runner.ts fastOnly). */
  fastOnly?: boolean;
  /** Keep the block's changes as sent to the state-root worker (BlockBuilder.rootChanges). */
  keepRootDeltas?: boolean;
}

/** A block's state changes (BlockBuilder.rootChanges): packed StateDeltas (delta_codec.ts), storage roots. */
export interface RootChanges {
  deltas: Uint8Array[];
  /** Address hex -> the new storage root of every account whose storage changed. */
  storageRoots: Map<string, Uint8Array>;
}

export interface SealedBlock {
  block: Block;
  hash: Uint8Array;
  receipts: TxResult[];
  stateRoot: Uint8Array;
  /** EIP-7685 requests (type ++ data, non-empty only, by type) of an L1 block from Prague; else undefined. */
  requests?: Uint8Array[];
}

/**
 * The deposit contract of a chain config parsed from a genesis.json (`config.depositContractAddress`,
 * ParsedChainConfig.extras); undefined when the config has none (then no deposit requests are read).
 */
export function depositContractOf(config: ChainConfig): Uint8Array | undefined {
  return (config as { extras?: { depositContractAddress?: Uint8Array } }).extras?.depositContractAddress;
}

const ZERO32 = new Uint8Array(32);

/** The header fields known before execution (stateRoot, roots, gasUsed, bloom come at seal). */
export function preHeader(config: ChainConfig, parent: Header, attrs: BlockAttributes): Header {
  const rules = forkRules(config, attrs.timestamp);
  const shanghai = rules.common.gteHardfork(Hardfork.Shanghai);
  const cancun = rules.common.gteHardfork(Hardfork.Cancun);
  const prague = rules.common.gteHardfork(Hardfork.Prague);
  const header: Header = {
    parentHash: hashHeader(parent),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: attrs.coinbase,
    stateRoot: ZERO32,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: parent.number + 1n,
    gasLimit: attrs.gasLimit,
    gasUsed: 0n,
    timestamp: attrs.timestamp,
    extraData: expectedExtraData(config, attrs),
    mixHash: attrs.prevRandao,
    nonce: new Uint8Array(8),
    baseFeePerGas: attrs.baseFeePerGas ?? nextBlockBaseFee(config, parent, attrs.timestamp),
  };
  if (shanghai) header.withdrawalsRoot = EMPTY_TRIE_ROOT;
  if (cancun) {
    const blob = expectedBlobFields(config, parent, attrs.timestamp);
    header.blobGasUsed = 0n;
    header.excessBlobGas = blob.excessBlobGas;
    header.parentBeaconBlockRoot = attrs.parentBeaconBlockRoot ?? ZERO32;
  }
  if (prague) header.requestsHash = EMPTY_REQUESTS_HASH;
  return header;
}

/** A transaction as the builder accepts it: decoded user tx, a deposit, or consensus-encoded bytes. */
export type BuilderTx = TypedTransaction | DepositTx | Uint8Array;

function isDeposit(tx: BuilderTx): tx is DepositTx {
  return !(tx instanceof Uint8Array) && "sourceHash" in tx;
}

export class BlockBuilder {
  readonly config: ChainConfig;
  readonly parent: Header;
  readonly header: Header;
  readonly rules: ForkRules;
  readonly results: TxResult[] = [];
  #vm: VM;
  #blockVm: BlockVm;
  #deps: BlockBuilderDeps;
  #ctx: TxContext;
  #gasUsed = 0n;
  #l1: Promise<L1FeeSource> | undefined;
  #done = false;
  #committed = false;
  #daFootprint = 0n;
  #blobGasUsed = 0n;
  #rootJob: StateRootJob | undefined;
  #external: ExternalState | undefined;
  #rootChanges: RootChanges | undefined;
  #zeroBaseFeeBlock: EjsBlock | undefined;

  private constructor(
    config: ChainConfig,
    parent: Header,
    header: Header,
    rules: ForkRules,
    blockVm: BlockVm,
    deps: BlockBuilderDeps,
  ) {
    this.config = config;
    this.parent = parent;
    this.header = header;
    this.rules = rules;
    this.#blockVm = blockVm;
    this.#vm = blockVm.vm;
    this.#deps = deps;
    const block = ejsBlockFor(rules, header, deps.blobBaseFee);
    this.#ctx = {
      config,
      rules,
      block,
      timestamp: header.timestamp,
      baseFee: header.baseFeePerGas ?? 0n,
      daFootprintRoom: () => header.gasLimit - this.#daFootprint,
      plainTransfers: deps.evmOnly !== true && plainTransfersApply(rules.common),
      wholeBlock: deps.wholeBlock,
      fastOnly: deps.fastOnly,
      noBaseFee: deps.noBaseFee,
      zeroBaseFeeBlock: deps.noBaseFee !== true ? undefined : () => {
        this.#zeroBaseFeeBlock ??= ejsBlockFor(rules, { ...header, baseFeePerGas: 0n }, deps.blobBaseFee);
        return this.#zeroBaseFeeBlock;
      },
      l1Fees: config.op === undefined || deps.noL1Fee === true ? undefined : () => {
        this.#l1 ??= loadL1FeeSource(deps.stateManager, rules.opFork ?? "bedrock");
        return this.#l1;
      },
    };
  }

  /** Opens a block on `parent` (one state checkpoint) and applies the pre-transaction system changes. */
  static async open(
    config: ChainConfig,
    parent: Header,
    attrs: BlockAttributes,
    deps: BlockBuilderDeps,
  ): Promise<BlockBuilder> {
    return await BlockBuilder.openWithHeader(config, parent, preHeader(config, parent, attrs), deps);
  }

  /** Opens a block whose pre-execution header fields are given (block import). */
  static async openWithHeader(
    config: ChainConfig,
    parent: Header,
    header: Header,
    deps: BlockBuilderDeps,
  ): Promise<BlockBuilder> {
    if (config.op === undefined && forkRules(config, header.timestamp).common.gteHardfork(Hardfork.Cancun)) {
      // EIP-4844 on a plain chain: the point-evaluation precompile and blob transactions need KZG.
      await ensureKzg(config, header.timestamp);
    }
    const rules = forkRules(config, header.timestamp);
    const blockVmOf = await blockVm(rules, deps, parent);
    deps.onVm?.(blockVmOf.vm);
    const b = new BlockBuilder(config, parent, header, rules, blockVmOf, deps);
    // Flush cached writes first: a flush inside a checkpoint misses entries cached before it
    // (measured with MerkleStateManager + Caches: the in-checkpoint root then differs).
    await deps.stateManager.getStateRoot();
    await deps.stateManager.checkpoint();
    try {
      if (deps.stateRoot !== undefined && deps.stateManager instanceof KeelStateManager) {
        b.#rootJob = deps.stateRoot.begin(parent.stateRoot, deps.stateManager, deps.keepRootDeltas === true);
      }
      await b.#preTransactions();
    } catch (e) {
      b.#rootJob?.cancel();
      await deps.stateManager.revert();
      throw e;
    }
    return b;
  }

  async #preTransactions(): Promise<void> {
    const sm = this.#deps.stateManager;
    const { header, config } = this;
    const canyonTime = config.op?.forks.canyon;
    if (canyonTime !== undefined && header.timestamp === canyonTime) {
      await sm.putCode(new Address(CREATE2_DEPLOYER_ADDRESS), CREATE2_DEPLOYER_CODE);
    }
    const common = this.rules.common;
    if (common.isActivatedEIP(4788) && header.parentBeaconBlockRoot !== undefined) {
      // EIP-4788 system call: timestamp and root into the two ring buffers, when the contract exists.
      const a = new Address(BEACON_ROOTS_ADDRESS);
      if ((await sm.getCode(a)).length > 0) {
        const len = 8191n;
        const idx = header.timestamp % len;
        await sm.putStorage(a, setLengthLeft(ejsBigIntToBytes(idx), 32), ejsBigIntToBytes(header.timestamp));
        await sm.putStorage(a, setLengthLeft(ejsBigIntToBytes(idx + len), 32), header.parentBeaconBlockRoot);
      }
    }
    if (common.isActivatedEIP(2935) && header.number > 0n) {
      // EIP-2935 system call: parent hash into slot (number - 1) % 8191, when the contract exists.
      const a = new Address(HISTORY_STORAGE_ADDRESS);
      if ((await sm.getCode(a)).length > 0) {
        const slot = (header.number - 1n) % 8191n;
        await sm.putStorage(a, setLengthLeft(ejsBigIntToBytes(slot), 32), header.parentHash);
      }
    }
  }

  /** Decodes a consensus-encoded transaction under this block's rules (deposits only on OP chains, no blobs on L2). */
  decodeTransaction(input: Uint8Array): TypedTransaction | DepositTx {
    if (input.length > 0 && input[0] === 3 && this.config.op !== undefined) {
      throw new BaseError(
        "TX_TYPE_NOT_SUPPORTED",
        "Cannot apply transaction: blob transactions are not supported on L2",
      );
    }
    if (input.length > 0 && input[0] === DEPOSIT_TX_TYPE) {
      if (this.config.op === undefined) {
        throw new BaseError(
          "TX_TYPE_NOT_SUPPORTED",
          "Cannot apply transaction: deposits exist only on OP chains",
        );
      }
      return decodeDepositTx(input);
    }
    try {
      const tx = decodeSignedTx(input, txCommon(this.rules.common));
      rememberEncoding(tx, input);
      return tx;
    } catch (e) {
      throw new BaseError("INVALID_TX", `Cannot decode transaction: ${(e as Error).message}`, { cause: e });
    }
  }

  /** The state at this point of the block (reads only: conditional transactions check it). */
  get state(): StateManagerInterface {
    return this.#deps.stateManager;
  }

  get gasUsed(): bigint {
    return this.#gasUsed;
  }

  /**
   * Names accounts the block's transactions will change: with a state-root worker, it loads their
   * trie paths ahead (block import knows the transactions before executing them).
   */
  prefetch(addresses: Uint8Array[]): void {
    this.#rootJob?.prefetch(addresses);
  }

  /** The accounts every transaction of this block changes besides its own: the coinbase and fee vaults. */
  feeRecipients(): Uint8Array[] {
    const out = [this.header.coinbase];
    if (this.config.op !== undefined) out.push(BASE_FEE_VAULT_ADDRESS, L1_FEE_VAULT_ADDRESS);
    return out;
  }

  /**
   * Applies one transaction. A transaction that does not fit the remaining gas or is invalid throws a
   * BaseError and leaves no trace; a failing execution (revert, out of gas) is included with status 0.
   */
  async addTransaction(input: BuilderTx): Promise<TxResult> {
    if (this.#done) throw new BaseError("BLOCK_SEALED", "Cannot add transaction: block is sealed");
    const tx = input instanceof Uint8Array ? this.decodeTransaction(input) : input;
    const remaining = this.header.gasLimit - this.#gasUsed;
    let result: TxResult;
    if (isDeposit(tx)) {
      if (this.config.op === undefined) {
        throw new BaseError(
          "TX_TYPE_NOT_SUPPORTED",
          "Cannot apply transaction: deposits exist only on OP chains",
        );
      }
      const free = tx.isSystemTx && !opActive(this.config, "regolith", this.header.timestamp);
      if (!free && tx.gas > remaining) {
        throw new BaseError(
          "GAS_LIMIT_REACHED",
          `Cannot apply deposit: gas limit reached (${tx.gas} > ${remaining})`,
        );
      }
      result = await runDeposit(this.#vm, tx, this.#ctx, this.#gasUsed);
    } else {
      if (tx.gasLimit > remaining) {
        throw new BaseError(
          "GAS_LIMIT_REACHED",
          `Cannot apply transaction: gas limit reached (${tx.gasLimit} > ${remaining})`,
        );
      }
      const blobGas = tx.type === 3
        ? this.rules.common.param("blobGasPerBlob") * BigInt(
          (tx as { blobVersionedHashes: unknown[] }).blobVersionedHashes.length,
        )
        : 0n;
      if (
        blobGas > 0n &&
        this.#blobGasUsed + blobGas > this.rules.common.getBlobGasSchedule().maxBlobGasPerBlock
      ) {
        throw new BaseError("GAS_LIMIT_REACHED", "Cannot apply transaction: block blob gas limit reached");
      }
      result = await runUserTx(this.#vm, tx, this.#ctx, this.#gasUsed);
      (this.#deps.senderCache ?? sharedSenderCache).remember(tx);
      this.#daFootprint += result.l1Fee?.blobGasUsed ?? 0n;
      this.#blobGasUsed += result.blobGasUsed ?? 0n;
    }
    this.#gasUsed += result.gasUsed;
    this.results.push(result);
    const job = this.#rootJob;
    if (job !== undefined) {
      job.addReceipt(encodeReceipt(result.receipt));
      job.step();
    }
    return result;
  }

  /** Commits the block's state and completes the header (a failure leaves the parent's state). */
  async seal(): Promise<SealedBlock> {
    let sealed: SealedBlock;
    try {
      sealed = await this.finish();
    } catch (e) {
      await this.abort();
      throw e;
    }
    await this.commit();
    return sealed;
  }

  /** EIP-7685 requests after the transactions (L1 chains from Prague), in type order. */
  async #requests(): Promise<Uint8Array[]> {
    const out: Uint8Array[] = [];
    const contract = depositContractOf(this.config);
    if (contract !== undefined) {
      const deposits = depositRequests(this.results.flatMap((r) => r.receipt.logs), contract);
      if (deposits !== undefined) out.push(deposits);
    }
    const block = this.#ctx.block;
    for (
      const [type, address] of [
        [WITHDRAWAL_REQUEST_TYPE, WITHDRAWAL_REQUEST_ADDRESS],
        [CONSOLIDATION_REQUEST_TYPE, CONSOLIDATION_REQUEST_ADDRESS],
      ] as const
    ) {
      const r = await systemCallRequests(this.#vm, block, type, address);
      if (r !== undefined) out.push(r);
    }
    return out;
  }

  /**
   * Completes the header with the state still uncommitted (block import compares it first, then calls
   * `commit()` or `abort()`).
   */
  async finish(known: { transactionsRoot?: Uint8Array } = {}): Promise<SealedBlock> {
    if (this.#done) throw new BaseError("BLOCK_SEALED", "Cannot seal block: already sealed");
    this.#done = true;
    const sm = this.#deps.stateManager;
    let requests: Uint8Array[] | undefined;
    if (this.config.op === undefined && this.rules.common.gteHardfork(Hardfork.Prague)) {
      requests = await this.#requests();
    }
    // With a state-root worker, the last changes go out first and the transactions root and bloom are
    // computed here while the worker finishes; it also built the receipts trie as the receipts came.
    const pendingRoot = this.#rootJob !== undefined ? this.#stateRoot() : undefined;
    const transactionsRoot = known.transactionsRoot ?? orderedTrieRoot(this.results.map((r) => r.encoded));
    const logsBloom = orBlooms(this.results.map((r) => r.receipt.logsBloom));
    const stateRoot = await (pendingRoot ?? this.#stateRoot());
    const receiptsRoot = this.#external?.receipts?.root ??
      orderedTrieRoot(this.results.map((r) => encodeReceipt(r.receipt)));
    const header: Header = {
      ...this.header,
      stateRoot,
      gasUsed: this.#gasUsed,
      transactionsRoot,
      receiptsRoot,
      logsBloom,
    };
    if (requests !== undefined) header.requestsHash = computeRequestsHash(requests);
    if (opActive(this.config, "isthmus", header.timestamp)) {
      header.withdrawalsRoot =
        this.#external?.storageRoots.get(bytesToHex(L2_TO_L1_MESSAGE_PASSER_ADDRESS).slice(2)) ??
          await storageRoot(sm, L2_TO_L1_MESSAGE_PASSER_ADDRESS);
    }
    if (opActive(this.config, "jovian", header.timestamp)) header.blobGasUsed = this.#daFootprint;
    else if (this.config.op === undefined && header.blobGasUsed !== undefined) {
      header.blobGasUsed = this.#blobGasUsed;
    }
    const block: Block = {
      header,
      transactions: this.results.map((r) => r.encoded),
      withdrawals: header.withdrawalsRoot === undefined ? undefined : [],
    };
    return { block, hash: hashHeader(header), receipts: this.results, stateRoot, requests };
  }

  /** The post-state root: from the state-root worker when one runs beside execution, else by a flush. */
  async #stateRoot(): Promise<Uint8Array> {
    const sm = this.#deps.stateManager;
    const job = this.#rootJob;
    if (job === undefined) return await sm.getStateRoot();
    this.#rootJob = undefined;
    try {
      this.#external = await job.finish(this.results.length);
      if (job.deltas !== undefined) {
        this.#rootChanges = { deltas: job.deltas, storageRoots: this.#external.storageRoots };
      }
      return this.#external.root;
    } catch (e) {
      if (!isErrorCode(e, "STATE_ROOT_TASK_FAILED")) throw e;
      // The worker could not: the caches still hold every change, so the flush computes it here.
      return await sm.getStateRoot();
    }
  }

  /**
   * The block's state changes as the state-root worker got them (packed deltas, in order) and the new
   * storage roots: after `finish`, with `keepRootDeltas` and the root computed by the worker.
   */
  get rootChanges(): RootChanges | undefined {
    return this.#rootChanges;
  }

  /** Commits the state of a finished block. */
  async commit(): Promise<void> {
    if (this.#committed) return;
    this.#committed = true;
    const sm = this.#deps.stateManager;
    if (this.#external !== undefined && sm instanceof KeelStateManager) sm.adoptExternal(this.#external);
    await sm.commit();
    if (this.#deps.onVm === undefined) keepBlockVm(sm, this.#blockVm);
  }

  /**
   * Drops the block: the state returns to the parent's. `keepVm`: every transaction run on the VM
   * completed (none threw halfway), so the next block on this state manager may reuse it.
   */
  async abort(keepVm = false): Promise<void> {
    if (this.#committed) return;
    this.#committed = true;
    this.#done = true;
    this.#rootJob?.cancel();
    this.#rootJob = undefined;
    await this.#deps.stateManager.revert();
    if (keepVm && this.#deps.onVm === undefined) keepBlockVm(this.#deps.stateManager, this.#blockVm);
  }

  /**
   * Whether transactions executed elsewhere on this block (speculation.ts) fit after the ones applied:
   * each within the gas left, and on Jovian within the DA footprint left, as addTransaction checks.
   */
  fits(txs: { gasLimit: bigint }[], results: TxResult[]): boolean {
    let gas = this.#gasUsed;
    let footprint = this.#daFootprint;
    const limit = this.header.gasLimit;
    for (let i = 0; i < results.length; i++) {
      if (txs[i].gasLimit > limit - gas) return false;
      const fp = results[i].l1Fee?.blobGasUsed;
      if (fp !== undefined && fp > limit - footprint) return false;
      gas += results[i].gasUsed;
      footprint += fp ?? 0n;
    }
    return true;
  }

  /**
   * Appends a transaction executed elsewhere on this block's state (speculation.ts), whose state
   * changes the caller has applied: its receipt takes this block's cumulative gas.
   */
  addExecuted(tx: TypedTransaction, result: TxResult): void {
    if (this.#done) throw new BaseError("BLOCK_SEALED", "Cannot add transaction: block is sealed");
    this.#gasUsed += result.gasUsed;
    result.receipt.cumulativeGasUsed = this.#gasUsed;
    (this.#deps.senderCache ?? sharedSenderCache).remember(tx);
    this.#daFootprint += result.l1Fee?.blobGasUsed ?? 0n;
    this.results.push(result);
    this.#rootJob?.addReceipt(encodeReceipt(result.receipt));
  }

  /** Sends the changes made since the last transaction to the state-root worker (after addExecuted). */
  stepRoot(): void {
    this.#rootJob?.step();
  }
}

/** Storage root of an account (EMPTY_TRIE_ROOT when absent). */
export async function storageRoot(sm: StateManagerInterface, address: Uint8Array): Promise<Uint8Array> {
  const account = await sm.getAccount(new Address(address));
  return account?.storageRoot ?? EMPTY_TRIE_ROOT;
}
