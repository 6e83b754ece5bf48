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
 */
import { Hardfork } from "@ethereumjs/common";
import { Address, bigIntToBytes as ejsBigIntToBytes, bytesToBigInt, setLengthLeft } from "@ethereumjs/util";
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
  L1_BLOCK_SLOTS,
  L1_INFO_SELECTORS,
  type L1BlockInfo,
  l1InfoDepositSourceHash,
  type L1InfoFormat,
  l1InfoFormatAt,
  type PayloadAttributes,
  SEQUENCER_FEE_VAULT_ADDRESS,
} from "../../protocol/mod.ts";
import { forkRules } from "../evm/mod.ts";
import { EIP1967_IMPLEMENTATION_SLOT } from "../genesis/mod.ts";
import type { BuiltBlock } from "./engine_types.ts";
import type { ExecutionEngine } from "./execution_engine.ts";

export interface DevMinerOptions {
  /** Seconds between blocks; 0 = seal when transactions arrive (automine). */
  period: number;
  /** Fee recipient on a plain chain (OP chains always use the SequencerFeeVault). */
  coinbase: Uint8Array;
  /** Seal empty blocks on the timer (geth --dev.period does); automine never seals empty blocks. */
  sealEmpty: boolean;
  /**
   * Automine: before sealing, yield to the event loop (one macrotask turn at a time) until a turn
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

export interface DevMinerDeps {
  engine: ExecutionEngine;
  /** Wall clock in unix seconds. */
  now?: () => number;
  /** Subscribes to "a transaction entered the pool"; default: the engine pool's onPending. */
  subscribe?: (onTransaction: () => void) => () => void;
  logger?: Logger;
}

/** The L1-info deposit gas (deposits.md: the system deposit gets 1,000,000 gas). */
export const L1_INFO_DEPOSIT_GAS = 1_000_000n;

const U64 = (1n << 64n) - 1n;
const field = (word: bigint, offset: number, bytes: number) =>
  (word >> BigInt(offset * 8)) & ((1n << BigInt(bytes * 8)) - 1n);

/** Reads the L1Block predeploy's values (the layout of l1_block_info.ts L1_BLOCK_SLOTS). */
export async function readL1BlockInfo(engine: ExecutionEngine, header: Header): Promise<L1BlockInfo> {
  const sm = await engine.stateAt(header);
  const a = new Address(L1_BLOCK_ADDRESS);
  const slot = async (n: bigint) =>
    bytesToBigInt(await sm.getStorage(a, setLengthLeft(ejsBigIntToBytes(n), 32)));
  const s0 = await slot(L1_BLOCK_SLOTS.numberTimestamp);
  const s3 = await slot(L1_BLOCK_SLOTS.scalars);
  const s8 = await slot(L1_BLOCK_SLOTS.operatorFee);
  return {
    number: s0 & U64,
    timestamp: field(s0, 8, 8),
    baseFee: await slot(L1_BLOCK_SLOTS.basefee),
    blockHash: bigIntToBytes(await slot(L1_BLOCK_SLOTS.hash), 32),
    sequenceNumber: s3 & U64,
    blobBaseFeeScalar: field(s3, 8, 4),
    baseFeeScalar: field(s3, 12, 4),
    batcherHash: bigIntToBytes(await slot(L1_BLOCK_SLOTS.batcherHash), 32),
    l1FeeOverhead: await slot(L1_BLOCK_SLOTS.l1FeeOverhead),
    l1FeeScalar: await slot(L1_BLOCK_SLOTS.l1FeeScalar),
    blobBaseFee: await slot(L1_BLOCK_SLOTS.blobBaseFee),
    operatorFeeConstant: s8 & U64,
    operatorFeeScalar: field(s8, 8, 4),
    daFootprintGasScalar: field(s8, 12, 2),
  };
}

const FORMATS: L1InfoFormat[] = ["bedrock", "ecotone", "isthmus", "jovian"];

/**
 * The newest L1-info format up to `wanted` whose setter the deployed L1Block has (its selector follows a
 * PUSH4 in the dispatcher). A genesis with an older L1Block (contracts-bedrock 0.17.3 stops at Ecotone)
 * would revert an Isthmus-format call and leave the L1Block values frozen.
 */
/**
 * The code that answers calls to the L1Block predeploy: behind its EIP-1967 proxy (predeploys.md:
 * the 0x4200… predeploys are proxies), the implementation's; the account's own code otherwise.
 */
export async function l1BlockImplementationCode(
  state: {
    getCode(a: Address): Promise<Uint8Array>;
    getStorage(a: Address, k: Uint8Array): Promise<Uint8Array>;
  },
): Promise<Uint8Array> {
  const l1Block = new Address(L1_BLOCK_ADDRESS);
  const impl = await state.getStorage(l1Block, EIP1967_IMPLEMENTATION_SLOT);
  if (impl.length === 0 || impl.every((b) => b === 0)) return await state.getCode(l1Block);
  return await state.getCode(new Address(setLengthLeft(impl, 32).subarray(12)));
}

export function callableL1InfoFormat(code: Uint8Array, wanted: L1InfoFormat): L1InfoFormat {
  for (let i = FORMATS.indexOf(wanted); i > 0; i--) {
    if (containsPush4(code, L1_INFO_SELECTORS[FORMATS[i]])) return FORMATS[i];
  }
  return "bedrock";
}

