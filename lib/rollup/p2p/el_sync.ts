/**
 * --syncmode=execution-layer (op-node's EL sync, op-node/rollup/engine EngineController): instead of
 * deriving every block from L1 from genesis, a fresh node hands the unsafe blocks it hears of to the
 * execution client, which gets the chain up to them by itself, and trusts the block it reached as
 * safe and finalized; derivation from L1 then starts there.
 *
 * As op-node: EL sync starts only when the engine has no finalized block past genesis (otherwise the
 * node goes straight to consensus-layer sync); while it runs, a gossiped block goes to the engine
 * whatever its parent (newPayload answering SYNCING or ACCEPTED, forkchoiceUpdated to it answering
 * SYNCING are fine) and derivation waits; the first VALID ends it: the block becomes the head, the
 * safe and the finalized block, and derivation resets there.
 *
 * An execution client that syncs itself (op-geth, op-reth: snap sync over devp2p) needs nothing more.
 * keel's own engine has no devp2p: for it the node asks its p2p peers for the blocks between its head
 * and the gossiped block (payload_by_number, each the parent by hash of the next) and inserts them,
 * bounded by op-node's unsafe-payload memory; a chain further behind falls back to consensus-layer sync.
 */
import { BaseError } from "../../common/errors.ts";
import { getLogger } from "../../common/logger.ts";
import type { L2BlockRef } from "../../protocol/block_ref.ts";
import type { EngineApi, PayloadStatus } from "../../protocol/engine.ts";
import type { GossipBlock } from "../../protocol/gossip_block.ts";
import type { RollupConfig } from "../../protocol/rollup_config.ts";
import { l2BlockRefFromPayload } from "../derive/mod.ts";
import { engineVersions, type L2Chain } from "../driver/mod.ts";

export type ElSyncState = "will-start" | "started" | "finished";

export interface ElSyncDeps {
  engine: EngineApi;
  l2: L2Chain;
  /** The engine's finalized block number (undefined: none yet). */
  finalizedNumber(): Promise<bigint | undefined>;
  /** The safe block the forkchoice keeps while syncing (the driver's). */
  safe(): L2BlockRef;
  /**
   * For an engine that cannot sync itself: brings the blocks between its head and `block` from peers
   * (the number inserted); throws when they cannot be had.
   */
  backfill?(block: GossipBlock, from: string): Promise<number>;
  /** EL sync ended on `ref` (head, safe and finalized): derivation starts again from it. */
  onFinished(ref: L2BlockRef): void;
  /**
   * The engine can EL-sync past a finalized block (op-node's SupportsPostFinalizationELSync, true for
   * --l2.enginekind=reth): EL sync runs even when the engine has one.
   */
  postFinalization?: boolean;
}

/** What became of a block offered while syncing. */
export type ElSyncOutcome =
  /** Not EL sync's: the node treats it as any gossiped block (EL sync is over or never started). */
  | "skipped"
  /** Handed to the engine, which is still syncing. */
  | "syncing"
  /** The engine reached it: EL sync is over. */
  | "finished"
  /** The engine called it invalid. */
  | "invalid";

const ZERO32 = new Uint8Array(32);

export class ElSync {
  readonly cfg: RollupConfig;
  readonly #deps: ElSyncDeps;
  readonly #log = getLogger(["rollup", "p2p", "elsync"]);
  #state: ElSyncState = "will-start";
  #started = 0;
  /** One block at a time (gossip arrives concurrently). */
  #serial: Promise<unknown> = Promise.resolve();

  constructor(cfg: RollupConfig, deps: ElSyncDeps) {
    this.cfg = cfg;
    this.#deps = deps;
  }

  get state(): ElSyncState {
    return this.#state;
  }

  /** True until EL sync is over (or skipped): derivation and the sequencer wait meanwhile. */
  get syncing(): boolean {
    return this.#state !== "finished";
  }

