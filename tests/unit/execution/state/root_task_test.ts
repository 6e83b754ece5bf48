/**
 * The state root computed beside execution (root_task.ts) must equal the one the state manager's own
 * flush computes, for every kind of change: balances and nonces, storage written and zeroed, contracts
 * created, self-destructed and re-created at the same address in one block, empty accounts deleted,
 * fee vaults, deposits, and (Isthmus) the L2ToL1MessagePasser storage root in withdrawalsRoot. Blocks are
 * built the usual way on one sqlite file and imported with the task on another: import compares every
 * root with the header's.
 */
import { Account, Address, bigIntToBytes, setLengthLeft } from "@ethereumjs/util";
import { assert, assertEquals, assertRejects } from "../../../assert.ts";
import { concatBytes, hexToBytes } from "../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import { SqliteStore } from "../../../../lib/db/mod.ts";
import {
  type BlockAttributes,
  BlockBuilder,
  importBlock,
  type SealedBlock,
} from "../../../../lib/execution/evm/mod.ts";
import {
  createStateManager,
  type KeelStateManager,
  StateRootTask,
} from "../../../../lib/execution/state/mod.ts";
import type { Header } from "../../../../lib/protocol/block.ts";
import { orderedTrieRoot } from "../../../../lib/protocol/ordered_trie.ts";
import type { ChainConfig } from "../../../../lib/protocol/chain_config.ts";
import type { OpFork } from "../../../../lib/protocol/hardforks.ts";
import { L2_TO_L1_MESSAGE_PASSER_ADDRESS } from "../../../../lib/protocol/predeploys.ts";
import {
  attributes,
  ETHER,
  FEES,
  fund,
  genesisHeader,
  opConfig,
  SENDER,
  setL1Block,
  setStorage,
  transfer,
} from "../evm/helpers.ts";

/**
 * Runtime of the test contract: with calldata, SSTOREs each (slot, value) word pair; without, SELFDESTRUCT
 * to the caller.
 */
const STORE_RUNTIME = hexToBytes(
  "0x3660065733ff5b60005b80361115601f57806020013581355560400160095" + "65b00",
);
/** Its creation code: SSTORE(0, 1), then return the runtime. */
const STORE_INIT = concatBytes(hexToBytes("0x60016000556021601160003960216000f3"), STORE_RUNTIME);
/** A factory: CREATE2 (salt 0) of the calldata as creation code. */
const FACTORY_RUNTIME = hexToBytes("0x36600060003760003660006000f500");
const FACTORY = new Uint8Array(20).fill(0xfa);
const FRESH = new Uint8Array(20).fill(0xee);

function create2Address(factory: Uint8Array, init: Uint8Array): Uint8Array {
  return keccak256(concatBytes(new Uint8Array([0xff]), factory, new Uint8Array(32), keccak256(init)))
    .subarray(12);
}
const CHILD = create2Address(FACTORY, STORE_INIT);

function word(n: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(n), 32);
}
function writes(...pairs: [bigint, bigint][]): Uint8Array {
  return concatBytes(...pairs.flatMap(([k, v]) => [word(k), word(v)]));
}

async function genesisState(store: SqliteStore): Promise<KeelStateManager> {
  const sm = await createStateManager(store);
  await setL1Block(sm, FEES);
  await fund(sm, SENDER, 100n * ETHER);
  await sm.putAccount(new Address(FACTORY), new Account(1n, 0n));
  await sm.putCode(new Address(FACTORY), FACTORY_RUNTIME);
  // The message passer with storage (its Isthmus storage root is the header's withdrawalsRoot) and
  // code that writes more.
  await setStorage(sm, L2_TO_L1_MESSAGE_PASSER_ADDRESS, 0n, 1n);
  await sm.putCode(new Address(L2_TO_L1_MESSAGE_PASSER_ADDRESS), STORE_RUNTIME);
  await sm.getStateRoot();
  return sm;
}

