/**
 * Online state pruning (state/online_prune.ts, engine gcMode "full") on a real chain in a sqlite file:
 * passes run between blocks while the chain grows, the kept states stay whole (every node in the
 * database), older states go, the chain and a restart go on; a node that only an old state reached and
 * that a block writes again during a pass is spared; a block on a state the pass does not keep stops it.
 */
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import { PREFIXES, type SqliteStore } from "../../../../lib/db/mod.ts";
import { OnlinePruner } from "../../../../lib/execution/state/mod.ts";
import { markReachable } from "../../../../lib/execution/state/prune.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../../../assert.ts";
import { DEV, type Node, open, OTHER, transfer } from "../rpc/dev/dev_node.ts";

/** C: sstore(number % 4, number) on each call; its storage trie changes every block. */
const COUNTER_RUNTIME = "0x43600443065500";
const COUNTER_INIT = "0x600780600b6000396000f3" + COUNTER_RUNTIME.slice(2);
/** T: slot 0 toggles between 0 and 1 on each call (its storage trie: empty, then one leaf, again and again). */
const TOGGLE_RUNTIME = "0x6000541560005500";
const TOGGLE_INIT = "0x600880600b6000396000f3" + TOGGLE_RUNTIME.slice(2);

async function mine(node: Node, tx: Record<string, string>): Promise<string> {
  const hash = await node.call<string>("eth_sendTransaction", [{ from: bytesToHex(DEV.address), ...tx }]);
  await node.miner.idle();
  return hash;
}

/** Mines `count` transfers of 1 wei to OTHER, one block each, from `nonce` on; the next nonce. */
async function transfers(node: Node, nonce: bigint, count: number): Promise<bigint> {
  for (let i = 0; i < count; i++) {
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, nonce++, 1n))]);
    await node.miner.idle();
  }
  return nonce;
}

async function deploy(node: Node, init: string): Promise<string> {
  const hash = await mine(node, { data: init, gas: "0x30000" });
  return (await node.call<{ contractAddress: string }>("eth_getTransactionReceipt", [hash])).contractAddress;
}

function rootAt(node: Node, n: bigint): Uint8Array {
  return node.engine.chain.getHeaderByHash(node.engine.chain.getCanonicalHash(n)!)!.stateRoot;
}

function trieRows(store: SqliteStore): number {
  let n = 0;
  for (const _ of store.iterate(new Uint8Array([PREFIXES.trieNode]))) n++;
  return n;
}

