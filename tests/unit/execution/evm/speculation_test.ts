/**
 * Speculative import (speculation.ts): a block imported with its tail executed on the speculation
 * worker must come out exactly as built (every root compared with the header), whether the tail's
 * transactions merge (independent senders), conflict with the head (the same sender, the same slot:
 * executed again here), or are left to the importer (a transfer into a fee vault, a contract
 * creation). A block that fails with a merged tail is imported again without one before it is refused.
 */
import { createFeeMarket1559Tx, type TypedTransaction } from "@ethereumjs/tx";
import {
  Account,
  Address,
  bigIntToBytes,
  createAddressFromPrivateKey,
  setLengthLeft,
} from "@ethereumjs/util";
import { assert, assertEquals, assertRejects } from "../../../assert.ts";
import { concatBytes, hexToBytes } from "../../../../lib/common/bytes.ts";
import { SqliteStore } from "../../../../lib/db/mod.ts";
import {
  BlockBuilder,
  importBlock,
  type SealedBlock,
  SpeculationTask,
} from "../../../../lib/execution/evm/mod.ts";
import { forkRules } from "../../../../lib/execution/evm/common.ts";
import {
  createStateManager,
  type KeelStateManager,
  StateRootTask,
} from "../../../../lib/execution/state/mod.ts";
import type { Header } from "../../../../lib/protocol/block.ts";
import type { ChainConfig } from "../../../../lib/protocol/chain_config.ts";
import { BASE_FEE_VAULT_ADDRESS } from "../../../../lib/protocol/predeploys.ts";
import { attributes, ETHER, FEES, fund, genesisHeader, GWEI, opConfig, setL1Block } from "./helpers.ts";

/** SSTOREs each (slot, value) word pair of its calldata (without calldata: SELFDESTRUCT, unused here). */
const STORE_RUNTIME = hexToBytes("0x3660065733ff5b60005b80361115601f57806020013581355560400160095" + "65b00");
const STORE = new Uint8Array(20).fill(0x5e);
const KEYS = Array.from({ length: 12 }, (_, i) => new Uint8Array(32).fill(i + 1));
const FROM = KEYS.map((k) => createAddressFromPrivateKey(k).bytes);

function word(n: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(n), 32);
}

function tx(
  config: ChainConfig,
  t: bigint,
  key: number,
  nonce: bigint,
  opts: { to?: Uint8Array | null; value?: bigint; gasLimit?: bigint; data?: Uint8Array } = {},
): TypedTransaction {
  return createFeeMarket1559Tx({
    chainId: config.chainId,
    nonce,
    to: opts.to === null ? undefined : opts.to ?? new Uint8Array(20).fill(0xb0 + key),
    value: opts.value ?? 1000n,
    gasLimit: opts.gasLimit ?? 21000n,
    maxFeePerGas: 3n * GWEI,
    maxPriorityFeePerGas: GWEI / 2n,
    data: opts.data,
  }, { common: forkRules(config, t).common }).sign(KEYS[key]);
}

async function genesisState(store: SqliteStore): Promise<KeelStateManager> {
  const sm = await createStateManager(store);
  await setL1Block(sm, FEES);
  for (const a of FROM) await fund(sm, a, 10n * ETHER);
  await sm.putAccount(new Address(STORE), new Account(1n, 0n));
  await sm.putCode(new Address(STORE), STORE_RUNTIME);
  await sm.getStateRoot();
  return sm;
}

/**
 * Block k's transactions: the head is the first half. Key 0 sends in both halves (its nonce conflicts),
 * both halves write slot 1 of STORE (conflict), keys 1-9 send once each (independent; key 9 writes slot
 * 2, which only the tail writes, so a worker that kept last block's value would conflict), key 10 pays
 * into the BaseFeeVault and key 11 creates a contract (both left to the importer).
 */
function blockTxs(config: ChainConfig, t: bigint, k: bigint): TypedTransaction[] {
  const n = (k - 1n) * 2n;
  const store = (v: bigint, slot = 1n) => ({
    to: STORE,
    value: 0n,
    gasLimit: 100_000n,
    data: concatBytes(word(slot), word(v)),
  });
  return [
    tx(config, t, 0, n),
    tx(config, t, 1, k - 1n),
    tx(config, t, 2, k - 1n, store(k)),
    tx(config, t, 3, k - 1n),
    tx(config, t, 4, k - 1n),
    tx(config, t, 5, k - 1n),
    tx(config, t, 0, n + 1n),
    tx(config, t, 6, k - 1n, store(k + 100n)),
    tx(config, t, 7, k - 1n),
    tx(config, t, 8, k - 1n),
    tx(config, t, 10, k - 1n, { to: BASE_FEE_VAULT_ADDRESS }),
    tx(config, t, 11, k - 1n, {
      to: null,
      value: 0n,
      gasLimit: 100_000n,
      data: hexToBytes("0x600160005500"),
    }),
    tx(config, t, 9, k - 1n, store(k, 2n)),
  ];
}

async function buildChain(config: ChainConfig, sm: KeelStateManager, store: SqliteStore) {
  const genesis: Header = genesisHeader(config, "isthmus", await sm.getStateRoot());
  const chain: SealedBlock[] = [];
  let parent = genesis;
  for (let k = 1n; k <= 3n; k++) {
    const t = parent.timestamp + 2n;
    const builder = await BlockBuilder.open(config, parent, attributes("isthmus", t), { stateManager: sm });
    for (const x of blockTxs(config, t, k)) await builder.addTransaction(x);
    chain.push(await store.transactionAsync(() => builder.seal()));
    parent = chain.at(-1)!.block.header;
  }
  return { genesis, chain };
}

