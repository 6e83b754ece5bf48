/**
 * anvil_reorg over a real dev node (ExecutionEngine on sqlite, DevMiner, the RPC core): the last blocks
 * replaced by as many new ones holding the given transactions (raw, or JSON requests signed with
 * nonces counted from the common block), the old blocks' transactions gone, and every refusal
 * leaving the chain as it was.
 */
import { bytesToHex, hexToBytes } from "../../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../../lib/common/hash.ts";
import { deriveDevAccounts } from "../../../../../lib/execution/genesis/mod.ts";
import { assert, assertEquals } from "../../../../assert.ts";
import { DEV, type Node, OTHER, transfer, withNode } from "./dev_node.ts";

const [, SECOND] = deriveDevAccounts(2);

interface RpcBlock {
  hash: string;
  transactions: { hash: string; from: string; nonce: string; value: string }[];
}

async function block(node: Node, n: number): Promise<RpcBlock> {
  return await node.call<RpcBlock>("eth_getBlockByNumber", [`0x${n.toString(16)}`, true]);
}

/** The user transactions of block `n` (the L1-info deposit left out). */
async function userTxs(node: Node, n: number) {
  return (await block(node, n)).transactions.filter((t) =>
    t.from !== "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001"
  );
}

/** Three blocks, one transfer of DEV each (nonces 0, 1, 2). */
async function threeBlocks(node: Node): Promise<string[]> {
  const hashes: string[] = [];
  for (let i = 0n; i < 3n; i++) {
    hashes.push(await node.call<string>("eth_sendRawTransaction", [bytesToHex(transfer(node, i, 1n))]));
    await node.miner.idle(); // automine seals it
  }
  assertEquals(node.engine.head().header.number, 3n);
  return hashes;
}

Deno.test("anvil_reorg: the last blocks are replaced by new ones holding the given transactions", () =>
  withNode(async (node) => {
    const old = await threeBlocks(node);
    const before = await Promise.all([1, 2, 3].map((n) => block(node, n)));
    const snapshot = await node.call<string>("evm_snapshot");
    const balanceAtOne = BigInt(await node.call<string>("eth_getBalance", [OTHER, "0x1"]));
    // A raw transaction for nonce 1: DEV's next on block 1's state.
    const raw = bytesToHex(transfer(node, 1n, 100n));
    const result = await node.call("anvil_reorg", [2, [
      [{ from: bytesToHex(DEV.address), to: OTHER, value: "0x5" }, 1],
      [raw, 0],
      [{ from: bytesToHex(SECOND.address), to: OTHER, value: "0x7" }, "0x1"],
      [{ to: OTHER, value: "0x9" }, 1], // no `from`: the first dev account, DEV
    ]]);
    assertEquals(result, null);
    assertEquals(node.engine.head().header.number, 3n);
    const after = await Promise.all([1, 2, 3].map((n) => block(node, n)));
    assertEquals(after[0].hash, before[0].hash, "block 1 is the common block");
    assert(after[1].hash !== before[1].hash && after[2].hash !== before[2].hash);
    assertEquals((await userTxs(node, 2)).map((t) => t.hash), [bytesToHex(keccak256(hexToBytes(raw)))]);
    // The requests are signed with nonces counted from block 1's state (DEV: 1, then 2; SECOND: 0), as
    // anvil counts them: the raw transaction is not counted, so DEV's first request (nonce 1, taken by
    // the raw one in block 2) cannot be applied and is left out.
    const three = await userTxs(node, 3);
    assertEquals(three.map((t) => [t.from, t.nonce, t.value]), [
      [bytesToHex(SECOND.address), "0x0", "0x7"],
      [bytesToHex(DEV.address), "0x2", "0x9"],
    ]);
    assertEquals(
      BigInt(await node.call<string>("eth_getBalance", [OTHER, "latest"])),
      balanceAtOne + 100n + 7n + 9n,
    );
    // The replaced blocks' transactions are gone, and not back in the pool.
    for (const h of old.slice(1)) assertEquals(await node.call("eth_getTransactionByHash", [h]), null);
    assertEquals(node.engine.pool.size, 0);
    // A snapshot taken on a replaced block is gone.
    assertEquals(await node.call("evm_revert", [snapshot]), false);
  }));

Deno.test("anvil_reorg without transactions: empty blocks; depth 0 changes nothing", () =>
  withNode(async (node) => {
    await threeBlocks(node);
    const head = await block(node, 3);
    assertEquals(await node.call("anvil_reorg", [0, []]), null);
    assertEquals((await block(node, 3)).hash, head.hash);
    assertEquals(await node.call("anvil_reorg", ["0x3"]), null);
    assertEquals(node.engine.head().header.number, 3n);
    for (const n of [1, 2, 3]) assertEquals((await userTxs(node, n)).length, 0);
    assertEquals(await node.call("eth_getTransactionCount", [bytesToHex(DEV.address), "latest"]), "0x0");
  }));

Deno.test("anvil_reorg refuses bad input with anvil's messages and leaves the chain as it was", () =>
  withNode(async (node) => {
    await threeBlocks(node);
    const head = bytesToHex(node.engine.head().hash);
    const cases: [unknown[], RegExp][] = [
      [[4, []], /^Reorg depth must not exceed current chain height: current height 3, depth 4$/],
      [
        [2, [[{ to: OTHER }, 2]]],
        /^Block number for reorg tx will exceed the reorged chain height. Block number 2 must not exceed \(depth-1\) 1$/,
      ],
      [[2, [["0x02f8", 0]]], /^Failed to decode transaction$/],
      [[2, [["0xzz", 0]]], /raw transaction must be 0x-prefixed hex/],
      [[2, [[{ to: OTHER }]]], /want \[transaction, block index\]/],
      [[2, [[{ to: "0x12" }, 0]]], /invalid transaction/],
      [[2, {}], /want an array/],
      [[], /missing value/],
    ];
    for (const [params, message] of cases) {
      const err = await node.error("anvil_reorg", params);
      assertEquals(err.code, -32602, JSON.stringify(params));
      assert(message.test(err.message), `${JSON.stringify(params)}: ${err.message}`);
      assertEquals(bytesToHex(node.engine.head().hash), head);
    }
    // A request from an account the node holds no key for, not impersonated.
    const err = await node.error("anvil_reorg", [1, [[{ from: OTHER, to: bytesToHex(DEV.address) }, 0]]]);
    assert(/unknown account/.test(err.message), err.message);
    assertEquals(bytesToHex(node.engine.head().hash), head);
  }));
