/**
 * Dev-mode sealing (issue 3, part 8): `keel execution --dev` and the devnet's L1.
 * - Automine (period 0): each `trigger()` (a transaction entered the pool) seals a block with the
 *   pending transactions, like anvil's automine; arrivals during a build coalesce into the next block.
 * - Interval (period > 0): one block every `period` seconds, as geth --dev.period.
 * Each block becomes head, safe and finalized at once (there is no consensus layer).
 * On an OP chain every block starts with an L1-info deposit that repeats the L1Block predeploy's
 * current values with the next sequence number (deposits.md "L1 Attributes Deposited Transaction",
 * source hash per "Source hash computation"), so the L1 fee parameters stay coherent; the coinbase is
 * the SequencerFeeVault (exec-engine.md "Fee Vaults"). Timestamps strictly increase: max(now, parent + 1).
 *
 * The dev methods (rpc/dev) steer it as anvil's: automine on or off, interval mining changed at run
 * time, blocks mined on request, and time moved (DevClock offset, the next block's timestamp, a fixed
 * interval between timestamps). Blocks are sealed one at a time.
 */
import { clearImmediate, setImmediate } from "node:timers";
import { Hardfork } from "@ethereumjs/common";
import { bigIntToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import { getLogger, type Logger } from "../../common/logger.ts";
import {
  encodeDepositTx,
  encodeL1InfoCalldata,
  type Header,
  isForkActive,
  L1_ATTRIBUTES_DEPOSITOR_ADDRESS,
  L1_BLOCK_ADDRESS,
  l1InfoDepositSourceHash,
  l1InfoFormatAt,
  type PayloadAttributes,
  SEQUENCER_FEE_VAULT_ADDRESS,
} from "../../protocol/mod.ts";
import { forkRules } from "../evm/mod.ts";
import type { BuiltBlock } from "./engine_types.ts";
import type { ExecutionEngine } from "./execution_engine.ts";
import { callableL1InfoFormat, l1BlockImplementationCode, l1BlockInfoOf } from "./l1_block_state.ts";

export interface DevMinerOptions {
  /** Seconds between blocks; 0 = seal when transactions arrive (automine). */
  period: number;
  /** Fee recipient on a plain chain (OP chains always use the SequencerFeeVault). */
  coinbase: Uint8Array;
  /** Seal empty blocks on the timer (geth --dev.period does); automine never seals empty blocks. */
  sealEmpty: boolean;
  /**
   * Automine: before sealing, yield to the event loop (one turn at a time) until a turn
   * brings no new transaction, at most this many turns. Requests that arrived while the previous
   * block was being built then enter the pool and share the next block instead of each getting a
   * block of its own (anvil likewise mines whatever is ready when it seals).
   */
  settleTurns: number;
}

export const DEFAULT_DEV_MINER_OPTIONS: DevMinerOptions = {
  // anvil's default: automine.
  period: 0,
  // geth --dev uses the developer account; keel's L1 dev chain burns nothing and pays the zero address.
  coinbase: new Uint8Array(20),
  sealEmpty: true,
  settleTurns: 8,
};

/**
 * Dev time: the wall clock plus an offset (evm_increaseTime, evm_setNextBlockTimestamp). Share one with
 * the engine (its `now`) so the pool validates against the fork of the next dev block.
 */
export class DevClock {
  /** Seconds added to the wall clock. */
  offset = 0;
  readonly #wall: () => number;

  constructor(wall: () => number = () => Math.floor(Date.now() / 1000)) {
    this.#wall = wall;
  }

  /** Unix seconds, shifted. */
  now(): number {
    return this.#wall() + this.offset;
  }

  /** Makes `now()` read `t` at this instant. */
  setNow(t: number): void {
    this.offset = t - this.#wall();
  }
}

export interface DevMinerDeps {
  engine: ExecutionEngine;
  /** Wall clock in unix seconds (ignored when `clock` is given). */
  now?: () => number;
  /** The dev clock (default: one on `now`). */
  clock?: DevClock;
  /** Subscribes to "a transaction entered the pool"; default: the engine pool's onPending. */
  subscribe?: (onTransaction: () => void) => () => void;
  logger?: Logger;
}

/** The L1-info deposit gas (deposits.md: the system deposit gets 1,000,000 gas). */
export const L1_INFO_DEPOSIT_GAS = 1_000_000n;

export class DevMiner {
  readonly options: DevMinerOptions;
  readonly clock: DevClock;
  readonly #engine: ExecutionEngine;
  readonly #logger: Logger;
  readonly #subscribe?: DevMinerDeps["subscribe"];
  #unsubscribe?: () => void;
  #timer?: ReturnType<typeof setInterval>;
  #running: Promise<void> | undefined;
  #again = false;
  #started = false;
  #stopped = false;
  #logging = true;
  /** Transactions announced by the pool so far (the settle loop watches it). */
  #arrivals = 0;
  #settleTimer?: { immediate?: ReturnType<typeof setImmediate>; timeout?: ReturnType<typeof setTimeout> };
  #settleWake?: () => void;
  /** Seal on arrival (period 0 and not turned off by evm_setAutomine). */
  #automine: boolean;
  /** Seconds between interval blocks (0: none). */
  #period: number;
  /** Interval blocks are sealed even without transactions (always for an interval set at run time, as anvil). */
  #sealEmpty: boolean;
  /** The next block's timestamp (evm_setNextBlockTimestamp). */
  #nextTimestamp: bigint | undefined;
  /** Seconds between block timestamps (anvil_setBlockTimestampInterval). */
  #timestampInterval: bigint | undefined;
  /** The gas limit of the next blocks (evm_setBlockGasLimit; default: the parent's). */
  #gasLimit: bigint | undefined;
  /** anvil_setCoinbase: the fee recipient of the blocks from the next one on. */
  #coinbase: Uint8Array | undefined;
  /** hardhat_setPrevRandao: the next block's prevRandao. */
  #nextPrevRandao: Uint8Array | undefined;
  /** The next block's base fee (anvil_setNextBlockBaseFeePerGas). */
  #nextBaseFee: bigint | undefined;
  /** The tail of the blocks being sealed: one at a time. */
  #sealing: Promise<unknown> = Promise.resolve();

  constructor(options: Partial<DevMinerOptions>, deps: DevMinerDeps) {
    this.options = { ...DEFAULT_DEV_MINER_OPTIONS, ...options };
    if (!(this.options.period >= 0)) {
      throw new BaseError(
        "INVALID_DEV_PERIOD",
        `Cannot start dev miner: period ${this.options.period} is negative`,
      );
    }
    this.#engine = deps.engine;
    this.clock = deps.clock ?? new DevClock(deps.now);
    deps.engine.setNextBlockOverrides(() => ({
      baseFeePerGas: this.#nextBaseFee,
      gasLimit: this.#gasLimit,
      timestamp: this.#nextTimestamp,
    }));
    this.#period = this.options.period;
    this.#sealEmpty = this.options.sealEmpty;
    this.#automine = this.options.period === 0;
    this.#logger = deps.logger ?? getLogger(["execution", "dev"]);
    this.#subscribe = deps.subscribe ?? ((cb) => deps.engine.pool.onPending(() => cb()));
  }

  /** Starts automine (subscription) or the timer. Idempotent. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#stopped = false;
    this.#schedule();
  }

  /** Subscribes or starts the timer as the mode says (after clearing both). */
  #schedule(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (!this.#started) return;
    if (this.#period > 0) {
      this.#timer = setInterval(() => this.trigger(this.#sealEmpty), this.#period * 1000);
    } else if (this.#automine && this.#subscribe !== undefined) {
      this.#unsubscribe = this.#subscribe(() => {
        this.#arrivals++;
        this.trigger();
      });
    }
  }

  /** Whether blocks are sealed as transactions arrive (anvil_getAutomine). */
  get automine(): boolean {
    return this.#automine && this.#period === 0;
  }

  /** Seconds between interval blocks, 0 when none. */
  get period(): number {
    return this.#period;
  }

  /**
   * evm_setAutomine: on, a block is sealed as transactions arrive (and interval mining stops), with
   * the transactions already waiting; off, transactions wait for evm_mine or the interval.
   */
  setAutomine(on: boolean): void {
    this.#automine = on;
    if (on) this.#period = 0;
    this.#schedule();
    if (on && this.#started) this.trigger();
  }

  /** evm_setIntervalMining: a block every `seconds` (automine off); 0 stops interval mining. */
  setIntervalMining(seconds: number): void {
    if (!(seconds >= 0) || !Number.isSafeInteger(seconds)) {
      throw new BaseError("INVALID_DEV_PERIOD", `Cannot mine every ${seconds} seconds`);
    }
    this.#period = seconds;
    this.#sealEmpty = true;
    if (seconds > 0) this.#automine = false;
    this.#schedule();
  }

  /**
   * evm_setNextBlockTimestamp: the next block gets `timestamp`, and time goes on from there. It must
   * be after the head's (a block's timestamp always grows).
   */
  setNextTimestamp(timestamp: bigint): void {
    const head = this.#engine.head().header.timestamp;
    if (timestamp <= head) {
      throw new BaseError(
        "INVALID_TIMESTAMP",
        `Timestamp error: ${timestamp} is lower than or equal to previous block's timestamp ${head}`,
      );
    }
    this.#nextTimestamp = timestamp;
  }

  /** anvil_setBlockTimestampInterval: each block `seconds` after its parent (undefined: the clock's). */
  setTimestampInterval(seconds: bigint | undefined): void {
    this.#timestampInterval = seconds;
  }

  get timestampInterval(): bigint | undefined {
    return this.#timestampInterval;
  }

  /** evm_setBlockGasLimit: the gas limit of the blocks from the next one on. */
  setGasLimit(gas: bigint): void {
    // On an OP chain every block starts with the L1-info deposit: a block must hold its gas.
    const least = this.#engine.config.op !== undefined ? L1_INFO_DEPOSIT_GAS : 21_000n;
    if (gas < least || gas >= 1n << 63n) {
      throw new BaseError(
        "INVALID_GAS_LIMIT",
        `Cannot set the block gas limit to ${gas}: want ${least} to 2^63-1${
          least === L1_INFO_DEPOSIT_GAS ? " (a block holds the L1-info deposit's 1000000 gas)" : ""
        }`,
      );
    }
    this.#gasLimit = gas;
  }

  /**
   * anvil_setCoinbase / hardhat_setCoinbase: the coinbase of the blocks from the next one on (on an OP
   * chain in place of the SequencerFeeVault, which then no longer gets the priority fees: a dev choice).
   */
  setCoinbase(address: Uint8Array): void {
    this.#coinbase = address.slice();
  }

  /** hardhat_setPrevRandao: the next block's prevRandao (the blocks after derive theirs again). */
  setNextPrevRandao(value: Uint8Array): void {
    this.#nextPrevRandao = value.slice();
  }

  /** anvil_setNextBlockBaseFeePerGas: the next block's base fee (the ones after follow EIP-1559 from it). */
  setNextBaseFee(fee: bigint): void {
    this.#nextBaseFee = fee;
  }

  /** The gas limit set by evm_setBlockGasLimit (undefined: the parent's). */
  get gasLimit(): bigint | undefined {
    return this.#gasLimit;
  }

  /**
   * evm_revert: the gas limit as at the snapshot, and no next timestamp set by hand any more (it was
   * meant for a block of the abandoned branch), as anvil restores them.
   */
  restoreAfterRevert(gasLimit: bigint | undefined): void {
    this.#gasLimit = gasLimit;
    this.#nextTimestamp = undefined;
  }

  /** anvil_reset: the clock, the next timestamp and base fee, the interval, gas limit and coinbase as at start. */
  resetTime(): void {
    this.clock.offset = 0;
    this.#nextBaseFee = undefined;
    this.#nextTimestamp = undefined;
    this.#timestampInterval = undefined;
    this.#gasLimit = undefined;
    this.#coinbase = undefined;
    this.#nextPrevRandao = undefined;
  }

  /** evm_increaseTime: moves the clock `seconds` ahead; returns the total offset in seconds. */
  increaseTime(seconds: number): number {
    this.clock.offset += seconds;
    return this.clock.offset;
  }

  /**
   * anvil_setTime / evm_setTime: the clock reads `seconds` from now on, and a next timestamp set by hand
   * is dropped. Unlike anvil, blocks never go back in time: a block is still at least one second after
   * its parent (its header would be invalid otherwise, exec-engine rules).
   */
  setTime(seconds: number): void {
    this.clock.setNow(seconds);
    this.#nextTimestamp = undefined;
  }

  /** anvil_setLoggingEnabled: whether each sealed block is logged (info "Dev block sealed"). */
  setLogging(on: boolean): void {
    this.#logging = on;
  }

  get logging(): boolean {
    return this.#logging;
  }

  /** Stops sealing and waits for a block in progress. Idempotent. */
  async stop(): Promise<void> {
    this.#started = false;
    this.#stopped = true;
    this.#schedule();
    this.#again = false;
    const pending = this.#settleTimer;
    if (pending?.immediate !== undefined) clearImmediate(pending.immediate);
    if (pending?.timeout !== undefined) clearTimeout(pending.timeout);
    this.#settleTimer = undefined;
    this.#settleWake?.();
    await this.#running;
  }

  /** Asks for a block; coalesces with a build in progress. `empty`: seal even without transactions. */
  trigger(empty = false): void {
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#running = this.#loop(empty).finally(() => (this.#running = undefined));
  }

  /** Resolves when no block is being sealed. */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  /**
   * One event-loop turn, in which requests that already reached the socket are read and their handlers
   * run (measured: ten concurrent HTTP requests all arrive within one turn of either kind). `quick`:
   * setImmediate (~6 us here); else setTimeout(0), which Deno 2.9.6 rounds up to ~2.2 ms here.
   */
  #turn(quick: boolean): Promise<void> {
    return new Promise((resolve) => {
      this.#settleWake = resolve;
      const done = () => {
        this.#settleTimer = undefined;
        this.#settleWake = undefined;
        resolve();
      };
      this.#settleTimer = quick ? { immediate: setImmediate(done) } : { timeout: setTimeout(done, 0) };
    });
  }

  /**
   * Automine: wait while transactions keep arriving (bounded by settleTurns). The first turn is quick:
   * a lone sender's block is sealed at once (a zero timeout cost each automined block ~2.2 ms). When
   * that turn brought more transactions, concurrent senders are at work: the next turns are timeouts,
   * long enough for a burst to gather in one block (32 concurrent senders: ~200 transfers a block and
   * 1,320 instead of ~900 tx/s mined with quick turns only, scripts/bench_rpc.ts).
   */
  async #settle(): Promise<void> {
    for (let i = 0; i < this.options.settleTurns && !this.#stopped; i++) {
      const seen = this.#arrivals;
      await this.#turn(i === 0);
      if (this.#arrivals === seen) return;
    }
  }

  async #loop(empty: boolean): Promise<void> {
    let allowEmpty = empty;
    for (;;) {
      if (!allowEmpty && this.#period === 0) await this.#settle();
      if (this.#stopped) return;
      this.#again = false;
      try {
        await this.mine({ allowEmpty });
      } catch (e) {
        this.#logger.error("Dev block sealing failed", { error: (e as Error).message });
      }
      if (!this.#again) return;
      allowEmpty = false;
    }
  }

  /** The next block's timestamp on `parent` (`wanted` when given). */
  #timestampOn(parent: Header, wanted?: bigint): bigint {
    if (wanted !== undefined) {
      if (wanted <= parent.timestamp) {
        throw new BaseError(
          "INVALID_TIMESTAMP",
          `Timestamp error: ${wanted} is lower than or equal to previous block's timestamp ${parent.timestamp}`,
        );
      }
      return wanted;
    }
    if (this.#nextTimestamp !== undefined && this.#nextTimestamp > parent.timestamp) {
      return this.#nextTimestamp;
    }
    if (this.#timestampInterval !== undefined) return parent.timestamp + this.#timestampInterval;
    return BigInt(Math.max(this.clock.now(), Number(parent.timestamp) + 1));
  }

  /** The attributes of the next dev block on `parent` (at `timestamp` when given). */
  async attributes(parent: Header, wanted?: bigint): Promise<PayloadAttributes> {
    const config = this.#engine.config;
    const timestamp = this.#timestampOn(parent, wanted);
    const common = forkRules(config, timestamp).common;
    const attrs: PayloadAttributes = {
      timestamp,
      prevRandao: this.#nextPrevRandao ?? keccak256(bigIntToBytes(parent.number + 1n, 32)),
      suggestedFeeRecipient: this.#coinbase ??
        (config.op !== undefined ? SEQUENCER_FEE_VAULT_ADDRESS : this.options.coinbase),
      gasLimit: this.#gasLimit ?? parent.gasLimit,
      transactions: [],
    };
    if (common.gteHardfork(Hardfork.Shanghai)) attrs.withdrawals = [];
    if (common.gteHardfork(Hardfork.Cancun)) attrs.parentBeaconBlockRoot = new Uint8Array(32);
    const op = config.op;
    if (op !== undefined) {
      // holocene/exec-engine.md: zero params select the chain's Canyon values; jovian: minBaseFee 0.
      if (isForkActive(op.forks, "holocene", timestamp)) attrs.eip1559Params = new Uint8Array(8);
      if (isForkActive(op.forks, "jovian", timestamp)) attrs.minBaseFee = 0n;
      const { info, code } = await this.#engine.readState(parent, async (sm) => ({
        info: await l1BlockInfoOf(sm),
        code: await l1BlockImplementationCode(sm),
      }));
      info.sequenceNumber += 1n;
      const format = callableL1InfoFormat(
        code,
        l1InfoFormatAt(op.forks, timestamp, timestamp - parent.timestamp),
      );
      const regolith = isForkActive(op.forks, "regolith", timestamp);
      attrs.transactions = [encodeDepositTx({
        sourceHash: l1InfoDepositSourceHash(info.blockHash, info.sequenceNumber),
        from: L1_ATTRIBUTES_DEPOSITOR_ADDRESS,
        to: L1_BLOCK_ADDRESS,
        mint: 0n,
        value: 0n,
        gas: L1_INFO_DEPOSIT_GAS,
        isSystemTx: !regolith,
        data: encodeL1InfoCalldata(format, info),
      })];
    }
    return attrs;
  }

  /**
   * Seals one block on the head with the pool's pending transactions and makes it head, safe and
   * finalized. Without `allowEmpty`, returns undefined instead of sealing a block with no user
   * transactions.
   */
  mine(options: { allowEmpty?: boolean; timestamp?: bigint } = {}): Promise<BuiltBlock | undefined> {
    return this.exclusive(() => this.#mineOne(options));
  }

  /**
   * Runs `fn` between two sealings (none is in progress meanwhile): for changes of the head or its
   * state (evm_revert, anvil_setBalance) that a block being built on the old head would undo.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#sealing.then(fn);
    this.#sealing = run.catch(() => {});
    return run;
  }

  /**
   * anvil_mine: `count` blocks, each `interval` seconds after its parent when given (else by the
   * clock); evm_mine's `timestamp` is the first one's.
   */
  async mineBlocks(count: bigint, options: { interval?: bigint; timestamp?: bigint } = {}): Promise<void> {
    let timestamp = options.timestamp;
    for (let i = 0n; i < count; i++) {
      if (timestamp === undefined && options.interval !== undefined) {
        // A timestamp set by hand (evm_setNextBlockTimestamp) is the first block's, as in anvil.
        timestamp = i === 0n && this.#nextTimestamp !== undefined
          ? this.#nextTimestamp
          : this.#engine.head().header.timestamp + options.interval;
      }
      await this.mine({ allowEmpty: true, timestamp });
      timestamp = undefined;
    }
  }

  /**
   * anvil_reorg: `rewind` (back to the common block) then one block per entry of `blocks` with those
   * transactions and none of the pool's (one that cannot be applied is left out), with no block
   * sealed in between.
   */
  reorg(rewind: () => Promise<void>, blocks: Uint8Array[][]): Promise<void> {
    return this.exclusive(async () => {
      await rewind();
      for (const txs of blocks) await this.#mineOne({ allowEmpty: true, only: txs });
    });
  }

  async #mineOne(
    options: { allowEmpty?: boolean; timestamp?: bigint; only?: Uint8Array[] },
  ): Promise<BuiltBlock | undefined> {
    const engine = this.#engine;
    const head = engine.head();
    const attrs = await this.attributes(head.header, options.timestamp);
    if (options.only !== undefined) attrs.noTxPool = true;
    // Head, safe and finalized in the write that stores the block (unless automine found nothing).
    const built = await engine.buildBlock(head.hash, attrs, {
      baseFeePerGas: this.#nextBaseFee,
      head: options.allowEmpty === true ? "always" : "withPoolTxs",
      candidates: options.only,
    });
    if (built.head !== true) return undefined;
    this.#nextBaseFee = undefined;
    this.#nextPrevRandao = undefined;
    // Time goes on from the last block: a timestamp set by hand, an interval or blocks sealed faster
    // than one a second put it ahead of the clock, which then moves to it (as anvil's).
    this.#nextTimestamp = undefined;
    if (BigInt(this.clock.now()) < built.block.header.timestamp) {
      this.clock.setNow(Number(built.block.header.timestamp));
    }
    if (this.#logging) {
      this.#logger.info("Dev block sealed", {
        number: built.block.header.number.toString(),
        txs: built.block.transactions.length,
        gasUsed: built.block.header.gasUsed.toString(),
      });
    }
    return built;
  }
}
