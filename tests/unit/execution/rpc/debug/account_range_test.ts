/**
 * debug_dumpBlock and debug_accountRange (geth eth/api_debug.go DumpBlock / AccountRange, core/state/
 * dump.go): a real chain on a sqlite file recording preimages (as `keel execution --dev`), checked as
 * wire JSON against geth's Dump shape: accounts in hashed-key order, paged with `next`, code and storage
 * optional, historical states, accounts without a known address, and geth's errors. anvil 1.7.1 serves
 * neither method ("Method not found"), so the shape follows geth's source.
 */
import { Address } from "@ethereumjs/util";
import { bytesToHex, type Hex, hexToBytes, keccak256 } from "../../../../../lib/common/mod.ts";
import { ExecutionEngine } from "../../../../../lib/execution/engine/mod.ts";
import { buildDevGenesis } from "../../../../../lib/execution/genesis/mod.ts";
import { debugNamespace } from "../../../../../lib/execution/rpc/debug/mod.ts";
import { toChecksumAddress } from "../../../../../lib/protocol/mod.ts";
import { assert, assertEquals } from "../../../../assert.ts";
import {
  A,
  A_CODE,
  ACCOUNTS,
  B,
  B_CODE,
  type Chain,
  chainOf,
  mine,
  openChain,
  R,
  R_CODE,
  rpc,
  RpcFailure,
  userTx,
} from "./fixture.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const slot = (n: number) => "0x" + n.toString(16).padStart(64, "0");
const hashOf = (address: Uint8Array) => bytesToHex(keccak256(address));
/** An address no genesis holds: the transfer of the test creates it. */
const FRESH = new Uint8Array(20).fill(0x77);

/** The fixture's chain, on a sqlite file in `dir` that records preimages (a dev chain's database). */
async function openPersistentChain(dir: string): Promise<Chain> {
  const genesis = buildDevGenesis({
    upTo: "isthmus",
    timestamp: 1_000n,
    extraAlloc: {
      [bytesToHex(A)]: { balance: "0x0", code: bytesToHex(A_CODE), storage: { [slot(1)]: slot(9) } },
      [bytesToHex(B)]: { balance: "0x0", code: bytesToHex(B_CODE) },
      [bytesToHex(R)]: { balance: "0x0", code: bytesToHex(R_CODE) },
    },
  });
  return chainOf(await ExecutionEngine.open({ dataDir: dir, genesis, preimages: true }));
}

/** Runs `fn` on a persistent chain with one block: A called (slot 1 9 -> 5, B's slot 0 -> 42), FRESH paid. */
async function withChain(
  fn: (chain: Chain, call: (m: string, p: unknown[]) => Promise<Json>) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "keel-account-range-" });
  const chain = await openPersistentChain(dir);
  try {
    await mine(chain, [userTx(chain, A, { gas: 300_000n }), userTx(chain, FRESH, { value: 1234n })]);
    const debug = [debugNamespace(chain.backend)];
    await fn(chain, (m, p) => rpc(debug, m, p));
  } finally {
    await chain.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function failure(p: Promise<unknown>): Promise<RpcFailure> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcFailure) return e;
    throw e;
  }
  throw new Error("the call succeeded");
}

/** The hashed keys of every account of the state at `header`, from the preimage log (sorted). */
async function expectedKeys(chain: Chain, number: bigint): Promise<Hex[]> {
  const header = chain.engine.chain.getHeaderByHash(chain.engine.chain.getCanonicalHash(number)!)!;
  const sm = await chain.engine.stateAt(header);
  const keys: Hex[] = [];
  for (const { address } of chain.engine.preimages!.accounts()) {
    if ((await sm.getAccount(new Address(address))) !== undefined) keys.push(hashOf(address));
  }
  return keys.sort();
}

