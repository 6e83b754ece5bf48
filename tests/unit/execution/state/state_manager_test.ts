import { assert, assertEquals, assertRejects } from "../../../assert.ts";
import { Account, Address, createAddressFromString } from "@ethereumjs/util";
import type { BaseError } from "../../../../lib/common/errors.ts";
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import { MemoryStore, SqliteStore } from "../../../../lib/db/mod.ts";
import { createStateManager, hasStateRoot } from "../../../../lib/execution/state/mod.ts";
import { EMPTY_TRIE_ROOT } from "../../../../lib/protocol/block.ts";

const alice = createAddressFromString("0x00000000000000000000000000000000000a11ce");
const token = createAddressFromString("0x0000000000000000000000000000000000007e57");
const slot = (n: number) => {
  const k = new Uint8Array(32);
  k[31] = n;
  return k;
};
const code = new Uint8Array([0x60, 0x01, 0x60, 0x00, 0x55, 0x00]);

Deno.test("createStateManager: state written in one group reads back from a reopened sqlite file; two roots coexist", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/keel.sqlite`;
    const store = SqliteStore.open(path);
    const sm = await createStateManager(store);
    let root1!: Uint8Array;
    await store.transactionAsync(async () => {
      await sm.checkpoint();
      await sm.putAccount(alice, new Account(1n, 1000n));
      await sm.putAccount(token, new Account(0n, 0n));
      await sm.putCode(token, code);
      await sm.putStorage(token, slot(1), new Uint8Array([0x2a]));
      await sm.commit();
      root1 = await sm.getStateRoot();
    });
    assert(!hasStateRoot(store, new Uint8Array(32).fill(1)));
    assert(hasStateRoot(store, root1));

    let root2!: Uint8Array;
    await store.transactionAsync(async () => {
      await sm.checkpoint();
      await sm.putAccount(alice, new Account(2n, 500n));
      await sm.putStorage(token, slot(1), new Uint8Array([0x2b]));
      await sm.putStorage(token, slot(2), new Uint8Array([0x07]));
      await sm.commit();
      root2 = await sm.getStateRoot();
    });
    assert(root1.length === 32 && root2.length === 32);
    store.close();

    const reopened = SqliteStore.open(path);
    const at1 = await createStateManager(reopened, root1);
    const at2 = await createStateManager(reopened, root2);
    assertEquals((await at1.getAccount(alice))?.balance, 1000n);
    assertEquals((await at2.getAccount(alice))?.balance, 500n);
    assertEquals((await at2.getAccount(alice))?.nonce, 2n);
    assertEquals(await at1.getStorage(token, slot(1)), new Uint8Array([0x2a]));
    assertEquals(await at2.getStorage(token, slot(1)), new Uint8Array([0x2b]));
    assertEquals(await at1.getStorage(token, slot(2)), new Uint8Array());
    assertEquals(await at2.getStorage(token, slot(2)), new Uint8Array([0x07]));
    assertEquals(await at1.getCode(token), code);
    assertEquals(await at2.getCode(token), code);
    reopened.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createStateManager: a rolled-back group leaves its root unreadable", async () => {
  const store = new MemoryStore();
  const sm = await createStateManager(store);
  let root!: Uint8Array;
  await assertRejects(() =>
    store.transactionAsync(async () => {
      await sm.checkpoint();
      await sm.putAccount(alice, new Account(0n, 5n));
      await sm.commit();
      root = await sm.getStateRoot();
      throw new Error("crash before the head is written");
    })
  );
  assertEquals(store.size, 0);
  const err = await assertRejects(() => createStateManager(store, root));
  assertEquals((err as BaseError).code, "STATE_ROOT_MISSING");
  const empty = await createStateManager(store, EMPTY_TRIE_ROOT);
  assertEquals(await empty.getAccount(alice), undefined);
  store.close();
});

Deno.test("createStateManager: managers share one Common, with keel's keccak256 (no new Common per manager)", async () => {
  const a = await createStateManager(new MemoryStore());
  const b = await createStateManager(new MemoryStore());
  assert(a.common === b.common);
  assert(a.common.customCrypto.keccak256 === keccak256);
  // Code hashes come out right through it.
  const at = new Address(new Uint8Array(20).fill(7));
  await a.putAccount(at, new Account());
  await a.putCode(at, Uint8Array.of(0x60, 0x01));
  assertEquals(
    bytesToHex((await a.getAccount(at))!.codeHash),
    bytesToHex(keccak256(Uint8Array.of(0x60, 0x01))),
  );
});
