/**
 * The sequencer (specs/protocol/derivation.md "Sequencing & Batch Submission Overview"; op-node's
 * sequencer and L1OriginSelector): every block time it builds the next unsafe L2 block on the engine
 * head from payload attributes (the L1-info deposit, the epoch's user deposits, the network upgrade
 * transactions) and the engine's transaction pool, through the Engine API.
 *
 * L1 origin: the next L1 block once it is `sequencer.l1-confs` deep under the L1 head and its time is
 * not after the new block's; the parent's origin otherwise. Past the sequencer drift the next origin
 * must be taken, and the block carries no pool transactions (noTxPool); so do the activation blocks of
 * forks with upgrade transactions. With `sequencer.max-safe-lag` > 0 it pauses while the unsafe head
 * is that far ahead of the safe head.
 *
 * Recover mode (`--sequencer.recover`, `admin_setRecoverMode`; op-node's): every block carries no pool
 * transactions, so that a sequencer whose unsafe chain fell behind its L1 origins (the batcher down
 * past the sequencing window, say) catches up with blocks that derivation reproduces exactly (deposits
 * only, the next L1 origin taken as soon as it exists under the confirmation depth and its time allows,
 * as auto-derivation does: specs/protocol/derivation.md "Batch Queue", empty batches).
 *
 * Under op-conductor (`--conductor.enabled`, op-node's rules): the sequencer starts stopped, starts only
 * while the conductor says it leads (`conductor_leader`), and commits each block to the conductor
 * (`conductor_commitUnsafePayload`) before it becomes the head or is gossiped; a block the conductor does
 * not take is dropped and built again. `admin_overrideLeader` makes the node lead without asking.
 *
 * States (interfaces.md 3.1): active or stopped; `start()` / `stop()` are admin_startSequencer /
 * admin_stopSequencer, with the state saved to `rpc.admin-state` when given.
 */
import { BaseError, bytesToHex, equalBytes, getLogger } from "../../common/mod.ts";
import type { L1BlockRef, L2BlockRef } from "../../protocol/block_ref.ts";
import type { EngineApi, ExecutionPayload } from "../../protocol/engine.ts";
import { isForkActivationBlock } from "../../protocol/hardforks.ts";
import type { L1BlobFeeSchedule } from "../../protocol/l1_blob_fee.ts";
import { maxSequencerDrift, type RollupConfig } from "../../protocol/rollup_config.ts";
import { UPGRADE_FORKS } from "../../protocol/upgrade_txs.ts";
import {
  buildPayloadAttributes,
  l2BlockRefFromPayload,
  systemConfigFromL2Block,
  upgradeTxsAt,
} from "../derive/mod.ts";
import { engineVersions, type L2Chain } from "../driver/mod.ts";
import type { L1Client } from "../l1/mod.ts";
import { systemConfigUpdatesFromReceipts } from "../../protocol/system_config.ts";

export interface SequencerOptions {
  /** L1 blocks must be this deep under the L1 head to become an origin (--sequencer.l1-confs). */
  l1Confs: number;
  /** Pause while the unsafe head leads the safe head by this many blocks; 0: never (--sequencer.max-safe-lag). */
  maxSafeLag: number;
  /** Start stopped (--sequencer.stopped). */
  stopped: boolean;
  /** Where admin_startSequencer / admin_stopSequencer persist the state (--rpc.admin-state). */
  adminStatePath?: string;
  /** Start in recover mode: blocks without pool transactions (--sequencer.recover). */
  recover: boolean;
}

export const DEFAULT_SEQUENCER_OPTIONS: SequencerOptions = {
  l1Confs: 4,
  maxSafeLag: 0,
  stopped: false,
  recover: false,
};

/** op-conductor as the sequencer uses it (op-node's SequencerConductor). */
export interface SequencerConductor {
  /** Whether this node is the leader (true once overridden). */
  leader(): Promise<boolean>;
  /** Commits a block before it is published; throws when the conductor does not take it. */
  commitUnsafePayload(
    payload: ExecutionPayload,
    parentBeaconBlockRoot: Uint8Array | undefined,
  ): Promise<void>;
  /** admin_overrideLeader: lead and commit nothing from now on (disaster recovery). */
  overrideLeader(): void;
}

