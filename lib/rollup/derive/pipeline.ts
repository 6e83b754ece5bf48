/**
 * The derivation pipeline (specs/protocol/derivation.md "L2 Chain Derivation Pipeline"): L1 traversal
 * -> L1 retrieval -> frame queue -> channel bank (the channel assembler from Holocene) -> channel reader
 * -> batch queue -> payload attributes. `next(safeHead)` returns the attributes of the block after the
 * safe head, or "idle" when the pipeline needs an L1 block that does not exist yet.
 *
 * Each L1 block is read whole when the traversal reaches it: its batcher data go through the frame
 * queue and channel stage at once, and the batches of every channel it completes go to the batch queue
 * tagged with the block as their inclusion block. The traversal applies each L1 block's system config
 * updates (derivation.md "L1 Traversal") so batcher authentication follows the config of that block;
 * the attributes use the config of the L2 parent with its epoch's updates (the caller keeps it per L2
 * block: `systemConfigOf`).
 */
import { BaseError } from "../../common/errors.ts";
import type { L1BlockRef, L1Header, L2BlockRef } from "../../protocol/block_ref.ts";
import type { DecodedBatch, SingularBatch } from "../../protocol/batch.ts";
import type { L1Receipt } from "../../protocol/deposit_event.ts";
import type { PayloadAttributes } from "../../protocol/engine.ts";
import type { Frame } from "../../protocol/frame.ts";
import type { L1BlobFeeSchedule } from "../../protocol/l1_blob_fee.ts";
import { isForkActivationBlock, OP_FORKS } from "../../protocol/hardforks.ts";
import { isRollupForkActive, type RollupConfig } from "../../protocol/rollup_config.ts";
import { type SystemConfig, systemConfigUpdatesFromReceipts } from "../../protocol/system_config.ts";
import { upgradeTransactions } from "../../protocol/upgrade_txs.ts";
import { decodeBlobData } from "../../protocol/blob_data.ts";
import {
  type Commitment,
  decodeCommitment,
  KECCAK256_COMMITMENT,
  MAX_INPUT_SIZE,
  TX_DATA_VERSION_1,
} from "../../protocol/altda.ts";
import type { L1Tx } from "../l1/mod.ts";
import { buildPayloadAttributes } from "./attributes.ts";
import { BatchQueue } from "./batch_queue.ts";
import { ChannelAssembler } from "./channel_assembler.ts";
import { ChannelBank, type ReadChannel } from "./channel_bank.ts";
import { readChannel } from "./channel_reader.ts";
import type { SafeChain } from "./check_span_batch.ts";
import { FrameQueue } from "./frame_queue.ts";
import { batcherData } from "./l1_retrieval.ts";

/** What the pipeline reads of L1 (l1/l1_client.ts L1Client). */
export interface L1Source {
  blockRef(number: bigint): Promise<L1BlockRef>;
  header(hash: Uint8Array): Promise<L1Header>;
  blockWithTxs(hash: Uint8Array): Promise<{ header: L1Header; txs: L1Tx[] }>;
  receipts(hash: Uint8Array): Promise<L1Receipt[]>;
}

/** Blob bodies by their index in an L1 block (a beacon node's sidecars). */
export interface BlobSource {
  blobs(block: L1BlockRef, wanted: { index: number; hash: Uint8Array }[]): Promise<Uint8Array[]>;
}

export interface PipelineDeps {
  l1: L1Source;
  /** The safe L2 chain (span batch checks) and the system config in force at an L2 block. */
  l2: SafeChain & { systemConfigOf(block: L2BlockRef): Promise<SystemConfig> };
  blobs?: BlobSource;
  l1BlobFeeSchedule?: L1BlobFeeSchedule;
  /** Called for what the stages drop (frames, channels, batches), for logs. */
  onDrop?: (stage: string, reason: string) => void;
  /**
   * Called with the compressed size in bytes of each channel the channel reader takes (op-node's
   * ChannelInReader.WriteChannel and its channel_input_bytes), before it is decompressed.
   */
  onChannelInput?: (bytes: number) => void;
  /** Alt-DA chains (rollup config `alt_da`): batcher data with version 1 are commitments to resolve. */
  altda?: AltDaSource;
}

/** What L1 retrieval needs of the Alt-DA manager (rollup/altda/da_manager.ts). */
export interface AltDaSource {
  /** Reads the challenge events of `origin` and expires commitments (may ask for a reset). */
  advanceL1Origin(origin: L1BlockRef): Promise<void>;
  /** The input of a commitment read from `origin`, or "skip". */
  getInput(c: Commitment, origin: L1BlockRef): Promise<Uint8Array | "skip">;
}

/** The attributes of the next L2 block, with what they were derived from. */
export interface DerivedAttributes {
  attributes: PayloadAttributes;
  parent: L2BlockRef;
  /** The L1 block the batch (or the sequencing window that made an empty batch) was read from. */
  derivedFrom: L1BlockRef;
  /** The last block of its span batch or channel (op-node's "concluding"). */
  concluding: boolean;
  /** The system config of the new block (the parent's, with the epoch's updates when it starts one). */
  systemConfig: SystemConfig;
}

