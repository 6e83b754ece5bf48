/** Shared setup for the evm unit tests: chain configs per fork, an in-memory state, signed txs. */
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from "@ethereumjs/tx";
import {
  Account,
  Address,
  bigIntToBytes,
  createAddressFromPrivateKey,
  setLengthLeft,
} from "@ethereumjs/util";
import {
  EMPTY_OMMERS_HASH,
  EMPTY_REQUESTS_HASH,
  EMPTY_TRIE_ROOT,
  type Header,
} from "../../../../lib/protocol/block.ts";
import type { ChainConfig } from "../../../../lib/protocol/chain_config.ts";
import { encodeHoloceneExtraData, encodeJovianExtraData } from "../../../../lib/protocol/eip1559.ts";
import { type ForkSchedule, OP_FORKS, type OpFork } from "../../../../lib/protocol/hardforks.ts";
import { L1_BLOCK_ADDRESS, SEQUENCER_FEE_VAULT_ADDRESS } from "../../../../lib/protocol/predeploys.ts";
import { type BlockAttributes, forkRules } from "../../../../lib/execution/evm/mod.ts";
import { L1_SYSTEM_CONTRACTS, systemContractCode } from "../../../../lib/execution/genesis/mod.ts";

export const CHAIN_ID = 901n;
export const GWEI = 1_000_000_000n;
export const ETHER = 10n ** 18n;

/** An OP chain with every fork up to `upTo` active from genesis. */
export function opConfig(upTo: OpFork): ChainConfig {
  const forks: ForkSchedule = {};
  for (const f of OP_FORKS) {
    if (f === "bedrock" || f === "interop") continue;
    if (OP_FORKS.indexOf(f) <= OP_FORKS.indexOf(upTo)) forks[f] = 0n;
  }
  return {
    chainId: CHAIN_ID,
    l1: {},
    op: { forks, eip1559: { elasticity: 6n, denominator: 50n, denominatorCanyon: 250n } },
  };
}

/** A plain Ethereum chain on Prague. */
export function l1Config(): ChainConfig {
  return { chainId: 900n, l1: { shanghaiTime: 0n, cancunTime: 0n, pragueTime: 0n } };
}

export const atLeast = (f: OpFork, g: OpFork) => OP_FORKS.indexOf(f) >= OP_FORKS.indexOf(g);

/** A parent (genesis-like) header valid for `config` at timestamp 0. */
export function genesisHeader(config: ChainConfig, fork: OpFork | "l1", stateRoot = EMPTY_TRIE_ROOT): Header {
  const h: Header = {
    parentHash: new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: new Uint8Array(20),
    stateRoot,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: 0n,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: 0n,
    extraData: new Uint8Array(),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: GWEI,
  };
  if (fork !== "l1" && atLeast(fork, "jovian")) h.extraData = encodeJovianExtraData(250n, 6n, 0n);
  else if (fork !== "l1" && atLeast(fork, "holocene")) h.extraData = encodeHoloceneExtraData(250n, 6n);
  const rules = forkRules(config, 0n);
  if (rules.common.gteHardfork("shanghai")) h.withdrawalsRoot = EMPTY_TRIE_ROOT;
  if (rules.common.gteHardfork("cancun")) {
    h.blobGasUsed = 0n;
    h.excessBlobGas = 0n;
    h.parentBeaconBlockRoot = new Uint8Array(32);
  }
  if (rules.common.gteHardfork("prague")) h.requestsHash = EMPTY_REQUESTS_HASH;
  return h;
}

export function attributes(fork: OpFork | "l1", timestamp = 2n): BlockAttributes {
  const a: BlockAttributes = {
    timestamp,
    coinbase: SEQUENCER_FEE_VAULT_ADDRESS,
    prevRandao: new Uint8Array(32).fill(7),
    gasLimit: 30_000_000n,
    parentBeaconBlockRoot: new Uint8Array(32).fill(9),
  };
  if (fork !== "l1" && atLeast(fork, "holocene")) a.eip1559Params = new Uint8Array(8);
  if (fork !== "l1" && atLeast(fork, "jovian")) a.minBaseFee = 0n;
  return a;
}

export function newState(): MerkleStateManager {
  return new MerkleStateManager({ caches: new Caches() });
}

/** Places the EIP-4788/2935/7002/7251 system contracts (code, nonce 1), as an L1 Prague genesis does. */
export async function installL1SystemContracts(sm: MerkleStateManager): Promise<void> {
  for (const c of L1_SYSTEM_CONTRACTS) {
    const a = new Address(c.address);
    await sm.putAccount(a, new Account(1n, 0n));
    await sm.putCode(a, systemContractCode(c));
  }
}