export interface SequencerDeps {
  l1: L1Client;
  engine: EngineApi;
  l2: L2Chain;
  /** The safe and finalized L2 heads (the driver's). */
  heads: () => { safe: L2BlockRef; finalized: L2BlockRef };
  l1BlobFeeSchedule?: L1BlobFeeSchedule;
  /** Seconds since the epoch (tests pass a clock). */
  now?: () => number;
  /** An error of severity `reset` (an L1 reorg under the unsafe head): the driver resets. */
  onReset?: () => void;
  /** op-conductor (--conductor.enabled). */
  conductor?: SequencerConductor;
  /** Each block it sequenced, once it is the engine's head (the p2p host publishes it). */
  onBlock?: (payload: ExecutionPayload, parentBeaconBlockRoot: Uint8Array | undefined) => void;
  /**
   * Each block sealed (getPayload answered, before it is inserted), as op-node's engine measures it:
   * its payload, the seconds since the build started (forkchoiceUpdated with the attributes) and
   * the seconds the seal took (getPayload).
   */
  onSealed?: (sealed: SealedBlock) => void;
  /** A sequencing attempt failed (one of severity `reset` also goes to onReset). */
  onError?: (error: unknown) => void;
  /**
   * Whether the engine is in EL sync (--syncmode=execution-layer): no block is built meanwhile, as
   * op-node's EngineController.StartPayload refuses ("engine is in progress of p2p sync").
   */
  syncing?: () => boolean;
}

/** A block the sequencer sealed, with the times it took. */
export interface SealedBlock {
  payload: ExecutionPayload;
  buildSeconds: number;
  sealSeconds: number;
}

/** The L1 origin of the block after `parent` at `timestamp` (op-node L1OriginSelector.FindL1Origin). */
export async function selectL1Origin(
  cfg: RollupConfig,
  l1: Pick<L1Client, "blockRef">,
  parent: L2BlockRef,
  timestamp: bigint,
  l1Head: bigint,
  l1Confs: bigint,
): Promise<L1BlockRef> {
  const current = await l1.blockRef(parent.l1Origin.hash);
  const pastDrift = timestamp > current.timestamp + maxSequencerDrift(cfg, current.timestamp);
  const nextNumber = current.number + 1n;
  let next: L1BlockRef | undefined;
  if (nextNumber + l1Confs <= l1Head || pastDrift) {
    try {
      next = await l1.blockRef(nextNumber);
    } catch (e) {
      if (!(e instanceof BaseError && e.code === "L1_NOT_FOUND")) throw e;
    }
  }
  if (next !== undefined && !equalBytes(next.parentHash, current.hash)) {
    // op-node L1OriginSelector: the next L1 block does not build on the current origin, an L1 reorg
    // took it away; the driver's reset walks the unsafe head back to a canonical origin.
    throw new BaseError(
      "L1_REORG",
      `Cannot sequence past L1 origin ${current.number} (${
        bytesToHex(current.hash)
      }): L1 block ${next.number} does not build on it`,
      { severity: "reset" },
    );
  }
  if (pastDrift) {
    if (next === undefined) {
      throw new BaseError(
        "SEQUENCER_DRIFT",
        `Cannot sequence at ${timestamp}: past the sequencer drift of L1 origin ${current.number} and no next L1 block`,
        { severity: "temporary" },
      );
    }
    return next;
  }
  return next !== undefined && timestamp >= next.timestamp ? next : current;
}

export class Sequencer {
  readonly cfg: RollupConfig;
  readonly options: SequencerOptions;
  readonly #deps: SequencerDeps;
  readonly #log = getLogger(["rollup", "sequencer"]);
  #active: boolean;
  #recover: boolean;
  #closed = false;
  /** The last step found the engine in EL sync (logged once). */
  #waitedForSync = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;

