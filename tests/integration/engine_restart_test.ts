/** The engine on a real sqlite file: restart resumes at the head; a different genesis is refused. */
import { Address } from "@ethereumjs/util";
import { equalBytes } from "../../lib/common/bytes.ts";
import { isErrorCode } from "../../lib/common/errors.ts";
import { SqliteStore } from "../../lib/db/mod.ts";
import { ExecutionEngine, initGenesis } from "../../lib/execution/engine/mod.ts";
import { buildDevGenesis } from "../../lib/execution/genesis/mod.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { DevMiner, isthmusGenesis, transfer } from "../unit/execution/engine/helpers.ts";

Deno.test("engine restart: reopening the same sqlite file resumes at the head with state and indexes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-engine-" });
  try {
    const genesis = isthmusGenesis();
    const engine = await ExecutionEngine.open({ dataDir: dir, genesis });
    const miner = new DevMiner({}, { engine, now: () => 0 });
    const recipient = new Uint8Array(20).fill(0xbb);
    const tx = transfer(engine, 0, 0n, { value: 12345n, to: recipient });
    await engine.pool.add(tx.serialize());
    const b1 = await miner.mine();
    assert(b1 !== undefined);
    const b2 = await miner.mine({ allowEmpty: true });
    assert(b2 !== undefined);
    const head = engine.head();
    assertEquals(head.header.number, 2n);
    await engine.close();

    const again = await ExecutionEngine.open({ dataDir: dir, genesis });
    try {
      assert(equalBytes(again.head().hash, head.hash));
      assert(equalBytes(again.chain.getHead("finalized")!.hash, head.hash));
      assertEquals(again.chain.getTransactionLocation(tx.hash())!.blockNumber, 1n);
      const state = await again.stateAt(again.head().header);
      const to = await state.getAccount(new Address(recipient));
      assertEquals(to?.balance, 12345n);
      // The chain continues from there.
      const miner2 = new DevMiner({}, { engine: again, now: () => 0 });
      const b3 = await miner2.mine({ allowEmpty: true });
      assertEquals(b3!.block.header.number, 3n);
      assert(equalBytes(b3!.block.header.parentHash, head.hash));
    } finally {
      await again.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engine restart: a database initialised with another genesis is refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-engine-" });
  try {
    const engine = await ExecutionEngine.open({ dataDir: dir, genesis: isthmusGenesis() });
    await engine.close();
    const err = await assertRejects(() =>
      ExecutionEngine.open({ dataDir: dir, genesis: buildDevGenesis({ upTo: "isthmus", chainId: 902n }) })
    );
    assert(isErrorCode(err, "ENGINE_GENESIS_MISMATCH"), String(err));
    assert((err as Error).message.includes("holds genesis"));
    // initGenesis on an open store: same genesis -> same hash, no error.
    const store = SqliteStore.open(`${dir}/keel.sqlite`);
    try {
      const hash = await initGenesis(store, isthmusGenesis());
      assertEquals(hash.length, 32);
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engine restart: after init from a genesis.json, the engine opens without the genesis", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-engine-" });
  try {
    const store = SqliteStore.open(`${dir}/keel.sqlite`);
    let hash: Uint8Array;
    try {
      hash = await initGenesis(store, isthmusGenesis());
    } finally {
      store.close();
    }
    const engine = await ExecutionEngine.open({ dataDir: dir });
    try {
      assert(equalBytes(engine.genesisHash, hash));
      assertEquals(engine.config.chainId, 901n);
      assert(engine.config.op?.forks.isthmus === 0n);
      const miner = new DevMiner({}, { engine, now: () => 0 });
      assertEquals((await miner.mine({ allowEmpty: true }))!.block.header.number, 1n);
    } finally {
      await engine.close();
    }
    // An empty database cannot open without a genesis.
    const empty = await Deno.makeTempDir({ prefix: "keel-engine-" });
    try {
      const err = await assertRejects(() => ExecutionEngine.open({ dataDir: empty }));
      assert(isErrorCode(err, "ENGINE_NO_GENESIS"), String(err));
    } finally {
      await Deno.remove(empty, { recursive: true });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
