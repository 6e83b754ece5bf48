import { assertEquals, assertRejects } from "../../../assert.ts";
import { ExecutionEngine } from "../../../../lib/execution/engine/mod.ts";
import { sharedSenderCache } from "../../../../lib/execution/evm/mod.ts";
import { SenderRecovery } from "../../../../lib/execution/txpool/mod.ts";
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

Deno.test("engine: a transaction whose sender is remembered by hash enters the pool without a recovery", async () => {
  const engine = await ExecutionEngine.open({ genesis: isthmusGenesis() });
  const proto = SenderRecovery.prototype as unknown as { recover(tx: unknown): Promise<void> };
  const recover = proto.recover;
  let recoveries = 0;
  proto.recover = function (tx) {
    recoveries++;
    return recover.call(this, tx);
  };
  try {
    // Signed here (as eth_sendTransaction does) with the sender remembered: no recovery.
    const known = transfer(engine, 0, 0n);
    known.getSenderPublicKey();
    sharedSenderCache.remember(known);
    await engine.pool.add(known.serialize(), { local: true });
    assertEquals(recoveries, 0);
    // Not remembered: recovered as before.
    await engine.pool.add(transfer(engine, 0, 1n).serialize(), { local: true });
    assertEquals(recoveries, 1);
    assertEquals(engine.pool.status().pending, 2);
  } finally {
    proto.recover = recover;
    await engine.close();
  }
});