async function withStores(fn: (a: SqliteStore, b: SqliteStore) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const a = SqliteStore.open(`${dir}/a.sqlite`);
  const b = SqliteStore.open(`${dir}/b.sqlite`);
  try {
    await fn(a, b);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
}

for (const withRoots of [false, true]) {
  Deno.test(
    `speculation: a block imported with its tail on the worker equals the block built${
      withRoots ? " (state-root worker: the speculation worker's caches follow each block's changes)" : ""
    }`,
    async () => {
      const config = opConfig("isthmus");
      await withStores(async (a, b) => {
        const { genesis, chain } = await buildChain(config, await genesisState(a), a);
        const smB = await genesisState(b);
        const task = new SpeculationTask(b.path, config, { minTxs: 4, share: 0.6 });
        const roots = withRoots ? new StateRootTask(b.path) : undefined;
        try {
          let parent = genesis;
          for (const s of chain) {
            const imported = await b.transactionAsync(() =>
              importBlock(config, parent, s.block, { stateManager: smB, stateRoot: roots }, {
                speculation: task,
              })
            );
            assertEquals(imported.hash, s.hash, `block ${s.block.header.number}`);
            for (let i = 0; i < s.receipts.length; i++) {
              assertEquals(imported.receipts[i].receipt, s.receipts[i].receipt, `receipt ${i}`);
            }
            parent = s.block.header;
          }
          const st = task.stats;
          // Block 1: the fee vaults do not exist yet, so every tail transaction (crediting them) is left to
          // the importer. Blocks 2 and 3: keys 7, 8 and 9 merge; key 6's slot conflicts with key 2's; key 0's
          // second transaction (its nonce not yet raised on the parent state), the vault transfer and the
          // creation are left to the importer.
          assertEquals(st.blocks, chain.length);
          assertEquals({ merged: st.merged, conflicts: st.conflicts, skipped: st.skipped }, {
            merged: 6,
            conflicts: 2,
            skipped: 7 + 2 * 3,
          });
          assertEquals(st.retries, 0);
          // Without the state-root worker the block's changes are not at hand: every tail starts cold.
          assertEquals(st.warm, withRoots ? chain.length - 1 : 0);
          if (roots !== undefined) {
            assertEquals(roots.stats.roots, chain.length);
            // The merged transactions' receipts reach the worker too: each receipts root is the worker's.
            assertEquals(roots.stats.receiptsRoots, chain.length);
          }
          assertEquals(await smB.getStateRoot(), chain.at(-1)!.block.header.stateRoot);
        } finally {
          task.close();
          roots?.close();
        }
      });
    },
  );
}

Deno.test("speculation: a block with a wrong state root is still refused, after a retry without the worker", async () => {
  const config = opConfig("isthmus");
  await withStores(async (a, b) => {
    const { genesis, chain } = await buildChain(config, await genesisState(a), a);
    const smB = await genesisState(b);
    const task = new SpeculationTask(b.path, config, { minTxs: 4, share: 0.6 });
    try {
      await b.transactionAsync(() =>
        importBlock(config, genesis, chain[0].block, { stateManager: smB }, { speculation: task })
      );
      const parent = chain[0].block.header;
      const bad = {
        ...chain[1].block,
        header: { ...chain[1].block.header, stateRoot: new Uint8Array(32).fill(7) },
      };
      await assertRejects(
        () =>
          b.transactionAsync(() =>
            importBlock(config, parent, bad, { stateManager: smB }, { speculation: task })
          ),
        Error,
        "stateRoot mismatch",
      );
      assertEquals(task.stats.retries, 1);
      assertEquals(await smB.getStateRoot(), parent.stateRoot);
      // The good block imports, with a merged tail, on a manager opened at the parent (as the engine does
      // after a failed import: the failed block's flushed changes may remain in the old one's caches).
      const merged = task.stats.merged;
      const fresh = await createStateManager(b, parent.stateRoot);
      const ok = await b.transactionAsync(() =>
        importBlock(config, parent, chain[1].block, { stateManager: fresh }, { speculation: task })
      );
      assertEquals(ok.hash, chain[1].hash);
      assert(task.stats.merged > merged);
    } finally {
      task.close();
    }
  });
});

Deno.test("speculation: a tail the worker broke off (fewer answers than sent) runs on the importer", async () => {
  const config = opConfig("isthmus");
  await withStores(async (a, b) => {
    const { genesis, chain } = await buildChain(config, await genesisState(a), a);
    const smB = await genesisState(b);
    const real = new SpeculationTask(b.path, config, { minTxs: 4, share: 0.6 });
    // The worker's answer for the tail, cut after its first transaction.
    const cut = {
      closed: false,
      options: real.options,
      stats: real.stats,
      advance: () => {},
      run: async (job: Parameters<SpeculationTask["run"]>[0]) => {
        const answer = await real.run(job);
        return answer.kind === "result" ? { ...answer, txs: answer.txs.slice(0, 1) } : answer;
      },
    } as unknown as SpeculationTask;
    try {
      let parent = genesis;
      for (const s of chain) {
        const imported = await b.transactionAsync(() =>
          importBlock(config, parent, s.block, { stateManager: smB }, { speculation: cut })
        );
        assertEquals(imported.hash, s.hash, `block ${s.block.header.number}`);
        parent = s.block.header;
      }
      assertEquals(real.stats.retries, 0);
    } finally {
      real.close();
    }
  });
});
