/**
 * The harness of the direct-path tests (plain_transfer_test.ts, contract_call_test.ts): two builders on
 * two equal states, one with keel's direct paths and one through `runTx` alone (BlockBuilderDeps.evmOnly),
 * fed the same random transactions; every transaction must give the same receipt, gas and error (or the
 * same refusal), the watched state must stay equal, and the sealed blocks must be equal.
 */
import {
  type AccessList,
  createAccessList2930Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import type { Common } from "@ethereumjs/common";
import { Address, createAddressFromPrivateKey } from "@ethereumjs/util";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { prng } from "../../../prng.ts";
import { assertEquals } from "../../../assert.ts";
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import type { ChainConfig } from "../../../../lib/protocol/chain_config.ts";
import type { OpFork } from "../../../../lib/protocol/hardforks.ts";
import { encodeReceipt } from "../../../../lib/protocol/receipt.ts";
import { type BlockAttributes, BlockBuilder, type TxResult } from "../../../../lib/execution/evm/mod.ts";
import { attributes, genesisHeader, l1Config, newState, opConfig } from "./helpers.ts";

export const KEYS = [1, 2, 3, 4].map((i) => new Uint8Array(32).fill(i));
export const SENDERS = KEYS.map((k) => createAddressFromPrivateKey(k).bytes);
export const addr = (b: number) => new Uint8Array(20).fill(b);

export function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)];
}

export interface TxFields {
  chainId: bigint;
  nonce: bigint;
  to: Uint8Array;
  value: bigint;
  gasLimit: bigint;
  data: Uint8Array;
  /** Fee cap (gasPrice of legacy and EIP-2930 transactions). */
  maxFee: bigint;
  tip: bigint;
  accessList: AccessList;
}

/** A transaction of `type` (0 legacy, 1 EIP-2930, 2 EIP-1559) signed with `key`. */
export function signedTx(type: number, f: TxFields, common: Common, key: Uint8Array): TypedTransaction {
  const { chainId, nonce, to, value, gasLimit, data, maxFee, tip, accessList } = f;
  if (type === 2) {
    const maxPriorityFeePerGas = tip > maxFee ? maxFee : tip;
    return createFeeMarket1559Tx(
      { chainId, nonce, to, value, gasLimit, data, maxFeePerGas: maxFee, maxPriorityFeePerGas, accessList },
      { common },
    ).sign(key);
  }
  if (type === 1) {
    return createAccessList2930Tx(
      { chainId, nonce, to, value, gasLimit, data, gasPrice: maxFee, accessList },
      { common },
    ).sign(key);
  }
  return createLegacyTx({ nonce, to, value, gasLimit, data, gasPrice: maxFee }, { common }).sign(key);
}

function summary(r: TxResult): unknown {
  return {
    receipt: bytesToHex(encodeReceipt(r.receipt)),
    gasUsed: r.gasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    l1Fee: r.l1Fee,
    from: bytesToHex(r.from),
    error: r.error,
    contractAddress: r.contractAddress && bytesToHex(r.contractAddress),
  };
}

async function outcome(b: BlockBuilder, tx: TypedTransaction): Promise<unknown> {
  try {
    return summary(await b.addTransaction(tx));
  } catch (e) {
    return { threw: (e as Error).message };
  }
}

/** [nonce, balance, code hash] of each address, null when absent. */
export async function accountsOf(sm: MerkleStateManager, addresses: Uint8Array[]): Promise<unknown[]> {
  const out = [];
  for (const a of addresses) {
    const acc = await sm.getAccount(new Address(a));
    out.push(acc === undefined ? null : [acc.nonce, acc.balance, bytesToHex(acc.codeHash)]);
  }
  return out;
}

export type Chain = OpFork | "l1";

export function chainConfig(chain: Chain): ChainConfig {
  return chain === "l1" ? l1Config() : opConfig(chain);
}

export interface Equivalence {
  chain: Chain;
  coinbase: Uint8Array;
  seed: number;
  /** Transactions a block. */
  count: number;
  /** Sets up each of the two states alike. */
  prepare(sm: MerkleStateManager): Promise<void>;
  /** The next transaction; `nonces` are the senders' (SENDERS) next nonces. */
  next(rand: () => number, nonces: bigint[]): TypedTransaction;
  /** What is compared after each transaction. */
  state(sm: MerkleStateManager): Promise<unknown>;
}

/** Runs one block of `count` transactions on both builders; returns how many were included. */
export async function besideRunTx(c: Equivalence): Promise<number> {
  const config = chainConfig(c.chain);
  const rand = prng(c.seed);
  const smFast = newState();
  const smEvm = newState();
  await c.prepare(smFast);
  await c.prepare(smEvm);
  const parent = genesisHeader(config, c.chain, await smFast.getStateRoot());
  const attrs: BlockAttributes = { ...attributes(c.chain), coinbase: c.coinbase };
  if (c.chain === "l1") delete attrs.eip1559Params;
  const fast = await BlockBuilder.open(config, parent, attrs, { stateManager: smFast });
  const evm = await BlockBuilder.open(config, parent, attrs, { stateManager: smEvm, evmOnly: true });
  const nonces = SENDERS.map(() => 0n);
  let included = 0;
  const where = `(coinbase ${bytesToHex(c.coinbase)})`;
  for (let n = 0; n < c.count; n++) {
    const tx = c.next(rand, nonces);
    const got = await outcome(fast, tx);
    const want = await outcome(evm, tx);
    assertEquals(got, want, `tx ${n} to ${tx.to === undefined ? "-" : bytesToHex(tx.to.bytes)} ${where}`);
    assertEquals(await c.state(smFast), await c.state(smEvm), `state after tx ${n} ${where}`);
    if (!("threw" in (got as object))) {
      const i = SENDERS.findIndex((s) => bytesToHex(s) === bytesToHex(tx.getSenderAddress().bytes));
      nonces[i] += 1n;
      included++;
    }
  }
  const a = await fast.seal();
  const b = await evm.seal();
  assertEquals(bytesToHex(a.hash), bytesToHex(b.hash), `block ${where}`);
  assertEquals(a.block.header, b.block.header);
  assertEquals(bytesToHex(await smFast.getStateRoot()), bytesToHex(await smEvm.getStateRoot()));
  return included;
}
