/**
 * The preimage log (state/preimages.ts): what a state manager flushes is recorded in the same write
 * group, listed by address with its slots; a group that rolls back takes its rows along and they are
 * written again the next time.
 */
import { Account, Address } from "@ethereumjs/util";
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import { MemoryStore } from "../../../../lib/db/mod.ts";
import { createStateManager, enablePreimages, preimageLogOf } from "../../../../lib/execution/state/mod.ts";
import { assertEquals, assertRejects } from "../../../assert.ts";

const A = new Address(new Uint8Array(20).fill(0xa1));
const B = new Address(new Uint8Array(20).fill(0x0b));
const slot = (n: number) => new Uint8Array(32).fill(n);

function listed(store: MemoryStore): string[] {
  return [...preimageLogOf(store)!.accounts()].map((a) =>
    [bytesToHex(a.address), ...a.slots.map((s) => bytesToHex(s).slice(0, 6))].join(" ")
  );
}

Deno.test("preimages: the accounts and slots flushed are listed by address, only where enabled", async () => {
  assertEquals(preimageLogOf(new MemoryStore()), undefined);
  const store = new MemoryStore();
  enablePreimages(store);
  const sm = await createStateManager(store);
  await store.transactionAsync(async () => {
    await sm.putAccount(B, new Account(1n, 2n));
    await sm.putAccount(A, new Account(0n, 5n));
    await sm.putStorage(A, slot(2), Uint8Array.of(1));
    await sm.putStorage(A, slot(1), Uint8Array.of(1));
    await sm.putCode(B, Uint8Array.of(0x60, 0x00));
    await sm.flush();
  });
  assertEquals(listed(store), [`${B.toString()}`, `${A.toString()} 0x0101 0x0202`]);
  // A state manager opened later on the same store records too.
  const later = await createStateManager(store, await sm.getStateRoot());
  const C = new Address(new Uint8Array(20).fill(0xcc));
  await later.putAccount(C, new Account(0n, 1n));
  await later.flush();
  assertEquals(listed(store).length, 3);
});

Deno.test("preimages: rows of a rolled-back group are written again when flushed again", async () => {
  const store = new MemoryStore();
  enablePreimages(store);
  // Each attempt on a fresh state manager (a rolled-back one points at nodes that are gone), as the engine.
  const write = async () => {
    const sm = await createStateManager(store);
    await sm.putAccount(A, new Account(0n, 5n));
    await sm.putStorage(A, slot(3), Uint8Array.of(7));
    await sm.flush();
  };
  await assertRejects(() =>
    store.transactionAsync(async () => {
      await write();
      throw new Error("the block failed");
    })
  );
  assertEquals(listed(store), []);
  await store.transactionAsync(write);
  assertEquals(listed(store), [`${A.toString()} 0x0303`]);
});
