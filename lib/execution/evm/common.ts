/**
 * Fork mapping: from a ChainConfig and a block timestamp to the @ethereumjs `Common` that runs it.
 * OP forks map onto L1 forks (specs/protocol/exec-engine.md and each fork's overview):
 * Bedrock/Regolith = London + the Merge (paris), Canyon/Delta = Shanghai, Ecotone..Holocene = Cancun
 * (blob transactions refused, EIP-4788 active, blob gas fields 0), Isthmus and later = Prague.
 * A plain Ethereum chain (no `op`) follows its `l1` schedule directly.
 */
import { paramsBlock } from "@ethereumjs/block";
import { type Common, createCustomCommon, type CustomCrypto, Hardfork, Mainnet } from "@ethereumjs/common";
import { paramsTx } from "@ethereumjs/tx";
import { paramsVM } from "@ethereumjs/vm";
import { paramsEVM } from "@ethereumjs/evm";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import { memoizeSenderAddresses } from "./sender_address.ts";
import type { ChainConfig } from "../../protocol/chain_config.ts";
import { activeFork, isForkActive, type OpFork } from "../../protocol/hardforks.ts";

/** The rules in force for one block. */
export interface ForkRules {
  /** The OP fork, or undefined on a plain Ethereum chain. */
  opFork?: OpFork;
  /** The @ethereumjs hardfork name. */
  hardfork: Hardfork;
  common: Common;
  /** Cache key: one VM/EVM configuration per distinct value. */
  key: string;
}

const cache = new Map<string, Common>();
memoizeSenderAddresses();

/** Every Common hashes with keel's WebAssembly keccak256 (common/hash.ts). */
let crypto: CustomCrypto = { keccak256 };

/**
 * Installs custom crypto (the KZG implementation blob transactions and the point-evaluation precompile
 * need) for every Common made from now on; clears the cache. Only plain chains (the devnet's L1) carry
 * blob transactions; loading KZG is slow (PLATFORM.md), so the caller does it once, lazily.
 */
export function configureCrypto(custom: CustomCrypto | undefined): void {
  crypto = { keccak256, ...custom };
  cache.clear();
}

type EipCache = { _activatedEIPsCache: number[]; keelEipList?: number[]; keelEipSet?: Set<number> };

/**
 * Common.isActivatedEIP as a Set lookup: the stock method scans the activated-EIP array (`includes`,
 * some 60 entries from Prague), and the interpreter asks it for nearly every opcode (each PUSH twice;
 * 7% of an eth_call of balanceOf, measured). The Set is rebuilt whenever Common replaces the array
 * (setHardfork, setEIPs: it never changes it in place), so the answer is always the stock one.
 */
function isActivatedEIP(this: EipCache, eip: number): boolean {
  const list = this._activatedEIPsCache;
  if (this.keelEipList !== list) {
    this.keelEipList = list;
    this.keelEipSet = new Set(list);
  }
  return this.keelEipSet!.has(eip);
}

/** Gives `common` (and the copies made from it: `copy()` keeps own properties) the Set lookup. */
export function fastEipLookup(common: Common): void {
  (common as unknown as { isActivatedEIP: typeof isActivatedEIP }).isActivatedEIP = isActivatedEIP;
}

function commonFor(chainId: bigint, hardfork: Hardfork, codeSizeLimit?: number): Common {
  const key = `${chainId}:${hardfork}:${codeSizeLimit ?? ""}`;
  let common = cache.get(key);
  if (common === undefined) {
    // createCustomCommon wants a number chain id (PLATFORM.md).
    common = createCustomCommon({ chainId: Number(chainId), name: `keel-${chainId}` }, Mainnet, {
      hardfork,
      customCrypto: crypto,
    });
    // The libraries add their parameters lazily; add them all up front so any of them can read any.
    for (const p of [paramsBlock, paramsTx, paramsEVM, paramsVM]) common.updateParams(p);
    if (codeSizeLimit !== undefined) overrideCodeSize(common, codeSizeLimit);
    fastEipLookup(common);
    // A cached Common never changes hardfork, but every EVM built on it subscribes to its
    // 'hardforkChanged' event, which would keep each EVM (and its state) alive: ignore subscriptions.
    // (`copy()` gets a fresh, working emitter.)
    const events = common.events;
    events.on = (() => events) as typeof events.on;
    cache.set(key, common);
  }
  return common;
}

/**
 * Makes `common` (and the copies made from it: `copy()` keeps own properties) answer the size limits
 * `maxCodeSize` (EIP-170) and `maxInitCodeSize` (EIP-3860) with dev mode's: the EVM (CREATE, CREATE2,
 * create transactions) and the transaction decoder read them through `common.param`. Not through
 * `updateParams`: every VM, EVM and transaction made on a Common merges its library's defaults into the
 * parameter set again (and a copy shares that set), which would put the stock limits back. A parameter the
 * fork does not have (`maxInitCodeSize` before Shanghai) still throws as before.
 */
