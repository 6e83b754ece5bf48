/** Dev mode: automine seals pool transactions; the timer seals empty blocks; L1 mode builds plain blocks. */
import { Address } from "@ethereumjs/util";
import { equalBytes } from "../../lib/common/bytes.ts";
import { ExecutionEngine } from "../../lib/execution/engine/mod.ts";
import { decodeDepositTx, L1_BLOCK_ADDRESS, SEQUENCER_FEE_VAULT_ADDRESS } from "../../lib/protocol/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import { DevMiner, isthmusGenesis, l1Genesis, transfer } from "../unit/execution/engine/helpers.ts";
import { readL1BlockInfo } from "../../lib/execution/engine/mod.ts";

Deno.test("dev miner: automine seals arriving transactions, coalescing arrivals during a build", async () => {
  const engine = await ExecutionEngine.open({ genesis: isthmusGenesis() });
  const miner = new DevMiner({}, { engine, now: () => 0 });
  miner.start();
  try {
    await engine.pool.add(transfer(engine, 0, 0n).serialize());
    // Arrivals while block 1 is being built go into block 2.
    await engine.pool.add(transfer(engine, 1, 0n).serialize());
    await engine.pool.add(transfer(engine, 2, 0n).serialize());
    await miner.idle();
    const head = engine.head().header;
    assert(head.number >= 1n && head.number <= 3n, `head ${head.number}`);
    let userTxs = 0;
    for (let n = 1n; n <= head.number; n++) {
      const block = engine.chain.getBlockByNumber(n)!;
      assertEquals(block.transactions[0][0], 0x7e, "each block starts with the L1-info deposit");
      const dep = decodeDepositTx(block.transactions[0]);
      assert(equalBytes(dep.to!, L1_BLOCK_ADDRESS));
      assert(equalBytes(block.header.coinbase, SEQUENCER_FEE_VAULT_ADDRESS));
      userTxs += block.transactions.length - 1;
      assert(block.header.timestamp === n, "timestamps strictly increase from the parent");
    }
    assertEquals(userTxs, 3);
    assertEquals(engine.pool.status().pending, 0);
    // The L1Block sequence number advanced with each block, its values kept.
    const info = await readL1BlockInfo(engine, head);
    assertEquals(info.sequenceNumber, head.number);
    assertEquals(info.baseFeeScalar, 1368n);
    // Head, safe and finalized move together.
    assert(equalBytes(engine.chain.getHead("finalized")!.hash, engine.head().hash));
    // Fee vault got the priority fees.
    const state = await engine.stateAt(head);
    const vault = await state.getAccount(new Address(SEQUENCER_FEE_VAULT_ADDRESS));
    assert((vault?.balance ?? 0n) > 0n);
  } finally {
    await miner.stop();
    await engine.close();
  }
});

Deno.test("dev miner: a period seals empty blocks on the timer", async () => {
  const engine = await ExecutionEngine.open({ genesis: isthmusGenesis() });
  const miner = new DevMiner({ period: 0.05 }, { engine, now: () => 0 });
  miner.start();
  try {
    const deadline = Date.now() + 20_000;
    while (engine.head().header.number < 2n && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert(engine.head().header.number >= 2n, "two blocks sealed by the timer");
  } finally {
    await miner.stop();
    await engine.close();
  }
});

Deno.test("dev miner: L1 mode builds plain Ethereum blocks (no deposits, base fee burned)", async () => {
  const engine = await ExecutionEngine.open({ genesis: l1Genesis() });
  const miner = new DevMiner({ coinbase: new Uint8Array(20).fill(0xcc) }, { engine, now: () => 1000 });
  try {
    assertEquals(engine.config.op, undefined);
    const tx = transfer(engine, 0, 0n, { tip: 2n });
    await engine.pool.add(tx.serialize());
    const built = await miner.mine();
    assert(built !== undefined);
    const block = built.block;
    assertEquals(block.transactions.length, 1);
    assert(equalBytes(block.transactions[0], tx.serialize()));
    assertEquals(block.header.timestamp, 1000n);
    assert(block.header.requestsHash !== undefined, "Prague header");
    assert(block.header.parentBeaconBlockRoot !== undefined, "Cancun header");
    const state = await engine.stateAt(block.header);
    const cb = await state.getAccount(new Address(new Uint8Array(20).fill(0xcc)));
    // Only the tip goes to the coinbase on L1.
    assertEquals(cb?.balance, 2n * 21000n);
    // Without transactions, automine seals nothing.
    assertEquals(await miner.mine(), undefined);
    assertEquals(engine.head().header.number, 1n);
  } finally {
    await engine.close();
  }
});
