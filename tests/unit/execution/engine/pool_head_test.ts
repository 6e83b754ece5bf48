/** PoolHeadView: the pool's reads of the head follow a changed head state, and the next block's rules. */
import { Account, Address } from "@ethereumjs/util";
import { ExecutionEngine, PoolHeadView } from "../../../../lib/execution/engine/mod.ts";
import { buildDevGenesis } from "../../../../lib/execution/genesis/mod.ts";
import { assertEquals } from "../../../assert.ts";

Deno.test("pool head: accounts at the head's state, a changed head state read again; next block's rules", async () => {
  const engine = await ExecutionEngine.open({ genesis: buildDevGenesis({}) });
  try {
    let now = 0;
    const view = new PoolHeadView({
      config: engine.config,
      store: engine.store,
      irregular: engine.irregular,
      head: () => engine.head(),
      now: () => now,
    });
    const who = new Uint8Array(20).fill(0x44);
    assertEquals(await view.account(who), { nonce: 0n, balance: 0n });
    await engine.changeHeadState((sm) => sm.putAccount(new Address(who), new Account(3n, 77n)));
    // The head is the same block, its state root is not: the view reads the new state.
    assertEquals(await view.account(who), { nonce: 3n, balance: 77n });
    const head = engine.head().header;
    assertEquals(view.rules().timestamp, head.timestamp + 1n);
    now = Number(head.timestamp) + 100;
    assertEquals(view.rules().timestamp, head.timestamp + 100n);
    assertEquals(view.rules().chainId, engine.config.chainId);
    assertEquals(view.rules().allowedTypes.has(4), true);
  } finally {
    await engine.close();
  }
});
