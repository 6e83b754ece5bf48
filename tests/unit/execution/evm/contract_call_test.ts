/**
 * Calls applied around `evm.runCall` without `runTx` (contract_call.ts) against the same transactions
 * run through `runTx` (equivalence.ts): every transaction gives the same receipt, gas and error (or the
 * same refusal), the watched accounts and storage end the same, and the sealed blocks are equal, on each
 * fork and on L1. The contracts store, log, refund, revert, run out of gas, call on, create and
 * self-destruct; recipients include precompiles, empty and absent accounts (EIP-161).
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { Account, Address, setLengthLeft } from "@ethereumjs/util";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { assert } from "../../../assert.ts";
import { bytesToHex, concatBytes } from "../../../../lib/common/bytes.ts";
import { forkRules } from "../../../../lib/execution/evm/mod.ts";
import { contractCallStats } from "../../../../lib/execution/evm/contract_call.ts";
import { BASE_FEE_VAULT_ADDRESS, SEQUENCER_FEE_VAULT_ADDRESS } from "../../../../lib/protocol/predeploys.ts";
import { ETHER, FEES, GWEI, installL1SystemContracts, setL1Block } from "./helpers.ts";
import {
  accountsOf,
  addr,
  besideRunTx,
  type Chain,
  chainConfig,
  KEYS,
  pick,
  SENDERS,
  signedTx,
} from "./equivalence.ts";

const low = (b: number) => addr(0).map((_, i) => (i === 19 ? b : 0));
const hex = (s: string) => Uint8Array.from(s.match(/../g)!.map((h) => parseInt(h, 16)));

/**
 * Stores calldata word 0 at slot 0 and word 1 at slot 1 (slot 1 starts at 5: writing 0 refunds), logs
 * one topic with the caller in the data: PUSH1 0 CALLDATALOAD PUSH1 0 SSTORE PUSH1 32 CALLDATALOAD
 * PUSH1 1 SSTORE CALLER PUSH1 0 MSTORE PUSH1 0xaa PUSH1 32 PUSH1 0 LOG1 STOP.
 */
const TOKEN = addr(0xd1);
const TOKEN_CODE = hex("600035600055602035600155336000526" + "0aa60206000a100");
/** PUSH1 1 PUSH1 0 SSTORE PUSH1 0 PUSH1 0 REVERT. */
const REVERTER = addr(0xd2);
const REVERTER_CODE = hex("6001600055" + "60006000fd");
/** JUMPDEST PUSH1 0 JUMP: out of gas. */
const LOOPER = addr(0xd3);
const LOOPER_CODE = hex("5b600056");
/** CREATE of initcode PUSH1 0xbb SELFDESTRUCT (deleted: created in the transaction, EIP-6780). */
const FACTORY = addr(0xd4);
const FACTORY_CODE = hex("6260bbff600052" + "6003601d6000f0" + "00");
/** PUSH1 0xbb SELFDESTRUCT: not created in the transaction (Cancun: balance moves, code stays). */
const DESTRUCTOR = addr(0xd5);
const DESTRUCTOR_CODE = hex("60bbff");
/** Forwards its calldata and value to TOKEN: CALLDATACOPY, CALL(GAS, TOKEN, CALLVALUE, 0, size, 0, 0). */
const FORWARDER = addr(0xd6);
const FORWARDER_CODE = concatBytes(hex("3660006000376000600036600034" + "73"), TOKEN, hex("5af15000"));
/** CALL(GAS, 0x04, 0, 0, 0, 0, 0): a precompile, warm from the start (EIP-2929). */
const PRECALLER = addr(0xd7);
const PRECALLER_CODE = hex("6000600060006000600060045af15000");
/** ADDRESS BALANCE POP CALLER BALANCE POP STOP: the recipient and the sender, warm from the start (EIP-2929). */
const SELFBAL = addr(0xd8);
const SELFBAL_CODE = hex("30315033315000");
/** An empty account: a call with data touches it, and the transaction's end deletes it (EIP-161). */
const EMPTY = addr(0xa3);
const ABSENT = addr(0xa1);
const ECRECOVER = low(1);
const IDENTITY = low(4);
/** KEYS[3]'s account carries code: rejected by EIP-3607, or a delegated EOA (EIP-7702) from Prague. */
const CODED_SENDER = SENDERS[3];

const CONTRACTS: [Uint8Array, Uint8Array][] = [
  [TOKEN, TOKEN_CODE],
  [REVERTER, REVERTER_CODE],
  [LOOPER, LOOPER_CODE],
  [FACTORY, FACTORY_CODE],
  [DESTRUCTOR, DESTRUCTOR_CODE],
  [FORWARDER, FORWARDER_CODE],
  [PRECALLER, PRECALLER_CODE],
  [SELFBAL, SELFBAL_CODE],
];