function overrideCodeSize(common: Common, limit: number): void {
  const sizes = new Map<string, bigint>([
    ["maxCodeSize", BigInt(limit)],
    ["maxInitCodeSize", BigInt(maxInitCodeSize({ codeSizeLimit: limit }))],
  ]);
  const param = Object.getPrototypeOf(common).param as (this: Common, name: string) => bigint;
  (common as unknown as { param: typeof param }).param = function (this: Common, name: string): bigint {
    const value = param.call(this, name);
    return sizes.get(name) ?? value;
  };
}

/** EIP-3860 MAX_INITCODE_SIZE of a chain (2 * 24,576 unless dev mode's `codeSizeLimit` changed it). */
export function maxInitCodeSize(config: Pick<ChainConfig, "codeSizeLimit">): number {
  return config.codeSizeLimit === undefined
    ? DEFAULT_MAX_INITCODE_SIZE
    : Math.min(2 * config.codeSizeLimit, Number.MAX_SAFE_INTEGER);
}

/** EIP-3860 MAX_INITCODE_SIZE = 2 * MAX_CODE_SIZE (EIP-170: 24,576). */
export const DEFAULT_MAX_INITCODE_SIZE = 49_152;

/** The Ethereum hardfork an OP fork runs on. */
export function hardforkForOp(opFork: OpFork): Hardfork {
  switch (opFork) {
    case "bedrock":
    case "regolith":
      return Hardfork.Paris;
    case "canyon":
    case "delta":
      return Hardfork.Shanghai;
    case "ecotone":
    case "fjord":
    case "granite":
    case "holocene":
      return Hardfork.Cancun;
    default:
      return Hardfork.Prague;
  }
}

/** The Ethereum hardfork of a plain (L1) chain at `timestamp`. */
export function hardforkForL1(config: ChainConfig, timestamp: bigint): Hardfork {
  const l1 = config.l1;
  if (l1.osakaTime !== undefined && timestamp >= l1.osakaTime) return Hardfork.Osaka;
  if (l1.pragueTime !== undefined && timestamp >= l1.pragueTime) return Hardfork.Prague;
  if (l1.cancunTime !== undefined && timestamp >= l1.cancunTime) return Hardfork.Cancun;
  if (l1.shanghaiTime !== undefined && timestamp >= l1.shanghaiTime) return Hardfork.Shanghai;
  return Hardfork.Paris;
}

const txCommons = new WeakMap<Common, Common>();

/**
 * A Common for decoding many transactions: every @ethereumjs tx constructor copies its Common and
 * re-merges the tx parameters (about 0.3 ms per tx, measured). This view shares one Common whose
 * parameters are already complete, so `copy()` returns itself and `updateParams()` does nothing.
 * Transactions decoded with it must not change its hardfork (runTx with skipHardForkValidation).
 */
export function txCommon(common: Common): Common {
  let shared = txCommons.get(common);
  if (shared === undefined) {
    const view = Object.create(common) as Common;
    view.copy = () => view;
    view.updateParams = () => {};
    view.setHardfork = (hardfork) => {
      if (hardfork !== common.hardfork()) {
        throw new BaseError(
          "SHARED_COMMON",
          `Cannot change the hardfork of a shared transaction Common to ${hardfork}`,
        );
      }
      return common.hardfork();
    };
    shared = view;
    txCommons.set(common, shared);
  }
  return shared;
}

/** The rules for a block at `timestamp` (one cached Common per chain id and hardfork). */
export function forkRules(config: ChainConfig, timestamp: bigint): ForkRules {
  if (config.op === undefined) {
    const hardfork = hardforkForL1(config, timestamp);
    return {
      hardfork,
      common: commonFor(config.chainId, hardfork, config.codeSizeLimit),
      key: `l1:${hardfork}${limitKey(config)}`,
    };
  }
  const opFork = activeFork(config.op.forks, timestamp);
  const hardfork = hardforkForOp(opFork);
  return {
    opFork,
    hardfork,
    common: commonFor(config.chainId, hardfork, config.codeSizeLimit),
    key: `op:${opFork}${limitKey(config)}`,
  };
}

const limitKey = (config: ChainConfig) =>
  config.codeSizeLimit === undefined ? "" : `:code${config.codeSizeLimit}`;

/** True on an OP chain when `fork` is active at `timestamp`; false on a plain chain. */
export function opActive(config: ChainConfig, fork: OpFork, timestamp: bigint): boolean {
  return config.op !== undefined && isForkActive(config.op.forks, fork, timestamp);
}
