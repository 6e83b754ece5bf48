/**
 * Plain value transfers applied without the EVM (plain_transfer.ts) against the same transactions run
 * through `runTx` (equivalence.ts): every transaction gives the same result or the same error, every
 * account ends the same, and the sealed blocks are equal, on each fork and on L1.
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { Account, Address } from "@ethereumjs/util";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { assert, assertEquals } from "../../../assert.ts";
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import { forkRules, plainTransfersApply, plainTransferStats } from "../../../../lib/execution/evm/mod.ts";
import { BASE_FEE_VAULT_ADDRESS, SEQUENCER_FEE_VAULT_ADDRESS } from "../../../../lib/protocol/predeploys.ts";
import { ETHER, FEES, GWEI, installL1SystemContracts, l1Config, setL1Block } from "./helpers.ts";
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

/** Recipients: absent, funded, present but empty, with code, precompiles (ecrecover, P256VERIFY), a sender. */
const ABSENT = addr(0xa1);
const FUNDED = addr(0xa2);
const EMPTY = addr(0xa3);
const CONTRACT = addr(0xa4);
const ECRECOVER = addr(0).map((_, i) => (i === 19 ? 1 : 0));
const P256 = addr(0).map((_, i) => (i === 18 ? 1 : 0));
/** STOP-free code: PUSH1 1 PUSH1 0 SSTORE (a recipient whose code runs and writes). */
const CODE = new Uint8Array([0x60, 0x01, 0x60, 0x00, 0x55]);
/** KEYS[3]'s account carries code: rejected by EIP-3607, or a delegated EOA (EIP-7702) from Prague. */
const CODED_SENDER = SENDERS[3];

async function prepare(sm: MerkleStateManager, chain: Chain, coinbase: Uint8Array, prague: boolean) {
  for (const s of SENDERS) await sm.putAccount(new Address(s), new Account(0n, 10n * ETHER));
  await sm.putAccount(new Address(FUNDED), new Account(3n, 5n));
  await sm.putAccount(new Address(EMPTY), new Account());
  await sm.putAccount(new Address(CONTRACT), new Account(1n, 0n));
  await sm.putCode(new Address(CONTRACT), CODE);
  const delegation = new Uint8Array([0xef, 0x01, 0x00, ...FUNDED]);
  await sm.putCode(new Address(CODED_SENDER), prague ? delegation : CODE);
  if (coinbase[0] === 0xc0) await sm.putAccount(new Address(coinbase), new Account());
  if (chain !== "l1") await setL1Block(sm, FEES);
  else await installL1SystemContracts(sm);
  await sm.getStateRoot();
}

/** A random transaction, mostly a valid plain transfer, sometimes anything else. */
function randomTx(
  rand: () => number,
  chain: Chain,
  nonces: bigint[],
  coinbase: Uint8Array,
): TypedTransaction {
  const config = chainConfig(chain);
  // Each deviation from a valid plain transfer in about one transaction of ten.
  const odd = () => rand() < 0.1;
  const i = odd() ? 3 : Math.floor(rand() * 3);
  const to = odd()
    ? pick(rand, [CONTRACT, ECRECOVER, P256, SENDERS[0], coinbase, addr(0)])
    : pick(rand, [ABSENT, FUNDED, EMPTY, addr(0x10 + Math.floor(rand() * 8))]);
  const value = odd() ? pick(rand, [0n, 20n * ETHER]) : pick(rand, [1n, 12345n, ETHER / 10n]);
  const nonce = nonces[i] + (odd() ? 1n : 0n);
  const gasLimit = odd() ? pick(rand, [20999n, 60000n]) : 21000n;
  const data = odd() ? new Uint8Array([rand() < 0.5 ? 0 : 7]) : new Uint8Array();
  const maxFee = odd() ? pick(rand, [GWEI / 2n, 0n]) : 3n * GWEI;
  const tip = odd() ? pick(rand, [0n, 5n * GWEI]) : GWEI / 2n;
  const type = pick(rand, [0, 1, 2, 2]);
  const accessList = type > 0 && odd() ? [{ address: bytesToHex(FUNDED), storageKeys: [] }] : [];
  const common = forkRules(config, 2n).common;
  const fields = { chainId: config.chainId, nonce, to, value, gasLimit, data, maxFee, tip, accessList };
  return signedTx(type, fields, common, KEYS[i]);
}

const WATCHED = [
  ...SENDERS,
  ABSENT,
  FUNDED,
  EMPTY,
  CONTRACT,
  ECRECOVER,
  P256,
  addr(0),
  SEQUENCER_FEE_VAULT_ADDRESS,
  BASE_FEE_VAULT_ADDRESS,
  addr(0xc0),
];

const CHAINS: Chain[] = ["bedrock", "canyon", "ecotone", "fjord", "isthmus", "jovian", "l1"];
/** Coinbases: the SequencerFeeVault (absent at first), an empty account, a sender, the zero address. */
const COINBASES = [SEQUENCER_FEE_VAULT_ADDRESS, addr(0xc0), SENDERS[1], addr(0)];

for (const chain of CHAINS) {
  Deno.test(`plain transfers (${chain}): the direct path and runTx agree, transaction for transaction`, async () => {
    const rules = forkRules(chainConfig(chain), 2n);
    assert(plainTransfersApply(rules.common));
    const prague = rules.common.isActivatedEIP(7702);
    const before = plainTransferStats.applied;
    for (const [k, coinbase] of COINBASES.entries()) {
      await besideRunTx({
        chain,
        coinbase,
        seed: 1000 * CHAINS.indexOf(chain) + k,
        count: 80,
        prepare: (sm) => prepare(sm, chain, coinbase, prague),
        next: (rand, nonces) => randomTx(rand, chain, nonces, coinbase),
        state: (sm) => accountsOf(sm, WATCHED),
      });
    }
    // The generator must exercise the direct path, not only the fallbacks.
    const direct = plainTransferStats.applied - before;
    assert(direct > 40, `only ${direct} plain transfers applied directly`);
  });
}

Deno.test("plain transfers: the forks that change transfers keep the EVM path", () => {
  const config = l1Config();
  const common = forkRules(config, 2n).common.copy();
  assert(plainTransfersApply(common));
  common.setEIPs([7928]);
  assertEquals(plainTransfersApply(common), false);
});