function isNotFound(e: unknown): boolean {
  return e instanceof BaseError && e.code === "L1_NOT_FOUND";
}

/** The network upgrade deposits of the L2 block at `timestamp`: those of each fork it activates. */
export function upgradeTxsAt(cfg: RollupConfig, timestamp: bigint): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const fork of OP_FORKS) {
    if (fork === "interop") continue;
    if (isForkActivationBlock(cfg.forks, fork, timestamp, cfg.blockTime)) {
      out.push(...upgradeTransactions(fork));
    }
  }
  return out;
}

export class DerivationPipeline {
  readonly cfg: RollupConfig;
  readonly #deps: PipelineDeps;
  #origin: L1BlockRef;
  /** The system config at the traversal's origin (batcher authentication). */
  #traversalConfig: SystemConfig;
  /** The origin's batcher data was read. */
  #read = false;
  #frames: FrameQueue;
  #bank: ChannelBank;
  #assembler: ChannelAssembler;
  #queue: BatchQueue;
  /** Batches read from the origin's channels, not yet given to the batch queue (one at a time). */
  #pending: { batch: DecodedBatch; channel: number }[] = [];
  #channels = 0;
  /** The channel of the batch last given to the batch queue. */
  #current = -1;

  constructor(cfg: RollupConfig, deps: PipelineDeps, origin: L1BlockRef, systemConfig: SystemConfig) {
    this.cfg = cfg;
    this.#deps = deps;
    this.#origin = origin;
    this.#traversalConfig = systemConfig;
    this.#frames = new FrameQueue(cfg);
    this.#bank = new ChannelBank(cfg);
    this.#assembler = new ChannelAssembler(cfg);
    this.#queue = new BatchQueue(cfg, deps.l2);
    this.#queue.reset(origin);
  }

  /** The L1 block the traversal is at. */
  get origin(): L1BlockRef {
    return this.#origin;
  }

