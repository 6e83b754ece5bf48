import { assertEquals, assertRejects } from "../../../assert.ts";
import { ExecutionEngine } from "../../../../lib/execution/engine/mod.ts";
import { sharedSenderCache } from "../../../../lib/execution/evm/mod.ts";
import { isthmusGenesis, transfer } from "./helpers.ts";

Deno.test("engine: a pooled transaction's sender is remembered for block import; a bad signature still fails", async () => {
  const engine = await ExecutionEngine.open({ genesis: isthmusGenesis() });
  try {
    const tx = transfer(engine, 0, 0n);
    assertEquals(sharedSenderCache.get(tx.hash()), undefined);
    await engine.pool.add(tx.serialize(), { local: true });
    assertEquals(sharedSenderCache.get(tx.hash()), tx.getSenderPublicKey());
    // s replaced: another hash, nothing remembered, and the pool refuses it as before.
    const bad = transfer(engine, 1, 0n).serialize();
    bad.fill(0xff, bad.length - 32);
    await assertRejects(() => engine.pool.add(bad, { local: true }));
    assertEquals(engine.pool.status().pending, 1);
  } finally {
    await engine.close();
  }
});
