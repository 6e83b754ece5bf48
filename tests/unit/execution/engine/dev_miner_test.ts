/** Dev miner automine: a burst of arriving transactions is coalesced into few blocks, in nonce order. */
import type { Logger } from "../../../../lib/common/logger.ts";
import { createTxFromRLP } from "@ethereumjs/tx";
import { Address, bytesToBigInt } from "@ethereumjs/util";
import { ExecutionEngine, readL1BlockInfo } from "../../../../lib/execution/engine/mod.ts";
import { L1_BLOCK_ADDRESS } from "../../../../lib/protocol/predeploys.ts";
import { decodingCommon } from "../../../../lib/execution/txpool/mod.ts";
import { assert, assertEquals } from "../../../assert.ts";
import { DevMiner, isthmusGenesis, transfer } from "./helpers.ts";

/** The user transactions' nonces of blocks 1..head, one array per block (the L1-info deposit left out). */
function userNonces(engine: ExecutionEngine): bigint[][] {
  const out: bigint[][] = [];
  const head = engine.head().header.number;
  const common = decodingCommon(engine.config.chainId);
  for (let n = 1n; n <= head; n++) {
    const block = engine.chain.getBlockByNumber(n)!;
    out.push(
      block.transactions.filter((raw) => raw[0] !== 0x7e).map((raw) =>
        createTxFromRLP(raw, { common }).nonce
      ),
    );
  }
  return out;
}

