/**
 * Offline state pruning (state/prune.ts) on a real dev chain in a sqlite file: after pruning to the last
 * blocks, their state is whole (every node reachable, balances and storage read back, the chain goes on,
 * a restart too), older states are gone, and the deleted nodes are the superseded copies; a kept state
 * with a node missing stops the prune before anything is deleted.
 */
import { bytesToHex, hexToBytes } from "../../../../lib/common/bytes.ts";
import { PREFIXES, SqliteStore } from "../../../../lib/db/mod.ts";
import { markReachable, pruneState } from "../../../../lib/execution/state/prune.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../../../assert.ts";
import { DEV, type Node, open, OTHER, transfer } from "../rpc/dev/dev_node.ts";

/** C: sstore(number % 4, number) on each call; its storage trie changes every block. */
const COUNTER_RUNTIME = "0x43600443065500";
/** Copies the 7 runtime bytes from offset 11 (its own length) and returns them. */
const COUNTER_INIT = "0x600780600b6000396000f3" + COUNTER_RUNTIME.slice(2);

async function mine(node: Node, tx: Record<string, string>): Promise<string> {
  const hash = await node.call<string>("eth_sendTransaction", [{ from: bytesToHex(DEV.address), ...tx }]);
  await node.miner.idle();
  return hash;
}

function rootsOf(node: Node, from: bigint, to: bigint): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let n = from; n <= to; n++) {
    const hash = node.engine.chain.getCanonicalHash(n)!;
    out.push(node.engine.chain.getHeaderByHash(hash)!.stateRoot);
  }
  return out;
}

function trieRows(path: string): number {
  const store = SqliteStore.open(path, { readOnly: true });
  try {
    let n = 0;
    for (const _ of store.iterate(new Uint8Array([PREFIXES.trieNode]))) n++;
    return n;
  } finally {
    store.close();
  }
}

Deno.test("prune: the last blocks' state kept whole, older states gone, the chain goes on", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-prune-" });
  try {
    let node = await open(dir);
    const deployed = await mine(node, { data: COUNTER_INIT, gas: "0x30000" });
    const counter = (await node.call<{ contractAddress: string }>("eth_getTransactionReceipt", [deployed]))
      .contractAddress;
    let nonce = 1n;
    for (let i = 0; i < 12; i++) {
      await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, nonce++, 1n))]);
      await node.miner.idle();
      await mine(node, { to: counter, gas: "0x20000" });
      nonce++;
    }
    const head = node.engine.head().header.number;
    const balance = await node.call<string>("eth_getBalance", [OTHER, "latest"]);
    const slot = await node.call<string>("eth_getStorageAt", [counter, "0x1", "latest"]);
    assert(BigInt(slot) > 0n, "the counter wrote slot 1");
    assertEquals(await node.call("eth_getCode", [counter, "latest"]), COUNTER_RUNTIME);
    const kept = rootsOf(node, head - 3n, head);
    const old = rootsOf(node, 2n, 2n)[0];
    const path = `${dir}/keel.sqlite`;
    await node.close();

    const rowsBefore = trieRows(path);
    const store = SqliteStore.open(path);
    const r = pruneState(store, kept);
    assert(store.freeBytes() > 0, "the deletes freed pages");
    assertEquals(store.vacuum(), true, "VACUUM under --allow-all");
    assertEquals(store.freeBytes(), 0);
    // Every kept state is whole; the old one is not.
    assertEquals(markReachable(store, kept).nodes.size, r.kept);
    assertThrows(() => markReachable(store, [old]), Error, "is not in the database");
    store.close();
    assert(r.deleted > 0 && r.codesKept >= 1, JSON.stringify(r));
    assertEquals(trieRows(path), rowsBefore - r.deleted - r.codesDeleted);

    node = await open(dir);
    assertEquals(await node.call("eth_getBalance", [OTHER, "latest"]), balance);
    assertEquals(await node.call("eth_getStorageAt", [counter, "0x1", "latest"]), slot);
    assertEquals(await node.call("eth_getCode", [counter, "latest"]), COUNTER_RUNTIME);
    // The oldest kept block's state reads; one before it does not.
    await node.call("eth_getBalance", [OTHER, `0x${(head - 3n).toString(16)}`]);
    await assertRejects(() => node.call("eth_getBalance", [OTHER, "0x2"]));
    // The chain goes on from the pruned state.
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, nonce++, 5n))]);
    await node.miner.idle();
    await mine(node, { to: counter, gas: "0x20000" });
    assertEquals(node.engine.head().header.number, head + 2n);
    assertEquals(BigInt(await node.call<string>("eth_getBalance", [OTHER, "latest"])), BigInt(balance) + 5n);
    await node.close();

    // A kept root whose node is missing: nothing is deleted.
    const again = SqliteStore.open(path);
    const rows = trieRows(path);
    assertThrows(() => pruneState(again, [hexToBytes(`0x${"11".repeat(32)}`)]), Error, "nothing was deleted");
    again.close();
    assertEquals(trieRows(path), rows);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