async function prepare(sm: MerkleStateManager, chain: Chain, coinbase: Uint8Array, prague: boolean) {
  for (const s of SENDERS) await sm.putAccount(new Address(s), new Account(0n, 10n * ETHER));
  await sm.putAccount(new Address(EMPTY), new Account());
  for (const [a, code] of CONTRACTS) {
    await sm.putAccount(new Address(a), new Account(1n, 7n));
    await sm.putCode(new Address(a), code);
  }
  await sm.putStorage(new Address(TOKEN), setLengthLeft(new Uint8Array([1]), 32), new Uint8Array([5]));
  const delegation = new Uint8Array([0xef, 0x01, 0x00, ...TOKEN]);
  await sm.putCode(new Address(CODED_SENDER), prague ? delegation : TOKEN_CODE);
  if (coinbase[0] === 0xc0) await sm.putAccount(new Address(coinbase), new Account());
  if (chain !== "l1") await setL1Block(sm, FEES);
  else await installL1SystemContracts(sm);
  await sm.getStateRoot();
}

function word(rand: () => number): Uint8Array {
  return rand() < 0.3 ? new Uint8Array(32) : setLengthLeft(new Uint8Array([Math.floor(rand() * 256)]), 32);
}

/** A random call, mostly valid, sometimes anything else. */
function randomTx(
  rand: () => number,
  chain: Chain,
  nonces: bigint[],
  coinbase: Uint8Array,
): TypedTransaction {
  const config = chainConfig(chain);
  const odd = () => rand() < 0.08;
  const i = odd() ? 3 : Math.floor(rand() * 3);
  const to = odd() ? pick(rand, [coinbase, SENDERS[0], ABSENT]) : pick(rand, [
    TOKEN,
    TOKEN,
    FORWARDER,
    PRECALLER,
    SELFBAL,
    REVERTER,
    LOOPER,
    FACTORY,
    DESTRUCTOR,
    EMPTY,
    ECRECOVER,
    IDENTITY,
  ]);
  const value = odd() ? pick(rand, [20n * ETHER, 3n]) : pick(rand, [0n, 0n, 1n]);
  const nonce = nonces[i] + (odd() ? 1n : 0n);
  const gasLimit = odd() ? pick(rand, [21000n, 23000n, 45000n]) : pick(rand, [100000n, 300000n]);
  const data = odd() ? new Uint8Array([rand() < 0.5 ? 0 : 7]) : concatBytes(word(rand), word(rand));
  const maxFee = odd() ? pick(rand, [GWEI / 2n, 0n]) : 3n * GWEI;
  const tip = odd() ? pick(rand, [0n, 5n * GWEI]) : GWEI / 2n;
  const accessList = rand() < 0.2
    ? [{ address: bytesToHex(TOKEN), storageKeys: [bytesToHex(new Uint8Array(32)), bytesToHex(word(rand))] }]
    : [];
  const type = pick(rand, [0, 1, 2, 2]);
  const common = forkRules(config, 2n).common;
  const fields = { chainId: config.chainId, nonce, to, value, gasLimit, data, maxFee, tip, accessList };
  return signedTx(type, fields, common, KEYS[i]);
}

const WATCHED = [
  ...SENDERS,
  ...CONTRACTS.map(([a]) => a),
  EMPTY,
  ABSENT,
  ECRECOVER,
  IDENTITY,
  addr(0xbb),
  SEQUENCER_FEE_VAULT_ADDRESS,
  BASE_FEE_VAULT_ADDRESS,
  addr(0xc0),
];

async function state(sm: MerkleStateManager): Promise<unknown[]> {
  const out = await accountsOf(sm, WATCHED);
  for (const slot of [0, 1]) {
    const key = setLengthLeft(new Uint8Array([slot]), 32);
    out.push(bytesToHex(await sm.getStorage(new Address(TOKEN), key)));
    out.push(bytesToHex(await sm.getStorage(new Address(REVERTER), key)));
  }
  return out;
}

const CHAINS: Chain[] = ["bedrock", "canyon", "ecotone", "isthmus", "jovian", "l1"];
/** Coinbases: the SequencerFeeVault (absent at first), an empty account, a sender, a contract. */
const COINBASES = [SEQUENCER_FEE_VAULT_ADDRESS, addr(0xc0), SENDERS[1], TOKEN];

for (const chain of CHAINS) {
  Deno.test(`contract calls (${chain}): the direct path and runTx agree, transaction for transaction`, async () => {
    const prague = forkRules(chainConfig(chain), 2n).common.isActivatedEIP(7702);
    const before = contractCallStats.applied;
    for (const [k, coinbase] of COINBASES.entries()) {
      await besideRunTx({
        chain,
        coinbase,
        seed: 7000 + 100 * CHAINS.indexOf(chain) + k,
        count: 60,
        prepare: (sm) => prepare(sm, chain, coinbase, prague),
        next: (rand, nonces) => randomTx(rand, chain, nonces, coinbase),
        state,
      });
    }
    // The generator must exercise the direct path, not only the fallbacks.
    const direct = contractCallStats.applied - before;
    assert(direct > 150, `only ${direct} calls applied directly`);
  });
}