/** Transactions of one block, from nonce `n`; `k` varies the values block by block. */
function blockTxs(config: ChainConfig, t: bigint, n: bigint, k: bigint) {
  let nonce = n;
  const tx = (opts: Parameters<typeof transfer>[3]) => transfer(config, t, nonce++, opts);
  return [
    tx({}),
    tx({ to: FACTORY, value: 0n, gasLimit: 300_000n, data: STORE_INIT }), // CHILD created, slot 0 = 1
    tx({ to: CHILD, value: 0n, gasLimit: 200_000n, data: writes([1n, k], [2n, 5n], [0n, 0n]) }),
    tx({ to: CHILD, value: 0n, gasLimit: 100_000n }), // selfdestruct (deletes before Cancun)
    tx({ to: FACTORY, value: 0n, gasLimit: 300_000n, data: STORE_INIT }), // re-created: only slot 0
    tx({ to: CHILD, value: 0n, gasLimit: 200_000n, data: writes([3n, k]) }),
    tx({ to: FRESH, value: 0n }), // an empty account touched: deleted again
    tx({
      to: L2_TO_L1_MESSAGE_PASSER_ADDRESS,
      value: 0n,
      gasLimit: 200_000n,
      data: writes([k, k], [0n, 0n]),
    }),
    tx({ to: new Uint8Array(20).fill(Number(k)), value: 3n }),
  ];
}

async function buildChain(config: ChainConfig, fork: OpFork, smA: KeelStateManager, a: SqliteStore) {
  const genesis: Header = genesisHeader(config, fork, await smA.getStateRoot());
  const chain: SealedBlock[] = [];
  let parent = genesis;
  let nonce = 0n;
  for (let k = 1n; k <= 3n; k++) {
    const t = parent.timestamp + 2n;
    const at: BlockAttributes = { ...attributes(fork, t) };
    const builder = await BlockBuilder.open(config, parent, at, { stateManager: smA });
    await builder.addTransaction({
      sourceHash: new Uint8Array(32).fill(Number(k)),
      from: new Uint8Array(20).fill(0xdd),
      to: new Uint8Array(20).fill(0xdc),
      mint: ETHER,
      value: 5n,
      gas: 60_000n,
      isSystemTx: false,
      data: new Uint8Array(),
    });
    for (const tx of blockTxs(config, t, nonce, k)) await builder.addTransaction(tx);
    nonce += 9n;
    chain.push(await a.transactionAsync(() => builder.seal()));
    parent = chain.at(-1)!.block.header;
  }
  return { genesis, chain };
}

