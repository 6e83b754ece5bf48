/**
 * The batch submitter (specs/protocol/batcher.md; op-batcher): takes the sequencer's L2 blocks after
 * the last one it submitted (the safe head at start), makes them singular batches in one channel
 * (Brotli from Fjord, zlib before), cuts the channel into frames that fit a batcher transaction, and
 * sends one EIP-1559 transaction per frame to the batch inbox, signed with the batcher key, each
 * waited for before the next (on an Alt-DA chain the frame goes to the DA server and the transaction
 * carries its commitment). With blob data availability (op-batcher --data-availability-type=blobs)
 * each frame is one blob (ecotone/derivation.md "Blob Encoding", up to 130,044 bytes) of a blob
 * transaction to the inbox instead, once L1 is past the rollup's Ecotone time (derivation reads blobs
 * from there, "Ecotone: Blob Retrieval"); before it, and on an Alt-DA chain, calldata. If the L2 block it last submitted is no longer canonical, it starts again
 * from the safe head. If an L1 reorg took away (part of) channels it sent, it sends their blocks again,
 * from the first block of the oldest such channel (op-batcher resends transactions reorged out before
 * their confirmations); duplicate batches are dropped by derivation.
 */
import { bytesToHex } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import type { JsonRpcClient } from "../common/json_rpc_client.ts";
import { getLogger } from "../common/logger.ts";
import { L1TxSender, StepLoop } from "./l1_sender.ts";
import { encodeBatcherTxData } from "../protocol/frame.ts";
import { isRollupForkActive, type RollupConfig } from "../protocol/rollup_config.ts";
import {
  blocksToSpanBatch,
  blockToSingularBatch,
  buildChannelFromBatches,
  type L2BlockForBatch,
} from "./channel_out.ts";
import { encodeSingularBatch } from "../protocol/batch.ts";
import { type Commitment, commitmentTxData } from "../protocol/altda.ts";
import { encodeBlobData, MAX_BLOB_DATA_SIZE } from "../protocol/blob_data.ts";
import type { KZG } from "@ethereumjs/util";

/** The sequencer's chain as the batcher reads it. */
export interface BatcherSource {
  /** Canonical block `number` with its hash, or undefined past the head. */
  blockByNumber(number: bigint): Promise<(L2BlockForBatch & { hash: Uint8Array }) | undefined>;
  headNumber(): Promise<bigint>;
  /** The rollup node's safe head; undefined while it has none yet (its derivation has not started). */
  safeNumber(): Promise<bigint | undefined>;
}

export interface BatcherOptions {
  /** Largest frame (encoded, with its 23 bytes of overhead); one frame per transaction (op-batcher MaxL1TxSize 120,000). */
  maxFrameSize: number;
  /** Most L2 blocks in one channel. */
  maxBlocksPerChannel: number;
  /** Milliseconds between looks at the L2 head. */
  pollIntervalMs: number;
  /** Milliseconds to wait for a batcher transaction's receipt. */
  receiptTimeoutMs: number;
  /**
   * "span": one span batch per channel from Delta (op-batcher --batch-type=1; a channel that starts
   * before Delta still carries singular batches, which is all derivation accepts there).
   */
  batchType: "singular" | "span";
  /**
   * "blobs": frames as blobs of blob transactions (needs `BatcherDeps.kzg`); "calldata" (op-batcher's
   * default); "auto": whichever costs less per byte at the L1's fees of the moment (blobCheaper).
   */
  dataAvailability: "calldata" | "blobs" | "auto";
  /** Blobs (frames) per blob transaction, at most (op-batcher --target-num-frames); calldata carries one. */
  targetNumFrames: number;
  /** Largest batcher data in one blob (a full blob, 130,044 bytes, as op-batcher; smaller in tests). */
  maxBlobDataSize: number;
}

export const DEFAULT_BATCHER_OPTIONS: BatcherOptions = {
  maxFrameSize: 120_000,
  maxBlocksPerChannel: 100,
  pollIntervalMs: 2_000,
  receiptTimeoutMs: 120_000,
  batchType: "singular",
  dataAvailability: "calldata",
  targetNumFrames: 1,
  maxBlobDataSize: MAX_BLOB_DATA_SIZE,
};

export interface BatcherDeps {
  source: BatcherSource;
  /** The L1 JSON-RPC. */
  l1: JsonRpcClient;
  /** The batcher's private key (its address must be the SystemConfig's batcher). */
  key: Uint8Array;
  /**
   * Alt-DA (specs/experimental/alt-da.md "Input Commitment Submission"): each frame's data goes to the
   * DA server and the batcher transaction carries its commitment.
   */
  da?: { setInput(input: Uint8Array): Promise<Commitment> };
  /** KZG for the blobs' commitments and proofs (required with `dataAvailability: "blobs"`). */
  kzg?: KZG;
}

/** Channels whose L1 inclusion is checked for reorgs (the newest; older ones are deep in L1). */
const MAX_TRACKED_CHANNELS = 64;