  constructor(cfg: RollupConfig, deps: SequencerDeps, options: Partial<SequencerOptions> = {}) {
    this.cfg = cfg;
    this.#deps = deps;
    this.options = { ...DEFAULT_SEQUENCER_OPTIONS, ...options };
    this.#active = !this.options.stopped;
    this.#recover = this.options.recover;
  }

  /** Reads the persisted admin state (rpc.admin-state) over `--sequencer.stopped`, and starts the loop. */
  async open(): Promise<void> {
    const path = this.options.adminStatePath;
    if (path !== undefined) {
      try {
        const saved = JSON.parse(await Deno.readTextFile(path)) as { sequencerStopped?: boolean };
        if (typeof saved.sequencerStopped === "boolean") this.#active = !saved.sequencerStopped;
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
    }
    this.#schedule(0);
  }

  get active(): boolean {
    return this.#active;
  }

  /** Whether blocks are built without pool transactions (recover mode). */
  get recovering(): boolean {
    return this.#recover;
  }

  /** admin_conductorEnabled. */
  get conductorEnabled(): boolean {
    return this.#deps.conductor !== undefined;
  }

  /** admin_overrideLeader: without a conductor, nothing to override. */
  overrideLeader(): void {
    this.#deps.conductor?.overrideLeader();
  }

  /** admin_setRecoverMode: from the next block on, blocks carry pool transactions again or not. */
  setRecoverMode(on: boolean): void {
    if (on !== this.#recover) this.#log.info("Recover mode {state}", { state: on ? "on" : "off" });
    this.#recover = on;
  }

  async #persist(): Promise<void> {
    const path = this.options.adminStatePath;
    if (path !== undefined) {
      await Deno.writeTextFile(path, JSON.stringify({ sequencerStopped: !this.#active }));
    }
  }

  /** admin_startSequencer: under a conductor, only while it says this node leads. */
  async start(): Promise<void> {
    if (this.#active) throw new BaseError("SEQUENCER_ACTIVE", "sequencer already running");
    const conductor = this.#deps.conductor;
    if (conductor !== undefined) {
      let leader: boolean;
      try {
        leader = await conductor.leader();
      } catch (e) {
        throw new BaseError("SEQUENCER_LEADER", `sequencer leader check failed: ${(e as Error).message}`, {
          cause: e,
        });
      }
      if (!leader) throw new BaseError("SEQUENCER_NOT_LEADER", "sequencer is not the leader, aborting");
    }
    this.#active = true;
    await this.#persist();
    this.#schedule(0);
  }

  /** admin_stopSequencer: returns the hash of the last block built. */
  async stop(): Promise<Uint8Array> {
    if (!this.#active) throw new BaseError("SEQUENCER_STOPPED", "sequencer not running");
    this.#active = false;
    await this.#persist();
    await this.#running;
    const head = await this.#deps.l2.payloadByNumber(await this.#deps.l2.headNumber());
    return head?.blockHash ?? new Uint8Array(32);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(ms: number): void {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#tick();
    }, ms);
  }

  async #tick(): Promise<void> {
    let wait = 1000;
    try {
      if (this.#active) wait = await this.#step();
    } catch (e) {
      this.#log.warn("Sequencing failed: {message}", { message: (e as Error).message });
      if (e instanceof BaseError && e.severity === "reset") this.#deps.onReset?.();
      this.#deps.onError?.(e);
    }
    if (this.#active) this.#schedule(wait);
  }

  /** Builds the next block when its time has come; returns the milliseconds until the next try. */
  async #step(): Promise<number> {
    const { l2, l1 } = this.#deps;
    if (this.#deps.syncing?.() === true) {
      if (!this.#waitedForSync) this.#log.info("Not sequencing while the engine syncs (EL sync)");
      this.#waitedForSync = true;
      return 1000;
    }
    if (this.#waitedForSync) this.#log.info("EL sync is over: sequencing resumes");
    this.#waitedForSync = false;
    const head = (await l2.payloadByNumber(await l2.headNumber()))!;
    const parent = l2BlockRefFromPayload(this.cfg, head);
    const { safe, finalized } = this.#deps.heads();
    const lag = this.options.maxSafeLag;
    if (lag > 0 && parent.number - safe.number >= BigInt(lag)) return 1000;
    const timestamp = parent.timestamp + this.cfg.blockTime;
    const now = this.#deps.now?.() ?? Date.now() / 1000;
    if (now < Number(timestamp)) return Math.max(50, (Number(timestamp) - now) * 1000);
    const l1Head = (await l1.blockRef("latest")).number;
    const origin = await selectL1Origin(
      this.cfg,
      l1,
      parent,
      timestamp,
      l1Head,
      BigInt(this.options.l1Confs),
    );
    const newEpoch = origin.number !== parent.l1Origin.number;
    const receipts = newEpoch ? await l1.receipts(origin.hash) : [];
    let systemConfig = systemConfigFromL2Block(this.cfg, head);
    if (newEpoch) {
      systemConfig = systemConfigUpdatesFromReceipts(
        systemConfig,
        receipts,
        this.cfg.l1SystemConfigAddress,
        origin.timestamp,
        this.cfg,
      ).config;
    }
    const upgrade = UPGRADE_FORKS.some((f) =>
      isForkActivationBlock(this.cfg.forks, f, timestamp, this.cfg.blockTime)
    );
    const pastDrift = timestamp > origin.timestamp + maxSequencerDrift(this.cfg, origin.timestamp);
    const attributes = buildPayloadAttributes({
      config: this.cfg,
      parent,
      l1Origin: await l1.header(origin.hash),
      receipts,
      systemConfig,
      l1BlobFeeSchedule: this.#deps.l1BlobFeeSchedule,
      upgradeTransactions: (t) => upgradeTxsAt(this.cfg, t),
      noTxPool: upgrade || pastDrift || this.#recover,
    });
    if (this.#recover) {
      this.#log.warn("Sequencing block {number} without pool transactions, in recover mode", {
        number: parent.number + 1n,
      });
    }
    const engine = this.#deps.engine;
    const v = engineVersions(this.cfg, timestamp);
    const buildStart = performance.now();
    const fcu = await engine.forkchoiceUpdated(v.fcu, {
      headBlockHash: parent.hash,
      safeBlockHash: safe.hash,
      finalizedBlockHash: finalized.hash,
    }, attributes);
    if (fcu.payloadId === null) {
      throw new BaseError(
        "SEQUENCER_BUILD",
        `Cannot build block ${parent.number + 1n}: ${fcu.payloadStatus.status}`,
      );
    }
    const sealStart = performance.now();
    const envelope = await engine.getPayload(v.get, fcu.payloadId);
    const p: ExecutionPayload = envelope.executionPayload;
    const sealed = performance.now();
    this.#deps.onSealed?.({
      payload: p,
      buildSeconds: (sealed - buildStart) / 1000,
      sealSeconds: (sealed - sealStart) / 1000,
    });
    // Committed to the conductor before anything else sees it; a failure drops the block (built again).
    try {
      await this.#deps.conductor?.commitUnsafePayload(p, envelope.parentBeaconBlockRoot);
    } catch (e) {
      throw new BaseError(
        "SEQUENCER_CONDUCTOR",
        `Cannot commit block ${p.blockNumber} to the conductor: ${(e as Error).message}`,
        { cause: e },
      );
    }
    const status = v.newPayload === 2 ? await engine.newPayload(2, p) : await engine.newPayload(
      v.newPayload,
      p,
      [],
      envelope.parentBeaconBlockRoot,
      v.newPayload === 4 ? [] : undefined,
    );
    if (status.status !== "VALID") {
      throw new BaseError(
        "SEQUENCER_INSERT",
        `Cannot insert block ${p.blockNumber}: ${status.validationError ?? status.status}`,
      );
    }
    await engine.forkchoiceUpdated(v.fcu, {
      headBlockHash: p.blockHash,
      safeBlockHash: safe.hash,
      finalizedBlockHash: finalized.hash,
    });
    this.#deps.onBlock?.(p, envelope.parentBeaconBlockRoot);
    this.#log.info("Sequenced block", {
      number: Number(p.blockNumber),
      txs: p.transactions.length,
      l1Origin: Number(origin.number),
    });
    return 0;
  }
}
