/** IrregularState: block hash -> state root overrides, written with the write group, reloaded on open. */
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import { MemoryStore } from "../../../../lib/db/mod.ts";
import { IrregularState } from "../../../../lib/execution/engine/irregular_state.ts";
import { buildDevGenesis } from "../../../../lib/execution/genesis/mod.ts";
import { ExecutionEngine } from "../../../../lib/execution/engine/mod.ts";
import { assertEquals } from "../../../assert.ts";

const HASH = new Uint8Array(32).fill(1);
const ROOT = new Uint8Array(32).fill(2);

Deno.test("irregular state: an override lands with its write group and is read back by a new instance", async () => {
  const store = new MemoryStore();
  const state = new IrregularState(store);
  await store.transactionAsync(() => {
    state.set(HASH, ROOT);
    // Not visible before the group commits.
    assertEquals(state.get(HASH), undefined);
    return Promise.resolve();
  });
  assertEquals(bytesToHex(state.get(HASH)!), bytesToHex(ROOT));
  assertEquals(bytesToHex(new IrregularState(store).get(HASH)!), bytesToHex(ROOT));
  store.transaction(() => state.set(HASH, undefined));
  assertEquals(state.get(HASH), undefined);
  assertEquals(new IrregularState(store).size, 0);
});

Deno.test("irregular state: a rolled-back group leaves no override", async () => {
  const store = new MemoryStore();
  const state = new IrregularState(store);
  await store.transactionAsync(() => {
    state.set(HASH, ROOT);
    return Promise.reject(new Error("boom"));
  }).catch(() => {});
  assertEquals(state.get(HASH), undefined);
  assertEquals(new IrregularState(store).size, 0);
});

Deno.test("irregular state: rootOf is the header's own root without an override", async () => {
  const engine = await ExecutionEngine.open({ genesis: buildDevGenesis({}) });
  try {
    const head = engine.head();
    assertEquals(bytesToHex(engine.irregular.rootOf(head.header)), bytesToHex(head.header.stateRoot));
    const root = await engine.changeHeadState(async (sm) => {
      const { Account, Address } = await import("@ethereumjs/util");
      await sm.putAccount(new Address(new Uint8Array(20).fill(9)), new Account(0n, 5n));
    });
    assertEquals(bytesToHex(engine.irregular.rootOf(head.header)), bytesToHex(root));
    assertEquals(bytesToHex(engine.irregular.rootOf(head.header, head.hash)), bytesToHex(root));
  } finally {
    await engine.close();
  }
});

Deno.test("impersonation: a stored sender is registered again by a new instance (after a restart)", async () => {
  const { createFeeMarket1559Tx } = await import("@ethereumjs/tx");
  const { Impersonation } = await import("../../../../lib/execution/engine/mod.ts");
  const { impersonatedSender, placeholderSignature } = await import("../../../../lib/execution/evm/mod.ts");
  const { prefixedKey, PREFIXES } = await import("../../../../lib/db/mod.ts");
  const sender = crypto.getRandomValues(new Uint8Array(20));
  const [v, r, s] = placeholderSignature(sender);
  const tx = createFeeMarket1559Tx({ chainId: 1n, nonce: 3n, gasLimit: 21000n, maxFeePerGas: 1n, v, r, s });
  assertEquals(impersonatedSender(tx), undefined);
  // As the engine left it: the row only.
  const store = new MemoryStore();
  store.put(prefixedKey(PREFIXES.devSender, tx.hash()), sender);
  new Impersonation(store);
  assertEquals(bytesToHex(impersonatedSender(tx)!.bytes), bytesToHex(sender));
  assertEquals(bytesToHex(tx.getSenderAddress().bytes), bytesToHex(sender));
});