export async function fund(sm: MerkleStateManager, address: Uint8Array, balance: bigint): Promise<void> {
  const a = new Address(address);
  const acc = (await sm.getAccount(a)) ?? new Account();
  acc.balance = balance;
  await sm.putAccount(a, acc);
}

export async function balanceOf(sm: MerkleStateManager, address: Uint8Array): Promise<bigint> {
  return (await sm.getAccount(new Address(address)))?.balance ?? 0n;
}

export async function nonceOf(sm: MerkleStateManager, address: Uint8Array): Promise<bigint> {
  return (await sm.getAccount(new Address(address)))?.nonce ?? 0n;
}

export async function setStorage(sm: MerkleStateManager, address: Uint8Array, slot: bigint, value: bigint) {
  const a = new Address(address);
  if ((await sm.getAccount(a)) === undefined) await sm.putAccount(a, new Account(0n, 1n));
  await sm.putStorage(a, setLengthLeft(bigIntToBytes(slot), 32), bigIntToBytes(value));
}

export interface FeeParams {
  l1BaseFee: bigint;
  overhead: bigint;
  scalar: bigint;
  baseFeeScalar: bigint;
  blobBaseFeeScalar: bigint;
  l1BlobBaseFee: bigint;
  operatorFeeScalar: bigint;
  operatorFeeConstant: bigint;
  daFootprintGasScalar: bigint;
}

export const FEES: FeeParams = {
  l1BaseFee: 7n * GWEI,
  overhead: 188n,
  scalar: 684_000n,
  baseFeeScalar: 1368n,
  blobBaseFeeScalar: 810_949n,
  l1BlobBaseFee: 3n * GWEI,
  operatorFeeScalar: 2_000_000n,
  operatorFeeConstant: 1_000_000n,
  daFootprintGasScalar: 400n,
};

/** Writes the L1Block storage as the L1-info deposit would (slots per the L1Block layout). */
export async function setL1Block(sm: MerkleStateManager, p: FeeParams): Promise<void> {
  const a = L1_BLOCK_ADDRESS;
  await setStorage(sm, a, 1n, p.l1BaseFee);
  // slot 3: sequenceNumber u64 (offset 0), blobBaseFeeScalar u32 (offset 8), baseFeeScalar u32 (offset 12)
  await setStorage(sm, a, 3n, (p.baseFeeScalar << 96n) | (p.blobBaseFeeScalar << 64n) | 1n);
  await setStorage(sm, a, 5n, p.overhead);
  await setStorage(sm, a, 6n, p.scalar);
  await setStorage(sm, a, 7n, p.l1BlobBaseFee);
  // slot 8: operatorFeeConstant u64 (offset 0), operatorFeeScalar u32 (offset 8), daFootprintGasScalar u16 (offset 12)
  await setStorage(
    sm,
    a,
    8n,
    (p.daFootprintGasScalar << 96n) | (p.operatorFeeScalar << 64n) | p.operatorFeeConstant,
  );
}

export const KEY = new Uint8Array(32).fill(1);
export const SENDER = createAddressFromPrivateKey(KEY).bytes;
export const RECIPIENT = new Uint8Array(20).fill(0xbb);

export function transfer(
  config: ChainConfig,
  timestamp: bigint,
  nonce: bigint,
  opts: {
    to?: Uint8Array;
    value?: bigint;
    gasLimit?: bigint;
    maxFee?: bigint;
    tip?: bigint;
    data?: Uint8Array;
  } = {},
): TypedTransaction {
  const common = forkRules(config, timestamp).common;
  return createFeeMarket1559Tx({
    chainId: config.chainId,
    nonce,
    to: opts.to ?? RECIPIENT,
    value: opts.value ?? 1000n,
    gasLimit: opts.gasLimit ?? 21000n,
    maxFeePerGas: opts.maxFee ?? 3n * GWEI,
    maxPriorityFeePerGas: opts.tip ?? GWEI / 2n,
    data: opts.data,
  }, { common }).sign(KEY);
}

export function legacyTransfer(
  config: ChainConfig,
  timestamp: bigint,
  nonce: bigint,
  gasPrice: bigint,
): TypedTransaction {
  const common = forkRules(config, timestamp).common;
  return createLegacyTx({ nonce, to: RECIPIENT, value: 5n, gasLimit: 21000n, gasPrice }, { common }).sign(
    KEY,
  );
}
