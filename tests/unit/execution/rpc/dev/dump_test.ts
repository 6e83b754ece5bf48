/**
 * anvil_dumpState / anvil_loadState on a dev node: the dump holds the head's whole state (rebuilt from
 * it alone, the state root is the head's), loading it back restores what changed since, and bad input
 * or a chain without preimages gets a clear error with nothing written.
 */
import { Account, Address } from "@ethereumjs/util";
import { bytesToHex, hexToBytes } from "../../../../../lib/common/bytes.ts";
import { MemoryStore } from "../../../../../lib/db/mod.ts";
import type { DumpedState } from "../../../../../lib/execution/rpc/mod.ts";
import { createStateManager } from "../../../../../lib/execution/state/mod.ts";
import { assert, assertEquals } from "../../../../assert.ts";
import { DEV, type Node, open, OTHER, withNode } from "./dev_node.ts";

/** Runtime: SSTORE(calldata[0:32], calldata[32:64]). */
const RUNTIME = "6020356000355500";
/** Stores 0x2a at slot 7, then returns RUNTIME. */
const INITCODE = "0x602a600755" + "6008601160003960086000f3" + RUNTIME;
const SLOT = "0x" + "de".repeat(32);
const word = (n: number) => "0x" + n.toString(16).padStart(64, "0");

async function send(node: Node, tx: Record<string, string>): Promise<{ contractAddress: string | null }> {
  const hash = await node.call<string>("eth_sendTransaction", [{ from: bytesToHex(DEV.address), ...tx }]);
  await node.miner.idle();
  const receipt = await node.call<{ status: string; contractAddress: string | null }>(
    "eth_getTransactionReceipt",
    [hash],
  );
  assertEquals(receipt.status, "0x1");
  return receipt;
}

