/**
 * Plain value transfers applied without the EVM (plain_transfer.ts) against the same transactions run
 * through `runTx` (BlockBuilderDeps.evmOnly): every transaction gives the same result or the same
 * error, every account ends the same, and the sealed blocks are equal, on each fork and on L1.
 */
import {
  createAccessList2930Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { Account, Address, createAddressFromPrivateKey } from "@ethereumjs/util";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { prng } from "../../../prng.ts";
import { assert, assertEquals } from "../../../assert.ts";
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import type { ChainConfig } from "../../../../lib/protocol/chain_config.ts";
import type { OpFork } from "../../../../lib/protocol/hardforks.ts";
import { encodeReceipt } from "../../../../lib/protocol/receipt.ts";
import {
  type BlockAttributes,
  BlockBuilder,
  forkRules,
  plainTransfersApply,
  type TxResult,
} from "../../../../lib/execution/evm/mod.ts";
import { BASE_FEE_VAULT_ADDRESS, SEQUENCER_FEE_VAULT_ADDRESS } from "../../../../lib/protocol/predeploys.ts";
import {
  attributes,
  ETHER,
  FEES,
  genesisHeader,
  GWEI,
  installL1SystemContracts,
  l1Config,
  newState,
  opConfig,
  setL1Block,
} from "./helpers.ts";

const KEYS = [1, 2, 3, 4].map((i) => new Uint8Array(32).fill(i));
const SENDERS = KEYS.map((k) => createAddressFromPrivateKey(k).bytes);
const addr = (b: number) => new Uint8Array(20).fill(b);
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

async function prepare(sm: MerkleStateManager, config: ChainConfig, coinbase: Uint8Array, prague: boolean) {
  for (const s of SENDERS) await sm.putAccount(new Address(s), new Account(0n, 10n * ETHER));
  await sm.putAccount(new Address(FUNDED), new Account(3n, 5n));
  await sm.putAccount(new Address(EMPTY), new Account());
  await sm.putAccount(new Address(CONTRACT), new Account(1n, 0n));
  await sm.putCode(new Address(CONTRACT), CODE);
  const delegation = new Uint8Array([0xef, 0x01, 0x00, ...FUNDED]);
  await sm.putCode(new Address(CODED_SENDER), prague ? delegation : CODE);
  if (coinbase[0] === 0xc0) await sm.putAccount(new Address(coinbase), new Account());
  if (config.op !== undefined) await setL1Block(sm, FEES);
  else await installL1SystemContracts(sm);
  await sm.getStateRoot();
}

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)];
}

/** A random transaction, mostly a valid plain transfer, sometimes anything else. */
function randomTx(
  rand: () => number,
  config: ChainConfig,
  timestamp: bigint,
  nonces: bigint[],
  coinbase: Uint8Array,
): TypedTransaction {
  // Each deviation from a valid plain transfer in about one transaction of ten.
  const odd = () => rand() < 0.1;
  const i = odd() ? 3 : Math.floor(rand() * 3);
  const common = forkRules(config, timestamp).common;
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
  let tx: TypedTransaction;
  if (type === 2) {
    tx = createFeeMarket1559Tx({
      chainId: config.chainId,
      nonce,
      to,
      value,
      gasLimit,
      data,
      maxFeePerGas: maxFee,
      maxPriorityFeePerGas: tip > maxFee ? maxFee : tip,
      accessList: odd() ? [{ address: bytesToHex(FUNDED), storageKeys: [] }] : [],
    }, { common });
  } else if (type === 1) {
    tx = createAccessList2930Tx({
      chainId: config.chainId,
      nonce,
      to,
      value,
      gasLimit,
      data,
      gasPrice: maxFee,
      accessList: odd() ? [{ address: bytesToHex(FUNDED), storageKeys: [] }] : [],
    }, { common });
  } else {
    tx = createLegacyTx({ nonce, to, value, gasLimit, data, gasPrice: maxFee }, { common });
  }
  return tx.sign(KEYS[i]);
}