function containsPush4(code: Uint8Array, selector: Uint8Array): boolean {
  outer: for (let i = 0; i + 5 <= code.length; i++) {
    if (code[i] !== 0x63) continue;
    for (let j = 0; j < 4; j++) if (code[i + 1 + j] !== selector[j]) continue outer;
    return true;
  }
  return false;
}

export class DevMiner {
  readonly options: DevMinerOptions;
  readonly #engine: ExecutionEngine;
  readonly #now: () => number;
  readonly #logger: Logger;
  readonly #subscribe?: DevMinerDeps["subscribe"];
  #unsubscribe?: () => void;
  #timer?: ReturnType<typeof setInterval>;
  #running: Promise<void> | undefined;
  #again = false;
  #started = false;
  #stopped = false;
  /** Transactions announced by the pool so far (the settle loop watches it). */
  #arrivals = 0;
  #settleTimer?: ReturnType<typeof setTimeout>;
  #settleWake?: () => void;

  constructor(options: Partial<DevMinerOptions>, deps: DevMinerDeps) {
    this.options = { ...DEFAULT_DEV_MINER_OPTIONS, ...options };
    if (!(this.options.period >= 0)) {
      throw new BaseError(
        "INVALID_DEV_PERIOD",
        `Cannot start dev miner: period ${this.options.period} is negative`,
      );
    }
    this.#engine = deps.engine;
    this.#now = deps.now ?? (() => Math.floor(Date.now() / 1000));
    this.#logger = deps.logger ?? getLogger(["execution", "dev"]);
    this.#subscribe = deps.subscribe ?? ((cb) => deps.engine.pool.onPending(() => cb()));
  }

  /** Starts automine (subscription) or the timer. Idempotent. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#stopped = false;
    if (this.options.period > 0) {
      this.#timer = setInterval(() => this.trigger(true), this.options.period * 1000);
    } else if (this.#subscribe !== undefined) {
      this.#unsubscribe = this.#subscribe(() => {
        this.#arrivals++;
        this.trigger();
      });
    }
  }

  /** Stops sealing and waits for a block in progress. Idempotent. */
  async stop(): Promise<void> {
    this.#started = false;
    this.#stopped = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#again = false;
    if (this.#settleTimer !== undefined) clearTimeout(this.#settleTimer);
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

  /** One macrotask turn (I/O callbacks such as HTTP requests run before it ends). */
  #turn(): Promise<void> {
    return new Promise((resolve) => {
      this.#settleWake = resolve;
      this.#settleTimer = setTimeout(() => {
        this.#settleTimer = undefined;
        this.#settleWake = undefined;
        resolve();
      }, 0);
    });
  }

  /** Automine: wait while transactions keep arriving (bounded by settleTurns). */
  async #settle(): Promise<void> {
    for (let i = 0; i < this.options.settleTurns && !this.#stopped; i++) {
      const seen = this.#arrivals;
      await this.#turn();
      if (this.#arrivals === seen) return;
    }
  }

  async #loop(empty: boolean): Promise<void> {
    let allowEmpty = empty && this.options.sealEmpty;
    for (;;) {
      if (!allowEmpty && this.options.period === 0) await this.#settle();
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

  /** The attributes of the next dev block on `parent`. */
  async attributes(parent: Header): Promise<PayloadAttributes> {
    const config = this.#engine.config;
    const timestamp = BigInt(Math.max(this.#now(), Number(parent.timestamp) + 1));
    const common = forkRules(config, timestamp).common;
    const attrs: PayloadAttributes = {
      timestamp,
      prevRandao: keccak256(bigIntToBytes(parent.number + 1n, 32)),
      suggestedFeeRecipient: config.op !== undefined ? SEQUENCER_FEE_VAULT_ADDRESS : this.options.coinbase,
      gasLimit: parent.gasLimit,
      transactions: [],
    };
    if (common.gteHardfork(Hardfork.Shanghai)) attrs.withdrawals = [];
    if (common.gteHardfork(Hardfork.Cancun)) attrs.parentBeaconBlockRoot = new Uint8Array(32);
    const op = config.op;
    if (op !== undefined) {
      // holocene/exec-engine.md: zero params select the chain's Canyon values; jovian: minBaseFee 0.
      if (isForkActive(op.forks, "holocene", timestamp)) attrs.eip1559Params = new Uint8Array(8);
      if (isForkActive(op.forks, "jovian", timestamp)) attrs.minBaseFee = 0n;
      const info = await readL1BlockInfo(this.#engine, parent);
      info.sequenceNumber += 1n;
      const code = await l1BlockImplementationCode(await this.#engine.stateAt(parent));
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
  async mine(options: { allowEmpty?: boolean } = {}): Promise<BuiltBlock | undefined> {
    const engine = this.#engine;
    const head = engine.head();
    const attrs = await this.attributes(head.header);
    const forced = attrs.transactions?.length ?? 0;
    const built = await engine.buildBlock(head.hash, attrs);
    if (built.block.transactions.length === forced && options.allowEmpty !== true) return undefined;
    await engine.forkchoiceUpdate(built.hash, built.hash, built.hash);
    this.#logger.info("Dev block sealed", {
      number: built.block.header.number.toString(),
      txs: built.block.transactions.length,
      gasUsed: built.block.header.gasUsed.toString(),
    });
    return built;
  }
}