async function dump(node: Node): Promise<{ hex: string; state: DumpedState }> {
  const hex = await node.call<string>("anvil_dumpState");
  const raw = new Blob([hexToBytes(hex) as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new DecompressionStream("gzip"));
  return { hex, state: JSON.parse(await new Response(raw).text()) };
}

/** A contract with two slots written (one cleared again), and a balance and a slot set by hand. */
async function populate(node: Node): Promise<string> {
  const { contractAddress } = await send(node, { data: INITCODE, gas: "0x30000" });
  const c = contractAddress!;
  await send(node, { to: c, data: SLOT + word(5).slice(2), gas: "0x20000" });
  await send(node, { to: c, data: word(7) + word(0).slice(2), gas: "0x20000" });
  await node.call("anvil_setBalance", [OTHER, "0x1234"]);
  await node.call("anvil_setStorageAt", [OTHER, "0x3", word(9)]);
  return c;
}

Deno.test("anvil_dumpState: the dump alone rebuilds the head's state root", () =>
  withNode(async (node) => {
    const c = await populate(node);
    const { state } = await dump(node);
    const head = node.engine.head();
    assertEquals(state.best_block_number, Number(head.header.number));
    assertEquals(state.block.number, `0x${head.header.number.toString(16)}`);
    const contract = state.accounts[c.toLowerCase()];
    assertEquals(contract.code, "0x" + RUNTIME);
    assertEquals(contract.nonce, 1);
    // Slot 7 was cleared: a zero slot is no longer in the state.
    assertEquals(contract.storage, { [SLOT]: word(5) });
    assertEquals(state.accounts[OTHER].balance, "0x1234");
    assertEquals(state.accounts[OTHER].storage, { [word(3)]: word(9) });
    // Every account and slot is there: the same accounts rebuild the same root.
    const sm = await createStateManager(new MemoryStore());
    for (const [address, a] of Object.entries(state.accounts)) {
      const at = new Address(hexToBytes(address));
      await sm.putAccount(at, new Account(BigInt(a.nonce), BigInt(a.balance)));
      if (a.code !== "0x") await sm.putCode(at, hexToBytes(a.code));
      for (const [k, v] of Object.entries(a.storage)) {
        const value = hexToBytes(v);
        await sm.putStorage(at, hexToBytes(k), value.subarray(value.findIndex((b) => b !== 0)));
      }
    }
    assertEquals(
      bytesToHex(await sm.getStateRoot()),
      bytesToHex(node.engine.irregular.rootOf(head.header, head.hash)),
    );
  }));

Deno.test("anvil_loadState: a dump loaded back restores balances, code and the slots it lists; nonces only rise", () =>
  withNode(async (node) => {
    const c = await populate(node);
    const { hex } = await dump(node);
    await node.call("anvil_setBalance", [OTHER, "0x1"]);
    await node.call("anvil_setNonce", [OTHER, "0x5"]);
    await node.call("anvil_setCode", [c, "0x00"]);
    await node.call("anvil_setStorageAt", [c, SLOT, word(6)]);
    await node.call("anvil_setStorageAt", [c, "0x8", word(8)]);
    assertEquals(await node.call("anvil_loadState", [hex]), true);
    assertEquals(await node.call("eth_getBalance", [OTHER, "latest"]), "0x1234");
    // As anvil: the nonce is never lowered (the dump's was 0).
    assertEquals(await node.call("eth_getTransactionCount", [OTHER, "latest"]), "0x5");
    assertEquals(await node.call("eth_getCode", [c, "latest"]), "0x" + RUNTIME);
    assertEquals(await node.call("eth_getStorageAt", [c, SLOT, "latest"]), word(5));
    // As anvil: a slot the dump does not list stays as it is.
    assertEquals(await node.call("eth_getStorageAt", [c, "0x8", "latest"]), word(8));
    // hardhat's name, and a dump as plain JSON (not compressed).
    const plain = JSON.stringify({
      accounts: { [OTHER]: { nonce: 7, balance: "0x10", code: "0x", storage: {} } },
    });
    assertEquals(await node.call("hardhat_loadState", [bytesToHex(new TextEncoder().encode(plain))]), true);
    assertEquals(await node.call("eth_getBalance", [OTHER, "latest"]), "0x10");
    assertEquals(await node.call("eth_getTransactionCount", [OTHER, "latest"]), "0x7");
  }));

Deno.test("anvil_loadState refuses bad input with a clear error and writes nothing", () =>
  withNode(async (node) => {
    await node.call("anvil_setBalance", [OTHER, "0x77"]);
    const hex = (v: unknown) => bytesToHex(new TextEncoder().encode(JSON.stringify(v)));
    const cases: [string, string][] = [
      ["0x1f8b0000", "gzip"],
      [bytesToHex(new TextEncoder().encode("not json")), "not a JSON state dump"],
      [hex({ block: {} }), "no `accounts` object"],
      [hex({ accounts: { "0x12": {} } }), "not an address"],
      // The first account is valid: it must not be written either.
      [
        hex({ accounts: { [OTHER]: { balance: "0x1" }, [bytesToHex(DEV.address)]: { balance: "-1" } } }),
        "is not an unsigned integer",
      ],
      [hex({ accounts: { [OTHER]: { nonce: "0x1" + "0".repeat(16) } } }), "does not fit in 64 bits"],
      [hex({ accounts: { [OTHER]: { code: "0x123" } } }), "is not 0x-prefixed hex bytes"],
    ];
    for (const [input, message] of cases) {
      const e = await node.error("anvil_loadState", [input]);
      assertEquals(e.code, -32602);
      assert(e.message.includes(message), `${e.message} should mention ${message}`);
    }
    assertEquals(await node.call("eth_getBalance", [OTHER, "latest"]), "0x77");
  }));

Deno.test("anvil_dumpState on a chain that does not record preimages says so", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-dev-dump-" });
  try {
    const node = await open(dir, undefined, false);
    try {
      const e = await node.error("anvil_dumpState");
      assertEquals(e.code, -32602);
      assert(e.message.includes("does not record its accounts and storage slots"), e.message);
    } finally {
      await node.close();
    }
    // Preimages are recorded only from the genesis on: reopening in dev mode does not start them.
    const again = await open(dir);
    try {
      assertEquals((await again.error("anvil_dumpState")).code, -32602);
    } finally {
      await again.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