export class Batcher {
  readonly cfg: RollupConfig;
  readonly options: BatcherOptions;
  readonly #deps: BatcherDeps;
  readonly #log = getLogger(["batcher"]);
  readonly #sender: L1TxSender;
  readonly #loop: StepLoop;
  /** The last L2 block submitted: number and hash. */
  #last: { number: bigint; hash: Uint8Array } | undefined;
  /** The L1 block that included the last batcher transaction. */
  #included: { number: bigint; hash: string } | undefined;
  /** The channels sent lately: their L2 blocks and the L1 block of their last frame. */
  #channels: { from: bigint; l1: { number: bigint; hash: string } }[] = [];
  /** L1 transactions sent. */
  sent = 0;
  /** "auto": the last choice (blobs first, as op-batcher). */
  #autoBlobs = true;

  constructor(cfg: RollupConfig, deps: BatcherDeps, options: Partial<BatcherOptions> = {}) {
    this.cfg = cfg;
    this.#deps = deps;
    this.options = { ...DEFAULT_BATCHER_OPTIONS, ...options };
    if (this.options.dataAvailability !== "calldata" && deps.kzg === undefined) {
      throw new BaseError("BATCHER_NO_KZG", "Cannot submit batches as blobs without a KZG implementation");
    }
    this.#sender = new L1TxSender(deps.l1, cfg.l1ChainId, deps.key);
    this.#loop = new StepLoop(
      async () => (await this.step()) > 0,
      this.options.pollIntervalMs,
      (e) => this.#log.warn("Batch submission failed: {message}", { message: e.message }),
    );
  }

  start(): void {
    this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** Submits the blocks after the last submitted one, up to the head (one channel); returns how many. */
  async step(): Promise<number> {
    const { source } = this.#deps;
    // op-batcher waits while the node's sync status has no safe head ("empty BlockRef in sync status"):
    // a node just started has not found it yet, and from block 1 would send the whole chain again.
    const safe = await source.safeNumber();
    if (safe === undefined) return 0;
    let from: bigint | undefined;
    if (this.#last !== undefined) {
      const still = await source.blockByNumber(this.#last.number);
      if (still === undefined || bytesToHex(still.hash) !== bytesToHex(this.#last.hash)) {
        this.#log.warn("The L2 chain reorganised under the batcher: restarting from the safe head");
        this.#last = undefined;
      } else if (safe > this.#last.number) {
        // The node derived past what this batcher sent (another batcher's channels, or an earlier run's):
        // as op-batcher ("safe head above newest block in state"), on from the safe head.
        this.#log.info("The safe head passed the last block sent: continuing after it", {
          safe: Number(safe),
          lastSent: Number(this.#last.number),
        });
        this.#last = undefined;
      } else {
        const reorged = await this.#reorgedFrom();
        if (reorged !== undefined) {
          // The blocks of the channels it took away are sent again (duplicates are dropped by derivation).
          this.#log.warn("An L1 reorg took batcher transactions away: sending again from block {from}", {
            from: Number(reorged),
          });
          from = reorged;
        } else from = this.#last.number + 1n;
      }
    }
    if (this.#last === undefined) this.#channels = [];
    from ??= safe + 1n;
    const head = await source.headNumber();
    if (from > head) return 0;
    const to = head - from + 1n > BigInt(this.options.maxBlocksPerChannel)
      ? from + BigInt(this.options.maxBlocksPerChannel) - 1n
      : head;
    const blocks: (L2BlockForBatch & { hash: Uint8Array })[] = [];
    for (let n = from; n <= to; n++) {
      const b = await source.blockByNumber(n);
      if (b === undefined) break;
      blocks.push(b);
    }
    if (blocks.length === 0) return 0;
    const last = blocks[blocks.length - 1];
    const fjord = isRollupForkActive(this.cfg, "fjord", last.timestamp);
    const channelId = crypto.getRandomValues(new Uint8Array(16));
    const span = this.options.batchType === "span" &&
      isRollupForkActive(this.cfg, "delta", blocks[0].timestamp);
    const batches = span
      ? [blocksToSpanBatch(blocks, this.cfg.genesis.l2Time, this.cfg.l2ChainId)]
      : blocks.map((b) => encodeSingularBatch(blockToSingularBatch(b)));
    const blobs = await this.#blobsNow();
    // A transaction's data: the version byte and one frame, in calldata or in one blob.
    const dataSize = blobs
      ? Math.min(this.options.maxBlobDataSize, MAX_BLOB_DATA_SIZE)
      : this.options.maxFrameSize;
    const frames = buildChannelFromBatches(channelId, batches, {
      compression: fjord ? "brotli" : "zlib",
      maxFrameSize: dataSize - 1,
    });
    const perTx = blobs ? Math.max(1, this.options.targetNumFrames) : 1;
    for (let i = 0; i < frames.length; i += perTx) {
      await this.#send(frames.slice(i, i + perTx).map((f) => encodeBatcherTxData([f])), blobs);
    }
    this.#last = { number: last.number, hash: last.hash };
    this.#channels.push({ from, l1: this.#included! });
    if (this.#channels.length > MAX_TRACKED_CHANNELS) this.#channels.shift();
    this.#log.info("Submitted blocks", {
      from: Number(from),
      to: Number(last.number),
      frames: frames.length,
      batch: span ? "span" : "singular",
      da: blobs ? "blobs" : "calldata",
    });
    return blocks.length;
  }

  /**
   * Whether this channel goes as blobs: blob DA chosen (or "auto" and blobs cheaper now), no Alt-DA, and
   * L1's head past Ecotone.
   */
  async #blobsNow(): Promise<boolean> {
    if (this.options.dataAvailability === "calldata" || this.#deps.da !== undefined) return false;
    const l1 = this.#deps.l1;
    const head = await l1.call<{ timestamp: string; baseFeePerGas?: string } | null>("eth_getBlockByNumber", [
      "latest",
      false,
    ]);
    if (head === null || !isRollupForkActive(this.cfg, "ecotone", BigInt(head.timestamp))) return false;
    if (this.options.dataAvailability === "blobs") return true;
    try {
      const [tip, blobBaseFee] = await Promise.all([
        l1.call<string>("eth_maxPriorityFeePerGas"),
        l1.call<string>("eth_blobBaseFee"),
      ]);
      this.#autoBlobs = blobCheaper({
        baseFee: BigInt(head.baseFeePerGas ?? 0),
        tip: BigInt(tip),
        blobBaseFee: BigInt(blobBaseFee),
        calldataBytes: this.options.maxFrameSize,
        blobsPerTx: Math.max(1, this.options.targetNumFrames),
      });
    } catch (e) {
      // As op-batcher: the last choice stands when the fees cannot be read.
      this.#log.warn("Cannot read L1 fees for --data-availability-type=auto: {message}", {
        message: (e as Error).message,
      });
    }
    return this.#autoBlobs;
  }

  /** Sends one batcher transaction: `datas` as its blobs, or its one calldata. */
  async #send(datas: Uint8Array[], asBlobs: boolean): Promise<void> {
    const opts = { timeoutMs: this.options.receiptTimeoutMs, stopped: () => this.#loop.stopped };
    const inbox = this.cfg.batchInboxAddress;
    const what = "Batcher transaction";
    let data = datas[0];
    // Alt-DA: stored first (the commitment is not sent unless the server took the input).
    if (!asBlobs && this.#deps.da !== undefined) data = commitmentTxData(await this.#deps.da.setInput(data));
    const { block } = asBlobs
      ? await this.#sender.sendBlobs(inbox, datas.map(encodeBlobData), this.#deps.kzg!, what, opts)
      : await this.#sender.send(inbox, data, what, opts);
    this.#included = block;
    this.sent++;
  }

  /**
   * The first L2 block of the oldest tracked channel that an L1 reorg took (partly) away, if any. An L1
   * reorg takes away a suffix of L1: a channel is whole while the block of its last frame is canonical,
   * and once one is, the channels before it are too (checked from the newest down).
   */
  async #reorgedFrom(): Promise<bigint | undefined> {
    let from: bigint | undefined;
    for (let i = this.#channels.length - 1; i >= 0; i--) {
      const { l1 } = this.#channels[i];
      const now = await this.#deps.l1.call<{ hash: string } | null>("eth_getBlockByNumber", [
        `0x${l1.number.toString(16)}`,
        false,
      ]);
      if (now?.hash?.toLowerCase() === l1.hash) break;
      from = this.#channels[i].from;
      this.#channels.length = i;
    }
    return from;
  }
}

