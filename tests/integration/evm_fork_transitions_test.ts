/**
 * Builds a chain across every OP fork activation (Regolith at genesis, then Canyon, Ecotone, Fjord,
 * Granite, Holocene, Isthmus, Jovian at successive timestamps) with deposits and user transactions on a
 * sqlite-backed state, then imports the whole chain on a second sqlite state: every header must match.
 */
import { Address } from "@ethereumjs/util";
import { assert, assertEquals } from "../assert.ts";
import { SqliteStore } from "../../lib/db/mod.ts";
import {
  type BlockAttributes,
  BlockBuilder,
  importBlock,
  type SealedBlock,
} from "../../lib/execution/evm/mod.ts";
import { createStateManager } from "../../lib/execution/state/mod.ts";
import type { Header } from "../../lib/protocol/block.ts";
import type { ChainConfig } from "../../lib/protocol/chain_config.ts";
import type { DepositTx } from "../../lib/protocol/deposit_tx.ts";
import { isForkActive } from "../../lib/protocol/hardforks.ts";
import {
  CREATE2_DEPLOYER_ADDRESS,
  CREATE2_DEPLOYER_CODE,
  L2_TO_L1_MESSAGE_PASSER_ADDRESS,
  SEQUENCER_FEE_VAULT_ADDRESS,
} from "../../lib/protocol/predeploys.ts";
import {
  ETHER,
  FEES,
  fund,
  genesisHeader,
  RECIPIENT,
  SENDER,
  setL1Block,
  setStorage,
  transfer,
} from "../unit/execution/evm/helpers.ts";

const CONFIG: ChainConfig = {
  chainId: 901n,
  l1: {},
  op: {
    forks: {
      regolith: 0n,
      canyon: 4n,
      delta: 4n,
      ecotone: 6n,
      fjord: 8n,
      granite: 8n,
      holocene: 10n,
      isthmus: 12n,
      jovian: 14n,
    },
    eip1559: { elasticity: 6n, denominator: 50n, denominatorCanyon: 250n },
  },
};

function attrs(timestamp: bigint): BlockAttributes {
  const forks = CONFIG.op!.forks;
  const a: BlockAttributes = {
    timestamp,
    coinbase: SEQUENCER_FEE_VAULT_ADDRESS,
    prevRandao: new Uint8Array(32).fill(Number(timestamp)),
    gasLimit: 30_000_000n,
  };
  if (isForkActive(forks, "ecotone", timestamp)) a.parentBeaconBlockRoot = new Uint8Array(32).fill(3);
  if (isForkActive(forks, "holocene", timestamp)) {
    a.eip1559Params = new Uint8Array([0, 0, 0, 100, 0, 0, 0, 4]);
  }
  if (isForkActive(forks, "jovian", timestamp)) a.minBaseFee = 1000n;
  return a;
}

async function genesisState(store: SqliteStore) {
  const sm = await createStateManager(store);
  await setL1Block(sm, FEES);
  await fund(sm, SENDER, ETHER);
  await setStorage(sm, L2_TO_L1_MESSAGE_PASSER_ADDRESS, 0n, 1n);
  return sm;
}

Deno.test("evm: a chain across every fork activation builds and re-imports on sqlite state", async () => {
  const dir = await Deno.makeTempDir();
  const a = SqliteStore.open(`${dir}/a.sqlite`);
  const b = SqliteStore.open(`${dir}/b.sqlite`);
  try {
    const smA = await genesisState(a);
    const genesis: Header = genesisHeader(CONFIG, "regolith", await smA.getStateRoot());
    const chain: SealedBlock[] = [];
    let parent = genesis;
    let nonce = 0n;
    for (let t = 2n; t <= 16n; t += 2n) {
      const builder = await BlockBuilder.open(CONFIG, parent, attrs(t), { stateManager: smA });
      const dep: DepositTx = {
        sourceHash: new Uint8Array(32).fill(Number(t)),
        from: new Uint8Array(20).fill(0xdd),
        to: RECIPIENT,
        mint: 7n,
        value: 1n,
        gas: 60_000n,
        isSystemTx: false,
        data: new Uint8Array(),
      };
      await builder.addTransaction(dep);
      await builder.addTransaction(transfer(CONFIG, t, nonce++));
      await builder.addTransaction(
        transfer(CONFIG, t, nonce++, { data: new Uint8Array(200).fill(5), gasLimit: 40_000n }),
      );
      const sealed = await a.transactionAsync(() => builder.seal());
      chain.push(sealed);
      parent = sealed.block.header;
    }
    // Canyon activation block (t = 4) got the create2deployer.
    assertEquals(await smA.getCode(new Address(CREATE2_DEPLOYER_ADDRESS)), CREATE2_DEPLOYER_CODE);
    // Holocene blocks carry the attributes' parameters; Jovian blocks the min base fee too.
    assertEquals(chain[4].block.header.extraData, new Uint8Array([0, 0, 0, 0, 100, 0, 0, 0, 4]));
    assertEquals(chain[6].block.header.extraData.length, 17);
    assert(chain[6].block.header.blobGasUsed! > 0n, "Jovian DA footprint");

    const smB = await genesisState(b);
    assertEquals(await smB.getStateRoot(), genesis.stateRoot);
    parent = genesis;
    for (const s of chain) {
      const imported = await b.transactionAsync(() =>
        importBlock(CONFIG, parent, s.block, { stateManager: smB })
      );
      assertEquals(imported.hash, s.hash, `block ${s.block.header.number}`);
      parent = s.block.header;
    }
    assertEquals(await smB.getStateRoot(), chain.at(-1)!.stateRoot);
    // A reopened state manager sees the committed state.
    const reopened = await createStateManager(b, chain.at(-1)!.stateRoot);
    assertEquals((await reopened.getAccount(new Address(SENDER)))!.nonce, nonce);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
