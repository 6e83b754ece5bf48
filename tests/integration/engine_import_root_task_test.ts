/**
 * A verifier engine on a sqlite file imports a sequencer's blocks (importPayload, the newPayload path)
 * with their state roots computed by the state-root worker beside execution; the chain, the state
 * and a restart agree with the sequencer. With `stateRootWorker: false` the same blocks import with
 * the roots computed on the executing thread.
 */
import { Address } from "@ethereumjs/util";
import { equalBytes } from "../../lib/common/bytes.ts";
import { ExecutionEngine } from "../../lib/execution/engine/mod.ts";
import type { Block } from "../../lib/protocol/block.ts";
import { assert, assertEquals } from "../assert.ts";
import { DevMiner, isthmusGenesis, transfer } from "../unit/execution/engine/helpers.ts";

async function sequencerBlocks(dir: string): Promise<Block[]> {
  const engine = await ExecutionEngine.open({ dataDir: `${dir}/seq`, genesis: isthmusGenesis() });
  try {
    const miner = new DevMiner({}, { engine, now: () => 0 });
    const blocks: Block[] = [];
    const nonces = [0n, 0n, 0n];
    for (let b = 0; b < 3; b++) {
      for (let i = 0; i < 40; i++) {
        const to = new Uint8Array(20).fill(0x10 + i);
        await engine.pool.add(transfer(engine, i % 3, nonces[i % 3]++, { to }).serialize());
      }
      const built = await miner.mine();
      assert(built !== undefined);
      blocks.push(built.block);
    }
    return blocks;
  } finally {
    await engine.close();
  }
}

for (const worker of [true, false]) {
  Deno.test(`engine import: blocks import on sqlite with the state root ${worker ? "beside execution" : "on the executing thread"}`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "keel-import-" });
    try {
      const blocks = await sequencerBlocks(dir);
      const verifier = await ExecutionEngine.open({
        dataDir: `${dir}/ver`,
        genesis: isthmusGenesis(),
        stateRootWorker: worker,
      });
      try {
        for (const block of blocks) {
          const { hash } = await verifier.importPayload(block);
          await verifier.forkchoiceUpdate(hash);
        }
        const head = verifier.head();
        assertEquals(head.header.stateRoot, blocks.at(-1)!.header.stateRoot);
        const stats = verifier.stateRootStats();
        if (worker) {
          assertEquals(stats?.roots, blocks.length);
          assertEquals(stats?.failures, 0);
        } else {
          assertEquals(stats, undefined);
        }
      } finally {
        await verifier.close();
      }
      // Everything the worker computed was stored: a restart reads the state at the head.
      const again = await ExecutionEngine.open({ dataDir: `${dir}/ver`, genesis: isthmusGenesis() });
      try {
        assert(equalBytes(again.head().header.stateRoot, blocks.at(-1)!.header.stateRoot));
        const state = await again.stateAt(again.head().header);
        assertEquals((await state.getAccount(new Address(new Uint8Array(20).fill(0x10))))?.balance, 3000n);
      } finally {
        await again.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