Deno.test("debug_dumpBlock: geth's Dump of the head's state, accounts with code, storage and keys", () =>
  withChain(async (chain, call) => {
    const head = chain.engine.head();
    const dump = await call("debug_dumpBlock", ["latest"]);
    assertEquals(Object.keys(dump), ["root", "accounts", "next"]);
    // geth's "%x": the state root without 0x.
    assertEquals(dump.root, bytesToHex(head.header.stateRoot).slice(2));
    // The first 256 accounts in hashed-key order; the dev genesis holds more: `next` continues.
    const all = await expectedKeys(chain, head.header.number);
    assert(all.length > 256, `only ${all.length} accounts`);
    const keys = Object.values(dump.accounts).map((a: Json) => a.key).sort();
    assertEquals(keys, all.slice(0, 256));
    assertEquals(dump.next, all[256]);
    // Keyed by the checksummed address; Go's map order (byte-wise sorted keys).
    const names = Object.keys(dump.accounts);
    assertEquals(names, [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    for (const [name, account] of Object.entries<Json>(dump.accounts)) {
      assertEquals(name, toChecksumAddress(hexToBytes(account.address)));
      assertEquals(account.key, hashOf(hexToBytes(account.address)));
      assertEquals(account.address, account.address.toLowerCase());
      assert(/^(0|[1-9][0-9]*)$/.test(account.balance), account.balance);
    }
    // The same as the block's number, and `pending` (op-geth: the latest block).
    assertEquals(await call("debug_dumpBlock", [`0x${head.header.number.toString(16)}`]), dump);
    assertEquals(await call("debug_dumpBlock", ["pending"]), dump);
  }));

Deno.test("debug_accountRange: paging with next covers every account once, in hashed-key order", () =>
  withChain(async (chain, call) => {
    const all = await expectedKeys(chain, chain.engine.head().header.number);
    const seen: Hex[] = [];
    let start: string = "0x";
    let pages = 0;
    while (true) {
      const page = await call("debug_accountRange", ["latest", start, 200, true, true, false]);
      pages++;
      const keys = Object.values(page.accounts).map((a: Json) => a.key as Hex).sort();
      assert(keys.length === 200 || page.next === undefined, `a short page with next: ${keys.length}`);
      if (seen.length > 0) assert(keys[0] > seen[seen.length - 1], "pages overlap or go back");
      seen.push(...keys);
      if (page.next === undefined) break;
      assert(page.next > keys[keys.length - 1]);
      start = page.next;
    }
    assertEquals(seen, all);
    assertEquals(pages, Math.ceil(all.length / 200));
    // A start between two keys: the range begins at the first key after it.
    const mid = all[500];
    const before = `0x${(BigInt(mid) - 1n).toString(16).padStart(64, "0")}`;
    const fromMid = await call("debug_accountRange", ["latest", before, 3, true, true, false]);
    assertEquals(Object.values(fromMid.accounts).map((a: Json) => a.key).sort(), all.slice(500, 503));
    assertEquals(fromMid.next, all[503]);
    // A short start is a number, left-padded (geth's common.BytesToHash): 0x01 is key 0x00..01.
    const short = await call("debug_accountRange", ["latest", "0x01", 2, true, true, false]);
    assertEquals(Object.values(short.accounts).map((a: Json) => a.key).sort(), all.slice(0, 2));
    // Past the last key: nothing, no next.
    const end = await call("debug_accountRange", ["latest", "0x" + "ff".repeat(32), 10, true, true, false]);
    assertEquals(end.accounts, {});
    assertEquals("next" in end, false);
  }));

/** A's entry in a range starting at its hashed key. */
async function rangeAt(
  call: (m: string, p: unknown[]) => Promise<Json>,
  block: unknown,
  address: Uint8Array,
  nocode = false,
  nostorage = false,
): Promise<Json> {
  const page = await call("debug_accountRange", [block, hashOf(address), 1, nocode, nostorage, false]);
  return page.accounts[toChecksumAddress(address)];
}

Deno.test("debug_accountRange: code and storage, or neither with nocode / nostorage", () =>
  withChain(async (_chain, call) => {
    const a = await rangeAt(call, "latest", A);
    // geth's DumpAccount fields, in its order; the storage by slot, the value trimmed hex without 0x.
    assertEquals(a, {
      balance: "0",
      nonce: 0,
      root: a.root,
      codeHash: bytesToHex(keccak256(A_CODE)),
      code: bytesToHex(A_CODE),
      storage: { [slot(1)]: "05" },
      address: bytesToHex(A),
      key: hashOf(A),
    });
    assertEquals(Object.keys(a), [
      "balance",
      "nonce",
      "root",
      "codeHash",
      "code",
      "storage",
      "address",
      "key",
    ]);
    assertEquals((await rangeAt(call, "latest", B)).storage, { [slot(0)]: "2a" });
    // No code, no storage: the fields are left out (omitempty), the rest unchanged.
    const bare = await rangeAt(call, "latest", A, true, true);
    assertEquals(bare, {
      balance: "0",
      nonce: 0,
      root: a.root,
      codeHash: a.codeHash,
      address: a.address,
      key: a.key,
    });
    assertEquals(Object.keys(await rangeAt(call, "latest", A, true, false)).includes("storage"), true);
    assertEquals(Object.keys(await rangeAt(call, "latest", A, false, true)).includes("code"), true);
    // An account without code or storage: neither field; its balance in decimal.
    const fresh = await rangeAt(call, "latest", FRESH);
    assertEquals(fresh, {
      balance: "1234",
      nonce: 0,
      root: "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
      codeHash: "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
      address: bytesToHex(FRESH),
      key: hashOf(FRESH),
    });
    // nocode / nostorage over a whole page: no code or storage anywhere.
    const page = await call("debug_accountRange", ["latest", "0x", 256, true, true, false]);
    for (const account of Object.values<Json>(page.accounts)) {
      assertEquals("code" in account || "storage" in account, false);
    }
    const full = await call("debug_accountRange", ["latest", "0x", 256, false, false, false]);
    assert(Object.values<Json>(full.accounts).some((x) => "code" in x && "storage" in x));
  }));

Deno.test("debug_accountRange / debug_dumpBlock: a historical block's state, by number and by hash", () =>
  withChain(async (chain, call) => {
    const genesisHash = bytesToHex(chain.engine.chain.getCanonicalHash(0n)!);
    const genesis = chain.engine.chain.getHeaderByHash(hexToBytes(genesisHash))!;
    const old = await call("debug_dumpBlock", ["0x0"]);
    const now = await call("debug_dumpBlock", ["latest"]);
    assertEquals(old.root, bytesToHex(genesis.stateRoot).slice(2));
    assert(old.root !== now.root);
    // A's slot 1 was 9 before the block ran.
    for (
      const block of ["0x0", genesisHash, { blockHash: genesisHash }, { blockNumber: "0x0" }, "earliest"]
    ) {
      assertEquals((await rangeAt(call, block, A)).storage, { [slot(1)]: "09" }, JSON.stringify(block));
    }
    assertEquals((await rangeAt(call, "latest", A)).storage, { [slot(1)]: "05" });
    // B had no storage, FRESH did not exist.
    assertEquals("storage" in (await rangeAt(call, genesisHash, B)), false);
    assertEquals(await rangeAt(call, genesisHash, FRESH), undefined);
    const sender = toChecksumAddress(ACCOUNTS[0].address);
    const senderOld = await call("debug_accountRange", [
      genesisHash,
      hashOf(ACCOUNTS[0].address),
      1,
      true,
      true,
      false,
    ]);
    const senderNow = await call("debug_accountRange", [
      "latest",
      hashOf(ACCOUNTS[0].address),
      1,
      true,
      true,
      false,
    ]);
    assertEquals(senderOld.accounts[sender].nonce, 0);
    assertEquals(senderNow.accounts[sender].nonce, 2);
    assert(BigInt(senderNow.accounts[sender].balance) < BigInt(senderOld.accounts[sender].balance));
  }));

Deno.test("debug_accountRange: accounts without a known address (no preimages) only with incompletes", async () => {
  // The fixture's in-memory chain does not record preimages (a chain not started in dev mode).
  const chain = await openChain();
  try {
    const debug = [debugNamespace(chain.backend)];
    const call = (m: string, p: unknown[]) => rpc(debug, m, p) as Promise<Json>;
    // Without incompletes (and in dumpBlock) every account is skipped, as on geth without preimages.
    const root = bytesToHex(chain.engine.head().header.stateRoot).slice(2);
    assertEquals(await call("debug_dumpBlock", ["latest"]), { root, accounts: {} });
    assertEquals(await call("debug_accountRange", ["latest", "0x", 5, false, false, false]), {
      root,
      accounts: {},
    });
    // With incompletes: keyed pre(<hashed key>), `key` and no `address`; code by its hash, storage
    // left out (no slot preimages).
    const page = await call("debug_accountRange", ["latest", hashOf(A), 1, false, false, true]);
    const name = `pre(${hashOf(A)})`;
    assertEquals(Object.keys(page.accounts), [name]);
    const a = page.accounts[name];
    assertEquals(Object.keys(a), ["balance", "nonce", "root", "codeHash", "code", "key"]);
    assertEquals([a.code, a.key], [bytesToHex(A_CODE), hashOf(A)]);
    assert(a.root !== "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");
    assert(typeof page.next === "string" && page.next > hashOf(A));
    // Paging with incompletes covers all accounts once, in order.
    const keys: string[] = [];
    let start = "0x";
    while (true) {
      const p = await call("debug_accountRange", ["latest", start, 256, true, true, true]);
      const ks = Object.values<Json>(p.accounts).map((x) => x.key).sort();
      if (keys.length > 0) assert(ks[0] > keys[keys.length - 1]);
      keys.push(...ks);
      if (p.next === undefined) break;
      start = p.next;
    }
    assert(keys.includes(hashOf(A)) && keys.includes(hashOf(B)));
    assertEquals(new Set(keys).size, keys.length);
    assert(keys.length > 256);
  } finally {
    await chain.close();
  }
});

Deno.test("debug_accountRange / debug_dumpBlock: geth's errors and limits", () =>
  withChain(async (_chain, call) => {
    const fail = (m: string, p: unknown[]) => failure(call(m, p));
    // Unknown blocks: geth's -32000 messages.
    let e = await fail("debug_dumpBlock", ["0x63"]);
    assertEquals([e.code, e.message], [-32000, "block #99 not found"]);
    e = await fail("debug_accountRange", ["0x63", "0x", 1, true, true, false]);
    assertEquals([e.code, e.message], [-32000, "block #99 not found"]);
    const unknown = "0x" + "ab".repeat(32);
    e = await fail("debug_accountRange", [unknown, "0x", 1, true, true, false]);
    assertEquals([e.code, e.message], [-32000, `block ${unknown} not found`]);
    // dumpBlock takes a number or tag only (rpc.BlockNumber).
    e = await fail("debug_dumpBlock", [unknown]);
    assertEquals(e.code, -32602);
    // maxResults: 0 or less, or above 256, is 256 (geth's AccountRangeMaxResults), not an error.
    for (const max of [0, -1, 257, 1_000_000]) {
      const page = await call("debug_accountRange", ["latest", "0x", max, true, true, false]);
      assertEquals(Object.keys(page.accounts).length, 256, String(max));
    }
    // A Go int: a JSON number, not a string or a fraction.
    e = await fail("debug_accountRange", ["latest", "0x", "0x10", true, true, false]);
    assertEquals([e.code, e.message], [
      -32602,
      "invalid argument 2: json: cannot unmarshal string into Go value of type int",
    ]);
    e = await fail("debug_accountRange", ["latest", "0x", 1.5, true, true, false]);
    assertEquals([e.code, e.message], [
      -32602,
      "invalid argument 2: json: cannot unmarshal number 1.5 into Go value of type int",
    ]);
    // start: hexutil.Bytes of at most 32 bytes.
    e = await fail("debug_accountRange", ["latest", "0x123", 1, true, true, false]);
    assertEquals([e.code, e.message], [
      -32602,
      "invalid argument 1: json: cannot unmarshal hex string of odd length into Go value of type hexutil.Bytes",
    ]);
    e = await fail("debug_accountRange", ["latest", "12", 1, true, true, false]);
    assertEquals(e.code, -32602);
    e = await fail("debug_accountRange", ["latest", "0x" + "00".repeat(33), 1, true, true, false]);
    assertEquals([e.code, e.message], [
      -32602,
      "invalid argument 1: start key has 33 bytes, want at most 32",
    ]);
    // All six arguments are required, as geth's (non-pointer) parameters.
    e = await fail("debug_accountRange", ["latest", "0x", 1]);
    assertEquals([e.code, e.message], [-32602, "missing value for required argument 3"]);
    e = await fail("debug_dumpBlock", []);
    assertEquals([e.code, e.message], [-32602, "missing value for required argument 0"]);
  }));
