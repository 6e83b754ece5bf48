/** OverlayState: writes stay above the base, nested checkpoints, storage clears, reset keeps the pinned layer. */
import { Account, Address } from "@ethereumjs/util";
import { bytesToHex, keccak256 } from "../../../../lib/common/mod.ts";
import { MemoryStore } from "../../../../lib/db/mod.ts";
import { OverlayState } from "../../../../lib/execution/rpc/overlay_state.ts";
import { createStateManager } from "../../../../lib/execution/state/mod.ts";
import { assertEquals } from "../../../assert.ts";

const ADDR = new Address(new Uint8Array(20).fill(0xaa));
const SLOT = new Uint8Array(32);
const SLOT2 = new Uint8Array(32).fill(1);

async function base() {
  const sm = await createStateManager(new MemoryStore());
  await sm.putAccount(ADDR, new Account(1n, 100n));
  await sm.putStorage(ADDR, SLOT, new Uint8Array([5]));
  await sm.putCode(ADDR, new Uint8Array([0x60, 0x00]));
  await sm.getStateRoot();
  return sm;
}

Deno.test("overlay: reads fall through, writes stay in the overlay", async () => {
  const b = await base();
  const o = new OverlayState(b);
  o.reset();
  assertEquals((await o.getAccount(ADDR))?.balance, 100n);
  await o.modifyAccountFields(ADDR, { balance: 7n });
  await o.putStorage(ADDR, SLOT, new Uint8Array([0, 9]));
  assertEquals((await o.getAccount(ADDR))?.balance, 7n);
  assertEquals(bytesToHex(await o.getStorage(ADDR, SLOT)), "0x09");
  assertEquals((await b.getAccount(ADDR))?.balance, 100n);
  assertEquals(bytesToHex(await b.getStorage(ADDR, SLOT)), "0x05");
  assertEquals(bytesToHex(await o.originalStorageCache.get(ADDR, SLOT)), "0x05");
  o.reset();
  assertEquals((await o.getAccount(ADDR))?.balance, 100n);
});

Deno.test("overlay: nested checkpoint revert and commit; clearStorage and deleteAccount", async () => {
  const o = new OverlayState(await base());
  o.reset();
  await o.checkpoint();
  await o.putStorage(ADDR, SLOT2, new Uint8Array([1]));
  await o.revert();
  assertEquals((await o.getStorage(ADDR, SLOT2)).length, 0);
  await o.checkpoint();
  await o.clearStorage(ADDR);
  await o.putStorage(ADDR, SLOT2, new Uint8Array([2]));
  await o.commit();
  assertEquals((await o.getStorage(ADDR, SLOT)).length, 0);
  assertEquals(bytesToHex(await o.getStorage(ADDR, SLOT2)), "0x02");
  await o.deleteAccount(ADDR);
  assertEquals(await o.getAccount(ADDR), undefined);
  assertEquals((await o.getCode(ADDR)).length, 0);
  await o.putCode(ADDR, new Uint8Array([0xfe]));
  assertEquals(await o.getCodeSize(ADDR), 1);
  assertEquals(
    bytesToHex((await o.getAccount(ADDR))!.codeHash),
    bytesToHex(keccak256(new Uint8Array([0xfe]))),
  );
});

Deno.test("overlay: writes before the first reset are pinned (state overrides)", async () => {
  const o = new OverlayState(await base());
  await o.modifyAccountFields(ADDR, { nonce: 42n });
  o.reset();
  await o.modifyAccountFields(ADDR, { nonce: 43n });
  assertEquals((await o.getAccount(ADDR))?.nonce, 43n);
  o.reset();
  assertEquals((await o.getAccount(ADDR))?.nonce, 42n);
});

Deno.test("overlay: a layer dropped by revert, commit or reset is reused empty", async () => {
  const o = new OverlayState(await base());
  o.reset();
  // A frame writes every kind of entry and reverts; the next frame's layer must not see them.
  await o.checkpoint();
  await o.modifyAccountFields(ADDR, { balance: 1n });
  await o.putStorage(ADDR, SLOT2, new Uint8Array([3]));
  await o.putCode(ADDR, new Uint8Array([0xfe]));
  await o.clearStorage(ADDR);
  await o.revert();
  await o.checkpoint();
  assertEquals((await o.getAccount(ADDR))?.balance, 100n);
  assertEquals(bytesToHex(await o.getStorage(ADDR, SLOT)), "0x05");
  assertEquals(bytesToHex(await o.getStorage(ADDR, SLOT2)), "0x");
  assertEquals(bytesToHex(await o.getCode(ADDR)), "0x6000");
  // A committed frame's writes reach the layer below and not the next frame's fresh layer after a reset.
  await o.putStorage(ADDR, SLOT2, new Uint8Array([4]));
  await o.commit();
  assertEquals(bytesToHex(await o.getStorage(ADDR, SLOT2)), "0x04");
  o.reset();
  await o.checkpoint();
  assertEquals(bytesToHex(await o.getStorage(ADDR, SLOT2)), "0x");
  assertEquals((await o.getAccount(ADDR))?.balance, 100n);
});