  /** The attributes of the block after `safeHead`, or "idle" until L1 has more blocks. */
  async next(safeHead: L2BlockRef): Promise<DerivedAttributes | "idle"> {
    for (;;) {
      if (!this.#read) {
        await this.#readOrigin();
        this.#read = true;
      }
      const exhausted = this.#pending.length === 0;
      const r = await this.#queue.next(safeHead, exhausted);
      if (r === "need-data") {
        if (!exhausted) {
          const p = this.#pending.shift()!;
          this.#current = p.channel;
          this.#queue.addBatch(p.batch);
        } else if (!(await this.#advance())) return "idle";
        continue;
      }
      if (r === "flush-channel") {
        // Holocene: the rest of the dropped batch's channel goes too.
        this.#pending = this.#pending.filter((p) => p.channel !== this.#current);
        continue;
      }
      const { attributes, systemConfig } = await this.#attributes(safeHead, r.batch);
      return {
        attributes,
        parent: safeHead,
        derivedFrom: this.#origin,
        concluding: r.concluding,
        systemConfig,
      };
    }
  }

  /** L1 traversal: the next L1 block, its system config updates. False when it does not exist yet. */
  async #advance(): Promise<boolean> {
    let next: L1BlockRef;
    try {
      next = await this.#deps.l1.blockRef(this.#origin.number + 1n);
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
    if (!equal(next.parentHash, this.#origin.hash)) {
      throw new BaseError(
        "L1_REORG",
        `Cannot advance the L1 origin: block ${next.number} does not build on ${this.#origin.number}`,
        { severity: "reset" },
      );
    }
    const receipts = await this.#deps.l1.receipts(next.hash);
    const { config, errors } = systemConfigUpdatesFromReceipts(
      this.#traversalConfig,
      receipts,
      this.cfg.l1SystemConfigAddress,
      next.timestamp,
      this.cfg,
    );
    for (const e of errors) this.#deps.onDrop?.("l1-traversal", e.error.message);
    this.#traversalConfig = config;
    this.#origin = next;
    this.#read = false;
    this.#queue.setOrigin(next);
    return true;
  }

  /** L1 retrieval through the channel reader: every batch the origin completes goes to the batch queue. */
  async #readOrigin(): Promise<void> {
    const origin = this.#origin;
    const { txs } = await this.#deps.l1.blockWithTxs(origin.hash);
    const ecotone = isRollupForkActive(this.cfg, "ecotone", origin.timestamp);
    const items = batcherData(txs, this.cfg.batchInboxAddress, this.#traversalConfig.batcherAddr, ecotone);
    const wanted = items.flatMap((d) => (d.kind === "blob" ? [{ index: d.index, hash: d.hash }] : []));
    const blobs = wanted.length === 0 ? [] : await this.#fetchBlobs(origin, wanted);
    let blob = 0;
    let datas: Uint8Array[] = [];
    for (const item of items) {
      if (item.kind === "calldata") datas.push(item.data);
      else {
        try {
          datas.push(decodeBlobData(blobs[blob++]));
        } catch (e) {
          this.#deps.onDrop?.("l1-retrieval", (e as Error).message);
        }
      }
    }
    // Alt-DA: every input is resolved before any frame goes on, so that a wait leaves nothing half read.
    if (this.#deps.altda !== undefined) datas = await this.#resolveAltDa(this.#deps.altda, origin, datas);
    for (const data of datas) {
      const refused = this.#frames.push(data, origin);
      if (refused !== undefined) this.#deps.onDrop?.("frame-queue", refused);
      await this.#drainFrames(origin);
    }
  }

  /**
   * Alt-DA retrieval (specs/experimental/alt-da.md "Derivation"; op-node altda_data_source.go): data of
   * version 1 is a commitment whose input (frames with their version byte) comes from the DA server;
   * other data goes on as it is. Invalid commitments and skipped inputs are dropped, as are inputs of
   * keccak256 commitments above MAX_INPUT_SIZE (they could not be resolved on L1).
   */
  async #resolveAltDa(altda: AltDaSource, origin: L1BlockRef, datas: Uint8Array[]): Promise<Uint8Array[]> {
    await altda.advanceL1Origin(origin);
    const out: Uint8Array[] = [];
    for (const data of datas) {
      if (data.length === 0) continue;
      if (data[0] !== TX_DATA_VERSION_1) {
        out.push(data);
        continue;
      }
      let c: Commitment;
      try {
        c = decodeCommitment(data.subarray(1));
      } catch (e) {
        this.#deps.onDrop?.("altda", (e as Error).message);
        continue;
      }
      const input = await altda.getInput(c, origin);
      if (input === "skip") {
        this.#deps.onDrop?.("altda", "input skipped (expired challenge or another commitment type)");
      } else if (c.type === KECCAK256_COMMITMENT && input.length > MAX_INPUT_SIZE) {
        this.#deps.onDrop?.("altda", `input of ${input.length} bytes above ${MAX_INPUT_SIZE}`);
      } else {
        out.push(input);
      }
    }
    return out;
  }

  async #fetchBlobs(
    origin: L1BlockRef,
    wanted: { index: number; hash: Uint8Array }[],
  ): Promise<Uint8Array[]> {
    if (this.#deps.blobs === undefined) {
      throw new BaseError(
        "BLOBS_UNAVAILABLE",
        `Cannot read the blobs of L1 block ${origin.number}: no beacon endpoint`,
        {
          severity: "temporary",
        },
      );
    }
    return await this.#deps.blobs.blobs(origin, wanted);
  }

  async #drainFrames(origin: L1BlockRef): Promise<void> {
    const holocene = isRollupForkActive(this.cfg, "holocene", origin.timestamp);
    const drop = (reason: string) => this.#deps.onDrop?.("channel", reason);
    for (let f: Frame | undefined; (f = this.#frames.next()) !== undefined;) {
      if (holocene) {
        const ch = this.#assembler.add(f, origin, drop);
        if (ch !== undefined) await this.#channel(ch, origin);
        continue;
      }
      const refused = this.#bank.ingest(f, origin);
      if (refused !== undefined) drop(refused);
      for (let ch: ReadChannel | undefined; (ch = this.#bank.read(origin)) !== undefined;) {
        await this.#channel(ch, origin);
      }
    }
  }

  async #channel(ch: ReadChannel, origin: L1BlockRef): Promise<void> {
    this.#deps.onChannelInput?.(ch.data.length);
    const { batches, error } = await readChannel(this.cfg, ch.data, origin);
    if (error !== undefined) this.#deps.onDrop?.("channel-reader", error);
    const channel = this.#channels++;
    for (const batch of batches) this.#pending.push({ batch, channel });
  }

  async #attributes(
    parent: L2BlockRef,
    batch: SingularBatch,
  ): Promise<{ attributes: PayloadAttributes; systemConfig: SystemConfig }> {
    const l1 = this.#deps.l1;
    const header = await l1.header(batch.epochHash);
    const newEpoch = parent.l1Origin.number !== batch.epochNumber;
    const receipts = newEpoch ? await l1.receipts(header.hash) : [];
    let systemConfig = await this.#deps.l2.systemConfigOf(parent);
    if (newEpoch) {
      systemConfig = systemConfigUpdatesFromReceipts(
        systemConfig,
        receipts,
        this.cfg.l1SystemConfigAddress,
        header.timestamp,
        this.cfg,
      ).config;
    }
    const attributes = buildPayloadAttributes({
      config: this.cfg,
      parent,
      l1Origin: header,
      receipts,
      systemConfig,
      l1BlobFeeSchedule: this.#deps.l1BlobFeeSchedule,
      upgradeTransactions: (t) => upgradeTxsAt(this.cfg, t),
    });
    attributes.transactions = [...(attributes.transactions ?? []), ...batch.transactions];
    return { attributes, systemConfig };
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
