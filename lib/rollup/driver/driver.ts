/**
 * The rollup node's driver as a verifier (specs/protocol/derivation.md "Engine Queue"): it runs the
 * derivation pipeline from the safe head, turns each derived payload attributes into a block through
 * the Engine API (forkchoiceUpdated with the attributes, getPayload, newPayload, forkchoiceUpdated to
 * the new block as head and safe), and tracks the L1 and L2 heads for rollupnode_syncStatus. An L2
 * block is finalized once the L1 block it was derived from is finalized.
 *
 * On start the safe head is the engine's safe block (genesis on a fresh chain) and the pipeline
 * restarts a sequencing window before its L1 origin, so batches read before a restart are read again
 * (the batch queue drops those already applied). Errors with severity `reset` restart the pipeline
 * from the safe head, `temporary` ones are retried after the poll interval, others stop the driver.
 */
import { BaseError, equalBytes, getLogger, WakeableSleep } from "../../common/mod.ts";
import type { L1BlockRef, L2BlockRef } from "../../protocol/block_ref.ts";
import type { EngineApi, EngineVersion, ExecutionPayload, PayloadAttributes } from "../../protocol/engine.ts";
import type { L1BlobFeeSchedule } from "../../protocol/l1_blob_fee.ts";
import { OUTPUT_VERSION_V0, outputRootV0 } from "../../protocol/output_root.ts";
import { isRollupForkActive, type RollupConfig } from "../../protocol/rollup_config.ts";
import {
  type BlobSource,
  DerivationPipeline,
  l2BlockRefFromPayload,
  systemConfigFromL2Block,
} from "../derive/mod.ts";
import type { L1Client } from "../l1/mod.ts";
import { L1Heads } from "./l1_heads.ts";
import { findL2Heads, type L2Heads } from "./find_heads.ts";
import type { AltDaManager } from "../altda/mod.ts";
import type { SafeHeadListener } from "./safe_db.ts";

/** An L2 block's output root and what it commits to (proposals.md "L2 Output Commitment Construction"). */
export interface L2Output {
  version: Uint8Array;
  outputRoot: Uint8Array;
  blockRef: L2BlockRef;
  /** The L2ToL1MessagePasser's storage root. */
  withdrawalStorageRoot: Uint8Array;
  stateRoot: Uint8Array;
}

/** What the driver needs of the L2 execution client besides the Engine API. */
export interface L2Chain {
  /** The canonical block `number` as a payload; undefined past the head. */
  payloadByNumber(number: bigint): Promise<ExecutionPayload | undefined>;
  /** The number of the engine's safe block (the last one applied from L1), if any. */
  safeNumber(): Promise<bigint | undefined>;
  /** The number of the engine's finalized block, if any (EL sync starts only without one). */
  finalizedNumber?(): Promise<bigint | undefined>;
  /** The number of the engine's head (the unsafe head). */
  headNumber(): Promise<bigint>;
  /** The L2ToL1MessagePasser's storage root at block `hash` (output roots before Isthmus). */
  messagePasserStorageRoot(hash: Uint8Array): Promise<Uint8Array>;
}

export interface DriverOptions {
  /** Milliseconds between L1 polls when the pipeline waits for L1 (op-node --l1.http-poll-interval). */
  pollIntervalMs: number;
  /** L1 blocks derived from must be this deep under the L1 head (op-node --verifier.l1-confs). */
  l1Confs: number;
  /**
   * Milliseconds between reads of the L1 safe and finalized blocks (op-node --l1.epoch-poll-interval);
   * 0 or negative: never (l1_heads.ts).
   */
  epochPollIntervalMs: number;
  /**
   * Output roots take the L2ToL1MessagePasser storage root from the state even where the header
   * carries it (Isthmus withdrawalsRoot), as before Isthmus (op-node --fetch-withdrawal-root-from-state).
   */
  fetchWithdrawalRootFromState: boolean;
}

export const DEFAULT_DRIVER_OPTIONS: DriverOptions = {
  pollIntervalMs: 12_000,
  l1Confs: 0,
  epochPollIntervalMs: 384_000,
  fetchWithdrawalRootFromState: false,
};

