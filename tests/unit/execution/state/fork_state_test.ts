/**
 * Fork mode's state (fork_source.ts, state_manager.ts): what the local tries never held is read from the
 * remote once; what the local chain writes or deletes stays so across flushes and reopened states (a
 * deleted remote account and a zeroed remote slot are tombstones, not absences the remote would fill).
 */
import { assertEquals, assertRejects } from "../../../assert.ts";
import { Account, Address } from "@ethereumjs/util";
import { keccak256 } from "../../../../lib/common/hash.ts";
import { MemoryStore } from "../../../../lib/db/mod.ts";
import {
  attachFork,
  createStateManager,
  type ForkRemote,
  type RemoteAccount,
} from "../../../../lib/execution/state/mod.ts";

const CONTRACT = new Address(new Uint8Array(20).fill(0xc1));
const EOA = new Address(new Uint8Array(20).fill(0xe0));
const NOBODY = new Address(new Uint8Array(20).fill(0x99));
const CODE = new Uint8Array([0x60, 0x00, 0x54, 0x00]);
const slot = (n: number) => {
  const k = new Uint8Array(32);
  k[31] = n;
  return k;
};
const word = (n: number) => {
  const v = new Uint8Array(32);
  v[31] = n;
  return v;
};

/** A remote with a contract (slots 1 = 7, 2 = 9) and an EOA, counting its reads. */
function remote(): ForkRemote & { reads: string[] } {
  const reads: string[] = [];
  const accounts = new Map<string, RemoteAccount>([
    [CONTRACT.toString(), { nonce: 1n, balance: 5n, code: CODE, codeHash: keccak256(CODE) }],
    [EOA.toString(), {
      nonce: 3n,
      balance: 1000n,
      code: new Uint8Array(),
      codeHash: keccak256(new Uint8Array()),
    }],
  ]);
  const slots = new Map([[1, 7], [2, 9]]);
  return {
    reads,
    account(address: Uint8Array) {
      const a = new Address(address).toString();
      reads.push(`account ${a}`);
      return Promise.resolve(accounts.get(a) ?? null);
    },
    storage(address: Uint8Array, key: Uint8Array) {
      reads.push(`slot ${key[31]}`);
      return Promise.resolve(
        new Address(address).equals(CONTRACT) ? word(slots.get(key[31]) ?? 0) : new Uint8Array(32),
      );
    },
  };
}

Deno.test("fork state: accounts, code and slots the local tries lack are the remote's", async () => {
  const store = new MemoryStore();
  const r = remote();
  attachFork(store, r);
  const sm = await createStateManager(store);
  const c = await sm.getAccount(CONTRACT);
  assertEquals([c?.nonce, c?.balance], [1n, 5n]);
  assertEquals(await sm.getCode(CONTRACT), CODE);
  assertEquals(await sm.getStorage(CONTRACT, slot(1)), new Uint8Array([7]));
  assertEquals(await sm.getStorage(CONTRACT, slot(3)), new Uint8Array());
  assertEquals((await sm.getAccount(EOA))?.nonce, 3n);
  assertEquals(await sm.getAccount(NOBODY), undefined);
  // An EOA has no storage to ask for.
  assertEquals(await sm.getStorage(EOA, slot(1)), new Uint8Array());
  assertEquals(r.reads.filter((x) => x.startsWith("slot")), ["slot 1", "slot 3"]);
});

Deno.test("fork state: writes, a zeroed remote slot and a deleted remote account stay so in later states", async () => {
  const store = new MemoryStore();
  const r = remote();
  attachFork(store, r);
  const sm = await createStateManager(store);
  // Block 1: slot 1 zeroed, slot 2 read only, slot 4 written, the EOA deleted, a new account made.
  await sm.getStorage(CONTRACT, slot(1));
  await sm.putStorage(CONTRACT, slot(1), new Uint8Array());
  await sm.putStorage(CONTRACT, slot(4), new Uint8Array([4]));
  await sm.getAccount(EOA);
  await sm.deleteAccount(EOA);
  await sm.putAccount(NOBODY, new Account(0n, 42n));
  await sm.checkpoint();
  await sm.commit();
  await sm.flush();
  const root = await sm.getStateRoot();
  // A fresh manager at that root (another block, a restart's cache): the writes hold, the untouched
  // remote values are still the remote's.
  const later = await createStateManager(store, root);
  assertEquals(await later.getStorage(CONTRACT, slot(1)), new Uint8Array());
  assertEquals(await later.getStorage(CONTRACT, slot(2)), new Uint8Array([9]));
  assertEquals(await later.getStorage(CONTRACT, slot(4)), new Uint8Array([4]));
  assertEquals(await later.getAccount(EOA), undefined);
  assertEquals((await later.getAccount(NOBODY))?.balance, 42n);
  assertEquals(await later.getCode(CONTRACT), CODE);
  // The state before the block (the fork's) still reads as the remote.
  const before = await createStateManager(store);
  assertEquals(await before.getStorage(CONTRACT, slot(1)), new Uint8Array([7]));
  assertEquals((await before.getAccount(EOA))?.balance, 1000n);
});

Deno.test("fork state: code whose hash is neither local nor the remote's is an error, not empty code", async () => {
  const store = new MemoryStore();
  attachFork(store, remote());
  const sm = await createStateManager(store);
  await sm.putAccount(EOA, new Account(0n, 1n, undefined, keccak256(new Uint8Array([1, 2, 3]))));
  await assertRejects(() => sm.getCode(EOA), Error, "neither local nor the remote's");
});