  /**
   * Decides at start, as op-node does at the first unsafe block: an engine with a finalized block past
   * genesis needs no EL sync (a restart after one), so derivation need not wait for a gossiped block.
   */
  async init(): Promise<void> {
    if (this.#state !== "will-start") return;
    const finalized = await this.#deps.finalizedNumber().catch(() => undefined);
    if (this.#pastGenesis(finalized)) this.#skip(finalized!);
  }

  /** A finalized block that rules EL sync out (past genesis, and the engine cannot EL-sync past it). */
  #pastGenesis(finalized: bigint | undefined): boolean {
    return finalized !== undefined && finalized > this.cfg.genesis.l2.number &&
      this.#deps.postFinalization !== true;
  }

  #skip(finalized: bigint): void {
    this.#log.info("Skipping EL sync and going straight to CL sync because there is a finalized block", {
      finalized: Number(finalized),
    });
    this.#state = "finished";
  }

  /** A gossiped block (sent by peer `from`), while syncing. */
  offer(block: GossipBlock, from: string): Promise<ElSyncOutcome> {
    const run = this.#serial.then(() => this.#offer(block, from));
    this.#serial = run.catch(() => {});
    return run;
  }

  async #offer(block: GossipBlock, from: string): Promise<ElSyncOutcome> {
    if (this.#state === "will-start") {
      const finalized = await this.#deps.finalizedNumber();
      if (this.#pastGenesis(finalized)) {
        this.#skip(finalized!);
        return "skipped";
      }
      this.#log.info("Starting EL sync", { target: Number(block.payload.blockNumber) });
      this.#state = "started";
      this.#started = Date.now();
    }
    if (this.#state === "finished") return "skipped";
    let status = await this.#newPayload(block);
    if (status.status === "INVALID") return "invalid";
    if (status.status !== "VALID") status = await this.#forkchoice(block, this.#deps.safe().hash, ZERO32);
    if (status.status !== "VALID" && this.#deps.backfill !== undefined) {
      const n = await this.#deps.backfill(block, from);
      this.#log.info("EL sync: blocks from peers inserted", {
        count: n,
        target: Number(block.payload.blockNumber),
      });
      status = await this.#newPayload(block);
      if (status.status === "INVALID") return "invalid";
    }
    if (status.status !== "VALID") return "syncing";
    const ref = l2BlockRefFromPayload(this.cfg, block.payload);
    // op-node: the block reached is trusted as safe and finalized (syncStatusFinishedELButNotFinalized).
    const done = await this.#forkchoice(block, ref.hash, ref.hash);
    if (done.status !== "VALID") {
      throw new BaseError(
        "EL_SYNC_FORKCHOICE",
        `Cannot finish EL sync at block ${ref.number}: forkchoiceUpdated answered ${done.status}`,
      );
    }
    this.#state = "finished";
    this.#log.info("Finished EL sync", {
      block: Number(ref.number),
      seconds: Math.round((Date.now() - this.#started) / 1000),
    });
    this.#deps.onFinished(ref);
    return "finished";
  }

  /** Gives up EL sync (the chain cannot be had that way): consensus-layer sync from here on. */
  abandon(reason: string): void {
    if (this.#state === "finished") return;
    this.#log.warn("EL sync abandoned; deriving from L1 instead: {reason}", { reason });
    this.#state = "finished";
  }

  async #newPayload(block: GossipBlock): Promise<PayloadStatus> {
    const p = block.payload;
    const v = engineVersions(this.cfg, p.timestamp);
    return v.newPayload === 2 ? await this.#deps.engine.newPayload(2, p) : await this.#deps.engine.newPayload(
      v.newPayload,
      p,
      [],
      block.parentBeaconBlockRoot,
      v.newPayload === 4 ? [] : undefined,
    );
  }

  async #forkchoice(block: GossipBlock, safe: Uint8Array, finalized: Uint8Array): Promise<PayloadStatus> {
    const v = engineVersions(this.cfg, block.payload.timestamp);
    const r = await this.#deps.engine.forkchoiceUpdated(v.fcu, {
      headBlockHash: block.payload.blockHash,
      safeBlockHash: safe,
      finalizedBlockHash: finalized,
    });
    return r.payloadStatus;
  }
}