export interface DriverDeps {
  l1: L1Client;
  /** Blob bodies (a beacon node: l1/beacon_client.ts); without it blob batcher transactions stop derivation. */
  blobs?: BlobSource;
  engine: EngineApi;
  l2: L2Chain;
  l1BlobFeeSchedule?: L1BlobFeeSchedule;
  /** Alt-DA chains: the manager of commitments and challenges (it outlives pipeline resets). */
  altda?: AltDaManager;
  /** `--safedb.path`: told each safe head and the L1 block it was derived up to, and each reset. */
  safeDb?: SafeHeadListener;
  /** `--snapshotlog.file`: the heads after each change, with what changed (op-node's snapshot log). */
  snapshot?: (event: string, heads: HeadsSnapshot) => void;
  /**
   * After each derivation step: true when the pipeline waits for an L1 block that does not exist yet,
   * false when it made progress or failed (op-node's DerivationPipeline.Step and its derivation_idle).
   */
  onDerivationIdle?: (idle: boolean) => void;
  /** A derivation step (or the reset before the first) failed; the severity says what follows. */
  onDerivationError?: (error: unknown) => void;
  /** The compressed size in bytes of each channel the channel reader takes (pipeline.ts onChannelInput). */
  onChannelInput?: (bytes: number) => void;
  /** True while derivation must wait (EL sync running: rollup/p2p/el_sync.ts). */
  paused?: () => boolean;
}

/** The heads op-node's snapshot log records ("Rollup State Snapshot"). */
export interface HeadsSnapshot {
  l1Head: L1BlockRef;
  /** The L1 block derivation has read up to. */
  l1Current: L1BlockRef;
  l2Head: L2BlockRef;
  l2Safe: L2BlockRef;
  l2Finalized: L2BlockRef;
}

/**
 * L1 blocks a reset walks the safe head back (op-node rollup.Config.SyncLookback): the sequencing
 * window, or on Alt-DA chains the challenge and resolve windows if longer (a commitment can be
 * invalidated that long after its inclusion).
 */
export function syncLookback(cfg: RollupConfig): bigint {
  const a = cfg.altDA;
  const windows = a === undefined ? 0n : a.daChallengeWindow + a.daResolveWindow;
  return windows > cfg.seqWindowSize ? windows : cfg.seqWindowSize;
}

/** rollupnode_syncStatus (interfaces.md 2.6), in internal form. */
export interface SyncStatus {
  currentL1: L1BlockRef;
  currentL1Finalized: L1BlockRef;
  headL1: L1BlockRef;
  safeL1: L1BlockRef;
  finalizedL1: L1BlockRef;
  unsafeL2: L2BlockRef;
  safeL2: L2BlockRef;
  finalizedL2: L2BlockRef;
  pendingSafeL2: L2BlockRef;
  queuedUnsafeL2: L2BlockRef;
  engineSyncTarget: L2BlockRef;
}

const ZERO32 = new Uint8Array(32);
const ZERO_L1: L1BlockRef = { hash: ZERO32, number: 0n, parentHash: ZERO32, timestamp: 0n };
const ZERO_L2: L2BlockRef = { ...ZERO_L1, l1Origin: { hash: ZERO32, number: 0n }, sequenceNumber: 0n };

/** The Engine API versions op-node uses for a block at `timestamp` (op-service/sources/engine_client.go). */
export function engineVersions(cfg: RollupConfig, timestamp: bigint): {
  fcu: EngineVersion;
  get: EngineVersion;
  newPayload: EngineVersion;
} {
  if (isRollupForkActive(cfg, "isthmus", timestamp)) return { fcu: 3, get: 4, newPayload: 4 };
  if (isRollupForkActive(cfg, "ecotone", timestamp)) return { fcu: 3, get: 3, newPayload: 3 };
  if (isRollupForkActive(cfg, "canyon", timestamp)) return { fcu: 2, get: 2, newPayload: 2 };
  return { fcu: 1, get: 2, newPayload: 2 };
}