async function withStores(fn: (a: SqliteStore, b: SqliteStore, dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const a = SqliteStore.open(`${dir}/a.sqlite`);
  const b = SqliteStore.open(`${dir}/b.sqlite`);
  try {
    await fn(a, b, dir);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
}

for (const [fork, minChanges] of [["canyon", 1], ["canyon", 1000], ["isthmus", 1], ["isthmus", 4]] as const) {
  Deno.test(`root task: import with the state root beside execution equals the flush (${fork}, deltas of >= ${minChanges})`, async () => {
    const config = opConfig(fork);
    await withStores(async (a, b) => {
      const { genesis, chain } = await buildChain(config, fork, await genesisState(a), a);
      // Before Cancun the self-destruct deleted CHILD and its storage within the block.
      const smB = await genesisState(b);
      const task = new StateRootTask(b.path, { minChanges, maxChanges: Math.max(8, minChanges) });
      try {
        let parent = genesis;
        for (const s of chain) {
          const imported = await b.transactionAsync(() =>
            importBlock(config, parent, s.block, { stateManager: smB, stateRoot: task })
          );
          assertEquals(imported.hash, s.hash, `block ${s.block.header.number}`);
          parent = s.block.header;
        }
        // Every root came from the worker, with changes sent mid-block unless the threshold forbids it.
        assertEquals(task.stats.roots, chain.length);
        assertEquals(task.stats.receiptsRoots, chain.length);
        assertEquals(task.stats.failures, 0);
        if (minChanges === 1) assert(task.stats.deltas > 2 * chain.length, `${task.stats.deltas} deltas`);
        if (minChanges === 1000) assertEquals(task.stats.deltas, 0);
      } finally {
        task.close();
      }
      const last = chain.at(-1)!.block.header;
      assertEquals(await smB.getStateRoot(), last.stateRoot);
      // The same manager reads the new state (cached accounts carry the new storage roots)...
      const child = new Address(CHILD);
      assertEquals(await smB.getStorage(child, word(3n)), bigIntToBytes(3n));
      // Slot 0: set by the constructor of the re-created contract before Cancun; zeroed from Cancun
      // (EIP-6780: the self-destruct no longer deletes, the re-creation fails).
      assertEquals(
        await smB.getStorage(child, word(0n)),
        fork === "canyon" ? bigIntToBytes(1n) : new Uint8Array(),
      );
      // ... and so does a manager opened on the file: every node the worker made was stored.
      const reopened = await createStateManager(b, last.stateRoot);
      assertEquals(await reopened.getStorage(child, word(3n)), bigIntToBytes(3n));
      assertEquals(
        await reopened.getStorage(new Address(L2_TO_L1_MESSAGE_PASSER_ADDRESS), word(3n)),
        bigIntToBytes(3n),
      );
      assertEquals((await reopened.getAccount(new Address(SENDER)))!.nonce, 27n);
      if (fork === "canyon") {
        // Re-created in each block: slot 1 and 2 written before the self-destruct are gone.
        assertEquals(await reopened.getStorage(child, word(1n)), new Uint8Array());
      }
      assertEquals(await reopened.getAccount(new Address(FRESH)), undefined);
    });
  });
}

Deno.test("root task: a block with a wrong state root is refused and the manager is back at the parent", async () => {
  const config = opConfig("isthmus");
  await withStores(async (a, b) => {
    const { genesis, chain } = await buildChain(config, "isthmus", await genesisState(a), a);
    const smB = await genesisState(b);
    const task = new StateRootTask(b.path, { minChanges: 1 });
    try {
      const bad = structuredClone(chain[0].block);
      bad.header.stateRoot = new Uint8Array(32).fill(1);
      const err = await assertRejects(() =>
        b.transactionAsync(() => importBlock(config, genesis, bad, { stateManager: smB, stateRoot: task }))
      );
      assertEquals((err as { meta?: { field?: string } }).meta?.field, "stateRoot");
      assertEquals(await smB.getStateRoot(), genesis.stateRoot);
      // The same manager then imports the real block.
      const ok = await b.transactionAsync(() =>
        importBlock(config, genesis, chain[0].block, { stateManager: smB, stateRoot: task })
      );
      assertEquals(ok.hash, chain[0].hash);
    } finally {
      task.close();
    }
  });
});

Deno.test("root task: when the worker cannot compute the root, the importer computes it itself", async () => {
  const config = opConfig("isthmus");
  await withStores(async (a, b, dir) => {
    const { genesis, chain } = await buildChain(config, "isthmus", await genesisState(a), a);
    const smB = await genesisState(b);
    // The worker reads another (empty) file: the parent's nodes are missing there.
    const empty = SqliteStore.open(`${dir}/empty.sqlite`);
    empty.close();
    const task = new StateRootTask(`${dir}/empty.sqlite`, { minChanges: 1 });
    try {
      let parent = genesis;
      for (const s of chain) {
        const imported = await b.transactionAsync(() =>
          importBlock(config, parent, s.block, { stateManager: smB, stateRoot: task })
        );
        assertEquals(imported.hash, s.hash);
        parent = s.block.header;
      }
      assertEquals(task.stats.failures, chain.length);
      assertEquals(task.stats.roots, 0);
      const reopened = await createStateManager(b, parent.stateRoot);
      assertEquals((await reopened.getAccount(new Address(SENDER)))!.nonce, 27n);
    } finally {
      task.close();
    }
  });
});

Deno.test("root task: the worker keeps the nodes of the blocks before (it does not read them again)", async () => {
  const config = opConfig("isthmus");
  await withStores(async (a, b, dir) => {
    const { genesis, chain } = await buildChain(config, "isthmus", await genesisState(a), a);
    const smB = await genesisState(b);
    // The worker reads a file that holds the genesis state only: from the second block on, the
    // parent's new nodes are not there, only in what the worker made for the block before.
    const genesisOnly = SqliteStore.open(`${dir}/genesis.sqlite`);
    await genesisState(genesisOnly);
    genesisOnly.close();
    for (const nodeCacheKiB of [1024, 0]) {
      const task = new StateRootTask(`${dir}/genesis.sqlite`, { minChanges: 1, nodeCacheKiB });
      // The second pass imports on a fresh copy of genesis.
      const c = nodeCacheKiB === 0 ? SqliteStore.open(`${dir}/c.sqlite`) : undefined;
      const sm = c === undefined ? smB : await genesisState(c);
      try {
        let parent = genesis;
        for (const s of chain) {
          const imported = await (c ?? b).transactionAsync(() =>
            importBlock(config, parent, s.block, { stateManager: sm, stateRoot: task })
          );
          assertEquals(imported.hash, s.hash);
          parent = s.block.header;
        }
        if (nodeCacheKiB === 0) {
          // Without the cache the worker misses the nodes and the importer computes those roots itself.
          assertEquals([task.stats.roots, task.stats.failures], [1, chain.length - 1]);
        } else assertEquals([task.stats.roots, task.stats.failures], [chain.length, 0]);
      } finally {
        task.close();
        c?.close();
      }
    }
  });
});

Deno.test("root task: a block on the last block's root starts from its tries, reading only nodes it did not keep", async () => {
  const config = opConfig("isthmus");
  await withStores(async (a, b) => {
    const { genesis, chain } = await buildChain(config, "isthmus", await genesisState(a), a);
    const smB = await genesisState(b);
    // Every transaction's changes go out at once (maxChanges 1), busy worker or not: deltas arrive
    // mid-block however fast the block executes.
    const task = new StateRootTask(b.path, { minChanges: 1, maxChanges: 1 });
    const reads: number[] = [];
    /** Accounts named to the worker ahead, per block. */
    const named: number[] = [];
    try {
      let parent = genesis;
      for (const s of chain) {
        const before = task.stats.reads;
        const imported = await b.transactionAsync(() =>
          importBlock(config, parent, s.block, { stateManager: smB, stateRoot: task })
        );
        assertEquals(imported.hash, s.hash);
        reads.push(task.stats.reads - before);
        parent = s.block.header;
        // The exchange of the block: begin first, finish last, each step of the worker in order.
        const tl = task.timeline!;
        assertEquals([tl.sent[0].kind, tl.sent[0].at, tl.sent.at(-1)!.kind], ["begin", 0, "finish"]);
        assert(tl.worker.some((w) => w.kind === "delta"), "deltas mid-block");
        for (const w of tl.worker.filter((w) => w.kind !== "finish")) {
          assert(w.arrived <= w.started && w.started <= w.ended && w.ended <= tl.answered, JSON.stringify(w));
        }
        assertEquals(tl.worker.at(-1)!.kind, "finish");
        named.push(tl.worker.filter((w) => w.kind === "prefetch").reduce((n, w) => n + w.size, 0));
      }
    } finally {
      task.close();
    }
    // The first block reads the genesis nodes on its paths; the next ones find every node they need
    // in the tries kept from the block before (the paths of new accounts end in kept nodes too).
    assert(reads[0] > 0, `${reads[0]} reads`);
    assertEquals(reads.slice(1), chain.slice(1).map(() => 0));
    // Accounts the block before named (the sender, the deposit's accounts, the fee vaults) are not
    // named again: only the block's new recipients are.
    assert(named[0] > 0 && named.slice(1).every((n) => n < named[0]), `${named}`);
  });
});

Deno.test("root task: the worker builds the receipts trie as the receipts arrive (keys of 1, 2 and 3 bytes)", async () => {
  await withStores(async (_a, b) => {
    const sm = await genesisState(b);
    const task = new StateRootTask(b.path, { minChanges: 1, maxChanges: 8 });
    try {
      const job = task.begin(await sm.getStateRoot(), sm)!;
      // Sizes from 1 byte (leaves embedded in their parent) to 600; the keys rlp(i) change length at
      // 128 and 256, inside the batches.
      const receipts = Array.from(
        { length: 300 },
        (_, i) => new Uint8Array(1 + (i * 37) % 600).fill(i & 0xff),
      );
      for (let i = 0; i < receipts.length; i++) {
        await sm.putAccount(
          new Address(new Uint8Array(20).fill(i % 200 + 1)),
          new Account(0n, BigInt(i + 1)),
        );
        job.addReceipt(receipts[i]);
        job.step();
        // Now and then the worker gets a moment: receipts go out in many messages of different sizes.
        if (i % 17 === 0) await new Promise((r) => setTimeout(r, 1));
      }
      const state = await job.finish(receipts.length);
      assertEquals(state.receipts, { root: orderedTrieRoot(receipts), count: receipts.length });
      assertEquals(task.stats.receiptsRoots, 1);
      assert(task.stats.deltas > 5, `${task.stats.deltas} deltas`);
      assertEquals(task.stats.failures, 0);
    } finally {
      task.close();
    }
  });
});

Deno.test("root task: a receipts root of fewer receipts than the block has is not answered", async () => {
  await withStores(async (_a, b) => {
    const sm = await genesisState(b);
    const task = new StateRootTask(b.path);
    try {
      const job = task.begin(await sm.getStateRoot(), sm)!;
      job.addReceipt(new Uint8Array(40).fill(1));
      // The block has two receipts, the worker got one: the caller computes the root itself.
      const state = await job.finish(2);
      assertEquals(state.receipts, undefined);
      assertEquals(task.stats.receiptsRoots, 0);
    } finally {
      task.close();
    }
  });
});