async function waitMined(engine: ExecutionEngine, miner: DevMiner, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (userNonces(engine).flat().length < count && Date.now() < deadline) {
    await miner.idle();
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Adds each raw transaction from its own macrotask, as HTTP requests arrive; resolves when all are in. */
function arriveOnePerTask(engine: ExecutionEngine, raws: Uint8Array[], order: number[]): Promise<unknown> {
  return Promise.all(order.map((i) =>
    new Promise((resolve, reject) => {
      setTimeout(() => engine.pool.add(raws[i], { local: true }).then(resolve, reject), 0);
    })
  ));
}

Deno.test("dev miner: a burst arriving one request per event-loop task shares one block, by nonce", async () => {
  const engine = await ExecutionEngine.open({ genesis: isthmusGenesis() });
  const miner = new DevMiner({}, { engine, now: () => 0 });
  miner.start();
  try {
    const count = 60;
    const raws = Array.from({ length: count }, (_, i) => transfer(engine, 0, BigInt(i)).serialize());
    // Arrival order is not nonce order: gapped ones wait in the queue until the gap closes.
    const order = raws.map((_, i) => i).sort((a, b) => (a % 7) - (b % 7) || a - b);
    // Without the settle wait the first arrival's block is built (all microtasks) before the
    // second task runs, and every transaction gets a block of its own.
    await arriveOnePerTask(engine, raws, order);
    await waitMined(engine, miner, count);
    const blocks = userNonces(engine);
    assertEquals(blocks.length, 1, `${count} transactions in ${blocks.length} blocks`);
    assertEquals(blocks[0], raws.map((_, i) => BigInt(i)));
  } finally {
    await miner.stop();
    await engine.close();
  }
});

Deno.test("dev miner: arrivals during a build go into the next block, in nonce order", async () => {
  const engine = await ExecutionEngine.open({ genesis: isthmusGenesis() });
  const miner = new DevMiner({}, { engine, now: () => 0 });
  miner.start();
  try {
    const count = 90;
    const raws = Array.from({ length: count }, (_, i) => transfer(engine, 0, BigInt(i)).serialize());
    const ids = raws.map((_, i) => i);
    // Three waves: each lands while the previous wave's block is sealing or after it.
    for (let wave = 0; wave < 3; wave++) {
      await arriveOnePerTask(engine, raws, ids.slice(wave * 30, wave * 30 + 30));
    }
    await waitMined(engine, miner, count);
    const blocks = userNonces(engine);
    assertEquals(blocks.flat(), ids.map(BigInt), "every transaction mined once, by nonce");
    assert(blocks.length >= 1 && blocks.length <= 3, `${count} transactions in ${blocks.length} blocks`);
    assert(blocks.every((b) => b.length > 0), "automine seals no empty blocks");
  } finally {
    await miner.stop();
    await engine.close();
  }
});

Deno.test("dev miner: settleTurns 0 seals at once; stop() during the settle wait seals nothing", async () => {
  const engine = await ExecutionEngine.open({ genesis: isthmusGenesis() });
  const eager = new DevMiner({ settleTurns: 0 }, { engine, now: () => 0 });
  eager.start();
  try {
    await engine.pool.add(transfer(engine, 0, 0n).serialize(), { local: true });
    await eager.idle();
    assertEquals(userNonces(engine), [[0n]]);
  } finally {
    await eager.stop();
  }
  const miner = new DevMiner({ settleTurns: 1000 }, { engine, now: () => 0 });
  miner.start();
  try {
    // The arrival starts the settle wait (a timer); stop() ends it before any block is built.
    await engine.pool.add(transfer(engine, 0, 1n).serialize(), { local: true });
    await engine.pool.add(transfer(engine, 0, 2n).serialize(), { local: true });
    await miner.stop();
    assertEquals(engine.head().header.number, 1n, "no block after stop()");
    assertEquals(engine.pool.status().pending, 2);
  } finally {
    await miner.stop();
    await engine.close();
  }
});

Deno.test("dev miner: on the --dev genesis the L1-info deposit uses the active fork's format through the L1Block proxy", async () => {
  const { buildDevGenesis } = await import("../../../../lib/execution/genesis/mod.ts");
  const { decodeDepositTx, L1_INFO_SELECTORS } = await import("../../../../lib/protocol/mod.ts");
  const engine = await ExecutionEngine.open({ genesis: buildDevGenesis({ timestamp: 1_700_000_000n }) });
  const miner = new DevMiner({}, { engine, now: () => 1_700_000_100_000 });
  try {
    await miner.mine({ allowEmpty: true });
    const block = engine.chain.getBlockByNumber(1n)!;
    const deposit = decodeDepositTx(block.transactions[0]);
    // Isthmus is active at genesis and keel's L1Block implements setL1BlockValuesIsthmus.
    assertEquals(deposit.data.subarray(0, 4), L1_INFO_SELECTORS.isthmus);
    const receipts = engine.chain.getReceipts(engine.chain.getCanonicalHash(1n)!)!;
    assertEquals(receipts[0].status, 1);
  } finally {
    await miner.stop();
    await engine.close();
  }
});

Deno.test("dev miner: the next block's L1 values are read from the state kept from the last block", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-read-state-" });
  const engine = await ExecutionEngine.open({ genesis: isthmusGenesis(), dataDir: dir });
  const miner = new DevMiner({}, { engine, now: () => 0 });
  try {
    await miner.mine({ allowEmpty: true });
    await miner.mine({ allowEmpty: true });
    const head = engine.head().header;
    const seen: unknown[] = [];
    const keep = (sm: unknown) => Promise.resolve(seen.push(sm));
    await engine.readState(head, keep);
    await engine.readState(head, keep);
    const parent = engine.chain.getHeaderByHash(head.parentHash)!;
    await engine.readState(parent, keep);
    // The head's reads share the state manager of the block just built; an older block gets its own.
    assert(seen[0] === seen[1]);
    assert(seen[2] !== seen[0]);
    // The same values as a fresh state manager's, and the L1-info deposit's sequence number went on.
    const info = await readL1BlockInfo(engine, head);
    const fresh = await engine.stateAt(head);
    const slot0 = await fresh.getStorage(new Address(L1_BLOCK_ADDRESS), new Uint8Array(32));
    assertEquals(info.number, bytesToBigInt(slot0) & ((1n << 64n) - 1n));
    assertEquals(info.sequenceNumber, (await readL1BlockInfo(engine, parent)).sequenceNumber + 1n);
    // A change of the head's state by hand: reads see it (the kept state manager is dropped).
    await engine.changeHeadState((sm) =>
      sm.putStorage(new Address(L1_BLOCK_ADDRESS), new Uint8Array(32), new Uint8Array([5]))
    );
    assertEquals((await readL1BlockInfo(engine, engine.head().header)).number, 5n);
  } finally {
    await miner.stop();
    await engine.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("dev miner: a block becomes head, safe and finalized in the write that stores it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-dev-head-" });
  const engine = await ExecutionEngine.open({ genesis: isthmusGenesis(), dataDir: dir });
  const miner = new DevMiner({ settleTurns: 0 }, { engine, now: () => 0 });
  const store = engine.store as unknown as { rawCommit(): void };
  let commits = 0;
  const rawCommit = store.rawCommit.bind(store);
  store.rawCommit = () => {
    commits++;
    rawCommit();
  };
  const heads: bigint[] = [];
  engine.onNewHeads((e) => heads.push(e.head.number));
  try {
    const built = await miner.mine({ allowEmpty: true });
    assertEquals(commits, 1);
    assertEquals(heads, [1n]);
    for (const label of ["latest", "safe", "finalized"] as const) {
      assertEquals(engine.chain.getHead(label)?.hash, built!.hash);
    }
    // Automine with an empty pool: the block is not adopted.
    assertEquals(await miner.mine(), undefined);
    assertEquals(engine.head().header.number, 1n);
    assertEquals(heads, [1n]);
  } finally {
    await miner.stop();
    await engine.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("dev miner: setLogging(false) stops the per-block log, setLogging(true) brings it back", async () => {
  const engine = await ExecutionEngine.open({ genesis: isthmusGenesis() });
  const sealed: unknown[] = [];
  const logger = {
    info: (message: string, props: unknown) => {
      if (message === "Dev block sealed") sealed.push(props);
    },
    error: () => {},
  } as unknown as Logger;
  const miner = new DevMiner({}, { engine, now: () => 0, logger });
  try {
    await miner.mine({ allowEmpty: true });
    assertEquals(sealed.length, 1);
    miner.setLogging(false);
    assertEquals(miner.logging, false);
    await miner.mine({ allowEmpty: true });
    assertEquals(sealed.length, 1);
    miner.setLogging(true);
    await miner.mine({ allowEmpty: true });
    assertEquals(sealed.length, 2);
  } finally {
    await miner.stop();
    await engine.close();
  }
});