/** EIP-4844 GAS_PER_BLOB; a transaction's base gas; EIP-2028 gas of a non-zero calldata byte. */
const GAS_PER_BLOB = 131_072n;
const TX_GAS = 21_000n;
const CALLDATA_BYTE_GAS = 16n;

/**
 * op-batcher's choice for `--data-availability-type=auto` (DynamicEthChannelConfig): the cost per byte
 * of a calldata transaction carrying one full frame (`calldataBytes`, compressed data counted as non-zero
 * bytes: 16 gas each plus 21,000, at base fee plus tip) against a blob transaction carrying `blobsPerTx`
 * full blobs (their blob gas at the blob base fee plus 21,000 gas at base fee plus tip, for 130,044 bytes
 * each). True when blobs cost no more per byte.
 */
export function blobCheaper(p: {
  baseFee: bigint;
  tip: bigint;
  blobBaseFee: bigint;
  calldataBytes: number;
  blobsPerTx: number;
}): boolean {
  const price = p.baseFee + p.tip;
  const calldataCost = (BigInt(p.calldataBytes) * CALLDATA_BYTE_GAS + TX_GAS) * price;
  const blobs = BigInt(p.blobsPerTx);
  const blobCost = GAS_PER_BLOB * blobs * p.blobBaseFee + TX_GAS * price;
  // blobCost / blobBytes <= calldataCost / calldataBytes, multiplied out.
  return blobCost * BigInt(p.calldataBytes) <= calldataCost * BigInt(MAX_BLOB_DATA_SIZE) * blobs;
}