function summary(r: TxResult): unknown {
  return {
    receipt: bytesToHex(encodeReceipt(r.receipt)),
    gasUsed: r.gasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    l1Fee: r.l1Fee,
    from: bytesToHex(r.from),
    error: r.error,
  };
}

async function outcome(b: BlockBuilder, tx: TypedTransaction): Promise<unknown> {
  try {
    return summary(await b.addTransaction(tx));
  } catch (e) {
    return { threw: (e as Error).message };
  }
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

async function accounts(sm: MerkleStateManager): Promise<unknown[]> {
  const out = [];
  for (const a of WATCHED) {
    const acc = await sm.getAccount(new Address(a));
    out.push(acc === undefined ? null : [acc.nonce, acc.balance, bytesToHex(acc.codeHash)]);
  }
  return out;
}

type Chain = OpFork | "l1";
const CHAINS: Chain[] = ["bedrock", "canyon", "ecotone", "fjord", "isthmus", "jovian", "l1"];
/** Coinbases: the SequencerFeeVault (absent at first), an empty account, a sender, the zero address. */
const COINBASES = [SEQUENCER_FEE_VAULT_ADDRESS, addr(0xc0), SENDERS[1], addr(0)];

for (const chain of CHAINS) {
  Deno.test(`plain transfers (${chain}): the direct path and runTx agree, transaction for transaction`, async () => {
    const config = chain === "l1" ? l1Config() : opConfig(chain);
    const rules = forkRules(config, 2n);
    assert(plainTransfersApply(rules.common));
    const prague = rules.common.isActivatedEIP(7702);
    let direct = 0;
    for (const [k, coinbase] of COINBASES.entries()) {
      const rand = prng(1000 * CHAINS.indexOf(chain) + k);
      const smFast = newState();
      const smEvm = newState();
      await prepare(smFast, config, coinbase, prague);
      await prepare(smEvm, config, coinbase, prague);
      const parent = genesisHeader(config, chain, await smFast.getStateRoot());
      const attrs: BlockAttributes = { ...attributes(chain), coinbase };
      if (chain === "l1") delete attrs.eip1559Params;
      const fast = await BlockBuilder.open(config, parent, attrs, { stateManager: smFast });
      const evm = await BlockBuilder.open(config, parent, attrs, { stateManager: smEvm, evmOnly: true });
      // runTx opens state checkpoints, the direct path none: that counts the transfers applied directly.
      let checkpoints = 0;
      const checkpoint = smFast.checkpoint.bind(smFast);
      smFast.checkpoint = () => {
        checkpoints++;
        return checkpoint();
      };
      const nonces = SENDERS.map(() => 0n);
      for (let n = 0; n < 80; n++) {
        const tx = randomTx(rand, config, 2n, nonces, coinbase);
        const before = checkpoints;
        const got = await outcome(fast, tx);
        const want = await outcome(evm, tx);
        assertEquals(got, want, `tx ${n} (coinbase ${k})`);
        assertEquals(await accounts(smFast), await accounts(smEvm), `accounts after tx ${n} (coinbase ${k})`);
        if (!("threw" in (got as object))) {
          const i = SENDERS.findIndex((s) => bytesToHex(s) === bytesToHex(tx.getSenderAddress().bytes));
          nonces[i] += 1n;
          if (checkpoints === before) direct++;
        }
      }
      const a = await fast.seal();
      const b = await evm.seal();
      assertEquals(bytesToHex(a.hash), bytesToHex(b.hash), `block (coinbase ${k})`);
      assertEquals(a.block.header, b.block.header);
      assertEquals(bytesToHex(await smFast.getStateRoot()), bytesToHex(await smEvm.getStateRoot()));
    }
    // The generator must exercise the direct path, not only the fallbacks.
    assert(direct > 40, `only ${direct} plain transfers included`);
  });
}

Deno.test("plain transfers: the forks that change transfers keep the EVM path", () => {
  const config = l1Config();
  const common = forkRules(config, 2n).common.copy();
  assert(plainTransfersApply(common));
  common.setEIPs([7928]);
  assertEquals(plainTransfersApply(common), false);
});