async function until(cond: () => boolean, what: () => string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

Deno.test("online prune: passes run as the chain grows; kept states whole, old ones gone, restart goes on", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-online-prune-" });
  const prune = { recent: 4, every: 6, markStep: 40, sweepStep: 100 };
  try {
    let node = await open(dir, undefined, true, { gcMode: "full", prune });
    const start = BigInt(await node.call<string>("eth_getBalance", [OTHER, "latest"]));
    const counter = await deploy(node, COUNTER_INIT);
    let nonce = 1n;
    for (let i = 0; i < 20; i++) {
      await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, nonce++, 1n))]);
      await node.miner.idle();
      await mine(node, { to: counter, gas: "0x20000" });
      nonce++;
    }
    // The first pass ran while those blocks were mined (its steps between them); another comes after
    // `every` more blocks.
    const stats = node.engine.pruneStats()!;
    await until(() => stats.passes >= 1, () => `a pruning pass (${JSON.stringify(stats)})`);
    nonce = await transfers(node, nonce, prune.every);
    await until(() => stats.passes >= 2, () => `two pruning passes (${JSON.stringify(stats)})`);
    assertEquals(stats.stopped, 0);
    assert(stats.deleted > 0, JSON.stringify(stats));
    const store = node.engine.store;
    // Every state a pass keeps is whole: the last blocks' (the pass walked them: nothing missing).
    const head = node.engine.head().header.number;
    const kept = node.engine.keptStates(prune.recent).roots;
    assertEquals(kept.length >= prune.recent, true);
    markReachable(store, kept);
    // An old state is gone (its root node deleted).
    assertThrows(() => markReachable(store, [rootAt(node, 3n)]), Error, "is not in the database");
    await assertRejects(() => node.call("eth_getBalance", [OTHER, "0x3"]));
    assertEquals(BigInt(await node.call<string>("eth_getBalance", [OTHER, "latest"])), start + 26n);
    // Rewinding to a pruned block is refused with the reason (debug_setHead).
    await assertRejects(() => node.engine.setHead(3n), Error, "its state was pruned");
    assertEquals(node.engine.head().header.number, head);
    await node.close();

    // A restart resumes on the pruned database and the chain goes on.
    node = await open(dir, undefined, true, { gcMode: "full", prune });
    assertEquals(node.engine.head().header.number, head);
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, nonce++, 5n))]);
    await node.miner.idle();
    await mine(node, { to: counter, gas: "0x20000" });
    assertEquals(BigInt(await node.call<string>("eth_getBalance", [OTHER, "latest"])), start + 31n);
    assertEquals(await node.call("eth_getCode", [counter, "latest"]), COUNTER_RUNTIME);
    markReachable(node.engine.store, node.engine.keptStates(prune.recent).roots);
    await node.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("online prune: an archive engine keeps every state", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-online-prune-" });
  try {
    const node = await open(dir);
    assertEquals(node.engine.pruneStats(), undefined);
    await transfers(node, 0n, 8);
    markReachable(node.engine.store, [rootAt(node, 1n), rootAt(node, 8n)]);
    await node.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A node whose engine keeps every state, with a pruner stepped by hand. */
async function manual(dir: string) {
  const node = await open(dir);
  const store = node.engine.store as SqliteStore;
  const pruner = new OnlinePruner(store, { recent: 1, every: 1, markStep: 1e9, sweepStep: 1e9 }, {
    keptRoots: (recent) => node.engine.keptStates(recent).roots,
  });
  return { node, store, pruner };
}

Deno.test("online prune: a node only old states reached, written again during the pass, is spared", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-online-prune-" });
  try {
    const { node, store, pruner } = await manual(dir);
    const toggle = await deploy(node, TOGGLE_INIT);
    await mine(node, { to: toggle, gas: "0x10000" }); // slot 0 = 1: the storage trie's one leaf L
    const withLeaf = node.engine.head().header.number;
    await mine(node, { to: toggle, gas: "0x10000" }); // slot 0 = 0: L only in the older states
    assertEquals(await node.call("eth_getStorageAt", [toggle, "0x0", "latest"]), `0x${"0".repeat(64)}`);
    const head = node.engine.head().header;
    pruner.stored(head.stateRoot);
    pruner.step(); // begins
    pruner.step(); // marks everything the head reaches
    assert(pruner.running);
    // A block during the pass writes L again (slot 0 = 1), then the sweep runs.
    pruner.using(head.stateRoot);
    await mine(node, { to: toggle, gas: "0x10000" });
    const next = node.engine.head().header;
    pruner.stored(next.stateRoot);
    const rows = trieRows(store);
    pruner.step();
    assertEquals(pruner.running, false);
    assertEquals(pruner.stats.passes, 1);
    assert(pruner.stats.deleted > 0);
    assertEquals(trieRows(store), rows - pruner.stats.deleted - pruner.stats.codesDeleted);
    // The new head's state is whole (L included); the state L was first written for is not.
    markReachable(store, [next.stateRoot]);
    assertThrows(() => markReachable(store, [rootAt(node, withLeaf)]), Error, "is not in the database");
    assertEquals(await node.call("eth_getStorageAt", [toggle, "0x0", "latest"]), `0x${"0".repeat(63)}1`);
    await node.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("online prune: a block on a state the pass does not keep stops it before anything is deleted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-online-prune-" });
  try {
    const { node, store, pruner } = await manual(dir);
    await transfers(node, 0n, 4);
    pruner.stored(node.engine.head().header.stateRoot);
    pruner.step();
    pruner.step();
    assert(pruner.running);
    const rows = trieRows(store);
    pruner.using(rootAt(node, 1n));
    assertEquals(pruner.running, false);
    assertEquals(pruner.stats.stopped, 1);
    pruner.step(); // not due again before `every` more blocks
    assertEquals(pruner.running, false);
    assertEquals(trieRows(store), rows);
    markReachable(store, [rootAt(node, 1n)]);
    assertThrows(
      () => new OnlinePruner(store, { every: 0 }, { keptRoots: () => [] }),
      Error,
      "every must be a positive integer",
    );
    await node.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("online prune: the states from the finalized block up are kept, however far back it is", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-online-prune-" });
  try {
    const { node, store, pruner } = await manual(dir);
    await transfers(node, 0n, 10);
    // The dev miner makes each block safe and finalized; a rollup node's labels lag behind.
    const head = node.engine.head();
    const at = (n: bigint) => node.engine.chain.getCanonicalHash(n)!;
    await node.engine.forkchoiceUpdate(head.hash, at(5n), at(3n));
    const kept = node.engine.keptStates(1);
    assertEquals(kept.from, 3n);
    assertEquals(kept.roots.length, 8 + 2 + 1); // blocks 3..10, safe, finalized; the genesis (anvil_reset)
    pruner.stored(head.header.stateRoot);
    pruner.step();
    pruner.step();
    pruner.step();
    assertEquals(pruner.stats.passes, 1);
    assert(pruner.stats.deleted > 0);
    for (let n = 3n; n <= 10n; n++) markReachable(store, [rootAt(node, n)]);
    assertThrows(() => markReachable(store, [rootAt(node, 2n)]), Error, "is not in the database");
    await node.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("online prune on a dev chain: evm_revert's and anvil_reset's states are kept, anvil_rollback past the kept ones refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-online-prune-" });
  const prune = { recent: 4, every: 6, markStep: 1_000, sweepStep: 1_000 };
  try {
    const node = await open(dir, undefined, true, { gcMode: "full", prune });
    const start = BigInt(await node.call<string>("eth_getBalance", [OTHER, "latest"]));
    let nonce = await transfers(node, 0n, 2);
    const snapshot = await node.call<string>("evm_snapshot");
    const atSnapshot = node.engine.head().header.number;
    nonce = await transfers(node, nonce, 20);
    const stats = node.engine.pruneStats()!;
    await until(() => stats.passes >= 1, () => `a pruning pass (${JSON.stringify(stats)})`);
    await transfers(node, nonce, prune.every);
    await until(() => stats.passes >= 2, () => `two pruning passes (${JSON.stringify(stats)})`);
    // A block between the snapshot and the kept ones is gone; rolling back to it is refused.
    assertThrows(
      () => markReachable(node.engine.store, [rootAt(node, atSnapshot + 2n)]),
      Error,
      "not in the database",
    );
    const head = node.engine.head().header.number;
    const refused = await node.error("anvil_rollback", [`0x${(head - atSnapshot - 2n).toString(16)}`]);
    assert(refused.message.includes("its state was pruned"), refused.message);
    // The snapshot's state was kept: evm_revert goes back to it.
    assertEquals(await node.call("evm_revert", [snapshot]), true);
    assertEquals(node.engine.head().header.number, atSnapshot);
    assertEquals(BigInt(await node.call<string>("eth_getBalance", [OTHER, "latest"])), start + 2n);
    // And the genesis state: anvil_reset goes back to it.
    await node.call("anvil_reset");
    assertEquals(node.engine.head().header.number, 0n);
    assertEquals(BigInt(await node.call<string>("eth_getBalance", [OTHER, "latest"])), start);
    await transfers(node, 0n, 1);
    await node.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