function same(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whether `block` is what `attributes` on `parent` build (op-node AttributesMatchBlock): parent,
 * timestamp, prevRandao, fee recipient, gas limit, the transactions byte for byte, empty withdrawals.
 * (The parent beacon block root and the EIP-1559 parameters are in the block hash through the header.)
 */
export function attributesMatch(
  parent: L2BlockRef,
  attributes: PayloadAttributes,
  block: ExecutionPayload,
): boolean {
  const txs = attributes.transactions ?? [];
  return same(block.parentHash, parent.hash) && block.timestamp === attributes.timestamp &&
    same(block.prevRandao, attributes.prevRandao) &&
    same(block.feeRecipient, attributes.suggestedFeeRecipient) &&
    (attributes.gasLimit === undefined || block.gasLimit === attributes.gasLimit) &&
    block.transactions.length === txs.length && block.transactions.every((t, i) => same(t, txs[i])) &&
    (block.withdrawals?.length ?? 0) === 0 && (attributes.withdrawals?.length ?? 0) === 0;
}

function severity(e: unknown): string | undefined {
  return e instanceof BaseError ? (e as BaseError & { severity?: string }).severity : undefined;
}

export class Driver {
  readonly cfg: RollupConfig;
  readonly options: DriverOptions;
  readonly #deps: DriverDeps;
  readonly #log = getLogger(["rollup", "driver"]);
  #pipeline: DerivationPipeline | undefined;
  #safe: L2BlockRef = ZERO_L2;
  #finalized: L2BlockRef = ZERO_L2;
  /** Safe blocks not yet finalized, with the L1 block each was derived from. */
  #derived: { block: L2BlockRef; from: bigint }[] = [];
  readonly #heads: L1Heads;
  #unsafe: L2BlockRef = ZERO_L2;
  #resetRequested = false;
  #stopped = false;
  /** Between polls; a new L1 head (wake) or a reset request ends it, or the next one when mid-step. */
  readonly #pause = new WakeableSleep();
  #loop: Promise<void> | undefined;
  /** The error that stopped the driver, if one did. */
  error: unknown;

  constructor(cfg: RollupConfig, deps: DriverDeps, options: Partial<DriverOptions> = {}) {
    this.cfg = cfg;
    this.#deps = deps;
    this.options = { ...DEFAULT_DRIVER_OPTIONS, ...options };
    this.#heads = new L1Heads(deps.l1, ZERO_L1, { epochPollIntervalMs: this.options.epochPollIntervalMs });
  }

  /** Starts deriving in the background: finds the safe head (retried until L1 and L2 answer), then steps. */
  start(): void {
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#pause.wake();
    await this.#loop;
  }

  async #ref(number: bigint): Promise<L2BlockRef> {
    const p = await this.#deps.l2.payloadByNumber(number);
    if (p === undefined) {
      throw new BaseError("L2_NOT_FOUND", `Cannot find L2 block ${number}`, { severity: "temporary" });
    }
    return l2BlockRefFromPayload(this.cfg, p);
  }

  async #reset(): Promise<void> {
    const genesis = this.cfg.genesis.l2.number;
    const safeNumber = (await this.#deps.l2.safeNumber()) ?? genesis;
    // Before the first finalized block here, the engine's (op-node initializeUnknowns): a restarted node
    // keeps the finalized head it had.
    const engineFinalized = this.#finalized.number > genesis
      ? undefined
      : await this.#deps.l2.finalizedNumber?.();
    const current: L2Heads = {
      unsafe: await this.#ref(await this.#deps.l2.headNumber()),
      safe: await this.#ref(safeNumber < genesis ? genesis : safeNumber),
      finalized: this.#finalized.number > genesis ? this.#finalized : await this.#ref(
        engineFinalized !== undefined && engineFinalized > genesis ? engineFinalized : genesis,
      ),
    };
    // The heads to restart from: walked back past any L1 origin an L1 reorg took away, and the safe
    // head a sync lookback (sequencing window, Alt-DA windows) back so that blocks derived from L1 data
    // that may have changed are derived again (matching ones stay as they are: consolidation).
    const heads = await findL2Heads(this.cfg, syncLookback(this.cfg), current, {
      l1ByNumber: async (n) => {
        try {
          return await this.#deps.l1.blockRef(n);
        } catch (e) {
          if (e instanceof BaseError && e.code === "L1_NOT_FOUND") return undefined;
          throw e;
        }
      },
      l2ByNumber: (n) => this.#ref(n),
    });
    const safe = heads.safe;
    if (!equalBytes(heads.unsafe.hash, current.unsafe.hash)) {
      // An L1 reorg took the L1 origins of the unsafe blocks after it away: the engine drops them.
      this.#log.warn("L1 reorg: unsafe head walked back", {
        from: Number(current.unsafe.number),
        to: Number(heads.unsafe.number),
      });
      const v = engineVersions(this.cfg, heads.unsafe.timestamp);
      await this.#deps.engine.forkchoiceUpdated(v.fcu, {
        headBlockHash: heads.unsafe.hash,
        safeBlockHash: safe.hash,
        finalizedBlockHash: heads.finalized.hash,
      });
      this.#unsafe = heads.unsafe;
    }
    if (safe.number < current.safe.number) {
      this.#log.info("Sync start: safe head walked back to re-derive", {
        from: Number(current.safe.number),
        to: Number(safe.number),
      });
    }
    this.#derived = this.#derived.filter((d) => d.block.number <= safe.number);
    const altda = this.#deps.altda;
    const back = safe.l1Origin.number - this.cfg.seqWindowSize;
    const originNumber = back > this.cfg.genesis.l1.number ? back : this.cfg.genesis.l1.number;
    const origin = await this.#deps.l1.blockRef(originNumber);
    altda?.reset(origin);
    const safePayload = await this.#deps.l2.payloadByNumber(safe.number);
    const systemConfig = systemConfigFromL2Block(this.cfg, safePayload!);
    const l2 = this.#deps.l2;
    const cfg = this.cfg;
    this.#pipeline = new DerivationPipeline(
      cfg,
      {
        l1: this.#deps.l1,
        l2: {
          l2BlockRefByNumber: (n) => this.#ref(n),
          transactionsByNumber: async (n) => (await l2.payloadByNumber(n))?.transactions ?? [],
          systemConfigOf: async (b) => systemConfigFromL2Block(cfg, (await l2.payloadByNumber(b.number))!),
        },
        // Batcher transactions' blobs (Ecotone), through the beacon endpoint.
        blobs: this.#deps.blobs,
        l1BlobFeeSchedule: this.#deps.l1BlobFeeSchedule,
        onDrop: (stage, reason) => this.#log.debug("Dropped {stage}: {reason}", { stage, reason }),
        onChannelInput: this.#deps.onChannelInput,
        altda,
      },
      origin,
      systemConfig,
    );
    this.#safe = safe;
    this.#finalized = heads.finalized;
    this.#tellSafeDb((db) => db.reset(safe));
    this.#snapshot("Pipeline reset");
    this.#log.info("Derivation starts", { safe: Number(safe.number), l1Origin: Number(origin.number) });
  }

  async #run(): Promise<void> {
    while (!this.#stopped && this.#pipeline === undefined) {
      try {
        await this.#reset();
        if (this.#safe.number === this.cfg.genesis.l2.number) this.#finalized = this.#safe;
      } catch (e) {
        this.#log.warn("Cannot start derivation yet: {message}", { message: (e as Error).message });
        this.#deps.onDerivationError?.(e);
        await this.#sleep();
      }
    }
    while (!this.#stopped) {
      try {
        if (this.#resetRequested) {
          this.#resetRequested = false;
          await this.#reset();
        }
        if (this.#deps.paused?.() === true) {
          // op-node: the pipeline does not step while the execution client syncs.
          await this.#sleep();
          continue;
        }
        await this.#refreshL1();
        const r = await this.#pipeline!.next(this.#safe);
        this.#deps.onDerivationIdle?.(r === "idle");
        if (r === "idle") {
          await this.#sleep();
          continue;
        }
        const consolidated = await this.#consolidate(r.parent, r.attributes);
        const p = consolidated ?? await this.#apply(r.parent, r.attributes);
        this.#safe = l2BlockRefFromPayload(this.cfg, p);
        this.#derived.push({ block: this.#safe, from: r.derivedFrom.number });
        const safe = this.#safe;
        this.#tellSafeDb((db) => db.updated(safe, r.derivedFrom));
        this.#snapshot("New safe head");
        this.#finalize();
        // Consolidated: the engine had the block already (an unsafe block, or one derived before a reset).
        this.#log.info(consolidated === undefined ? "Derived block" : "Consolidated block", {
          number: Number(this.#safe.number),
          l1: Number(r.derivedFrom.number),
          txs: p.transactions.length,
        });
      } catch (e) {
        if (this.#stopped) return;
        const s = severity(e);
        this.#log.warn("Derivation error: {message}", {
          message: (e as Error).message,
          severity: s ?? "none",
        });
        this.#deps.onDerivationIdle?.(false);
        this.#deps.onDerivationError?.(e);
        if (s === "reset") {
          await this.#reset().catch(() => {});
        } else if (s !== "temporary" && !(e instanceof BaseError && /^(RPC_|L1_NOT_FOUND)/.test(e.code))) {
          this.error = e;
          this.#log.error("Derivation stopped: {message}", { message: (e as Error).message });
          return;
        }
        await this.#sleep();
      }
    }
  }

  /** A safe-head database that cannot be written is logged, not fatal: derivation goes on. */
  #tellSafeDb(fn: (db: SafeHeadListener) => void): void {
    const db = this.#deps.safeDb;
    if (db === undefined) return;
    try {
      fn(db);
    } catch (e) {
      this.#log.error("Cannot record the safe head: {message}", { message: (e as Error).message });
    }
  }

  #sleep(): Promise<void> {
    return this.#pause.sleep(this.options.pollIntervalMs);
  }

  /**
   * L1 consolidation (derivation.md "Engine Queue", "L1-consolidation: payload attributes matching"): the
   * engine already has an unsafe block after the parent whose inputs are the attributes': it becomes safe
   * as it is. Otherwise undefined (the attributes are built, replacing any unsafe block there).
   */
  async #consolidate(
    parent: L2BlockRef,
    attributes: PayloadAttributes,
  ): Promise<ExecutionPayload | undefined> {
    const existing = await this.#deps.l2.payloadByNumber(parent.number + 1n);
    if (existing === undefined || !attributesMatch(parent, attributes, existing)) {
      if (existing !== undefined) {
        this.#log.warn("Unsafe block does not match L1: replacing it", {
          number: Number(existing.blockNumber),
        });
      }
      return undefined;
    }
    const v = engineVersions(this.cfg, attributes.timestamp);
    const head = await this.#deps.l2.payloadByNumber(await this.#deps.l2.headNumber());
    await this.#deps.engine.forkchoiceUpdated(v.fcu, {
      headBlockHash: head?.blockHash ?? existing.blockHash,
      safeBlockHash: existing.blockHash,
      finalizedBlockHash: this.#finalized.hash,
    });
    return existing;
  }

  /**
   * EL sync ended on `ref`, now the engine's head, safe and finalized block (el_sync.ts): derivation
   * restarts from it (a reset never walks the safe head below the finalized one).
   */
  elSynced(ref: L2BlockRef): void {
    this.#finalized = ref;
    this.#safe = ref;
    this.#unsafe = ref;
    this.#derived = [];
    this.#snapshot("EL sync finished");
    this.requestReset();
    this.wake();
  }

  /** The safe and finalized heads (for a sequencer in the same node). */
  get safeHead(): L2BlockRef {
    return this.#safe;
  }

  get finalizedHead(): L2BlockRef {
    return this.#finalized;
  }

  /**
   * A new L1 head was announced (a `newHeads` subscription over a WebSocket L1, as op-node follows L1
   * there): the next step runs now instead of after the poll interval.
   */
  wake(): void {
    this.#pause.wake();
  }

  /** Forces the pipeline to restart from the safe head (admin_resetDerivationPipeline). */
  requestReset(): void {
    this.#resetRequested = true;
    this.#pause.wake();
  }

  async #refreshL1(): Promise<void> {
    const l1Head = this.#heads.head;
    await this.#heads.refresh();
    if (!equalBytes(l1Head.hash, this.#heads.head.hash)) this.#snapshot("New L1 Head");
    this.#finalize();
    const head = await this.#deps.l2.headNumber();
    if (head !== this.#unsafe.number || this.#unsafe === ZERO_L2) {
      this.#unsafe = await this.#ref(head);
      this.#snapshot("New unsafe head");
    }
  }

  #snapshot(event: string): void {
    const snapshot = this.#deps.snapshot;
    if (snapshot === undefined) return;
    try {
      snapshot(event, {
        l1Head: this.#heads.head,
        l1Current: this.#pipeline?.origin ?? ZERO_L1,
        l2Head: this.#unsafe.number > this.#safe.number ? this.#unsafe : this.#safe,
        l2Safe: this.#safe,
        l2Finalized: this.#finalized,
      });
    } catch (e) {
      this.#log.error("Cannot write the snapshot log: {message}", { message: (e as Error).message });
    }
  }

  #finalize(): void {
    let f = this.#heads.finalized.number;
    if (this.#deps.altda !== undefined && this.#heads.finalized !== ZERO_L1) {
      // Alt-DA: up to the last commitment that can no longer be invalidated (specs "Safety and Finality").
      f = this.#deps.altda.finalize(this.#heads.finalized)?.number ?? -1n;
    }
    while (this.#derived.length > 0 && this.#derived[0].from <= f && this.#heads.finalized !== ZERO_L1) {
      this.#finalized = this.#derived.shift()!.block;
    }
  }

  async #apply(parent: L2BlockRef, attributes: PayloadAttributes): Promise<ExecutionPayload> {
    const engine = this.#deps.engine;
    const v = engineVersions(this.cfg, attributes.timestamp);
    const state = {
      headBlockHash: parent.hash,
      safeBlockHash: parent.hash,
      finalizedBlockHash: this.#finalized.hash,
    };
    const fcu = await engine.forkchoiceUpdated(v.fcu, state, attributes);
    if (fcu.payloadStatus.status !== "VALID" || fcu.payloadId === null) {
      throw new BaseError(
        "ENGINE_BUILD",
        `Cannot build L2 block ${parent.number + 1n}: ${fcu.payloadStatus.status} ${
          fcu.payloadStatus.validationError ?? ""
        }`,
        { severity: "temporary" },
      );
    }
    const envelope = await engine.getPayload(v.get, fcu.payloadId);
    const p = envelope.executionPayload;
    const status = v.newPayload === 2 ? await engine.newPayload(2, p) : await engine.newPayload(
      v.newPayload,
      p,
      [],
      envelope.parentBeaconBlockRoot,
      v.newPayload === 4 ? [] : undefined,
    );
    if (status.status !== "VALID") {
      throw new BaseError(
        "ENGINE_INSERT",
        `Cannot insert L2 block ${p.blockNumber}: ${status.status} ${status.validationError ?? ""}`,
        { severity: "reset" },
      );
    }
    await engine.forkchoiceUpdated(v.fcu, {
      headBlockHash: p.blockHash,
      safeBlockHash: p.blockHash,
      finalizedBlockHash: this.#finalized.hash,
    });
    return p;
  }

  /** rollupnode_syncStatus (the unsafe head read from the engine at the call). */
  async syncStatus(): Promise<SyncStatus> {
    const origin = this.#pipeline?.origin ?? ZERO_L1;
    try {
      const head = await this.#deps.l2.headNumber();
      if (head !== this.#unsafe.number || this.#unsafe === ZERO_L2) this.#unsafe = await this.#ref(head);
    } catch {
      // the engine is not readable yet: the last known head
    }
    return {
      currentL1: origin,
      currentL1Finalized: this.#heads.finalized,
      headL1: this.#heads.head,
      safeL1: this.#heads.safe,
      finalizedL1: this.#heads.finalized,
      unsafeL2: this.#unsafe.number > this.#safe.number ? this.#unsafe : this.#safe,
      safeL2: this.#safe,
      finalizedL2: this.#finalized,
      pendingSafeL2: this.#safe,
      queuedUnsafeL2: ZERO_L2,
      engineSyncTarget: this.#unsafe.number > this.#safe.number ? this.#unsafe : this.#safe,
    };
  }

  /**
   * rollupnode_outputAtBlock: [version, output root] of L2 block `number` (specs/protocol/proposals.md
   * "L2 Output Commitment Construction"; the message passer root from the Isthmus header when it has
   * one, specs/protocol/isthmus/exec-engine.md "L2ToL1MessagePasser Storage Root in Header").
   */
  async outputAtBlock(number: bigint): Promise<[Uint8Array, Uint8Array]> {
    const { out } = await this.#output(number);
    return [out.version, out.outputRoot];
  }

  /** The output of L2 block `number` with what it commits to (optimism_outputAtBlock's OutputResponse). */
  async output(number: bigint): Promise<L2Output> {
    const { out, payload } = await this.#output(number);
    return { ...out, blockRef: l2BlockRefFromPayload(this.cfg, payload) };
  }

  async #output(number: bigint): Promise<{ out: Omit<L2Output, "blockRef">; payload: ExecutionPayload }> {
    const p = await this.#deps.l2.payloadByNumber(number);
    if (p === undefined) {
      throw new BaseError("L2_NOT_FOUND", `Cannot compute the output at block ${number}: unknown block`);
    }
    const mp = p.withdrawalsRoot !== undefined && !this.options.fetchWithdrawalRootFromState
      ? p.withdrawalsRoot
      : await this.#deps.l2.messagePasserStorageRoot(p.blockHash);
    const out = {
      version: OUTPUT_VERSION_V0,
      outputRoot: outputRootV0(p.stateRoot, mp, p.blockHash),
      withdrawalStorageRoot: mp,
      stateRoot: p.stateRoot,
    };
    return { out, payload: p };
  }
}
