/**
 * The sequencer's DA limits (op-batcher's throttling through miner_setMaxDASize; op-geth miner
 * commitTransactions and its pool's MaxDATxSize filter) over a real dev node: a pool transaction
 * estimated over the per-transaction limit waits with its sender's later ones, the block limit caps the
 * pool transactions' estimates together, 0 lifts a limit, and the miner method sets them.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex } from "../../../../lib/common/bytes.ts";
import { estimatedTxDaSize } from "../../../../lib/execution/engine/mod.ts";
import { forkRules } from "../../../../lib/execution/evm/mod.ts";
import { deriveDevAccounts } from "../../../../lib/execution/genesis/mod.ts";
import { minerNamespace } from "../../../../lib/execution/rpc/mod.ts";
import {
  DEFAULT_ENVELOPE_LIMITS,
  handleRpcValue,
  MethodRegistry,
  NOOP_LOGGER,
} from "../../../../lib/rpc/mod.ts";
import { assert, assertEquals } from "../../../assert.ts";
import { GWEI, type Node, OTHER, withNode } from "../rpc/dev/dev_node.ts";

const [DEV, SECOND] = deriveDevAccounts(2);

/** A signed transaction of `key`'s with `size` bytes of incompressible calldata. */
function withData(node: Node, key: Uint8Array, nonce: bigint, size: number) {
  const head = node.engine.head().header;
  const common = forkRules(node.engine.config, head.timestamp + 1n).common;
  const data = new Uint8Array(size);
  for (let i = 0; i < size; i += 65_536) crypto.getRandomValues(data.subarray(i, Math.min(size, i + 65_536)));
  return createFeeMarket1559Tx({
    chainId: node.engine.config.chainId,
    nonce,
    to: OTHER,
    gasLimit: 21_000n + 40n * BigInt(size),
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
    data,
  }, { common }).sign(key);
}

/** Sends the transactions, mines one block, and answers the hashes of its pool transactions. */
async function mineWith(node: Node, txs: Uint8Array[]): Promise<string[]> {
  for (const raw of txs) await node.call("eth_sendRawTransaction", [bytesToHex(raw)]);
  await node.call("evm_mine");
  const block = await node.call<{ transactions: { hash: string; type: string }[] }>(
    "eth_getBlockByNumber",
    ["latest", true],
  );
  return block.transactions.filter((t) => t.type !== "0x7e").map((t) => t.hash);
}

Deno.test("DA limits: a transaction over the per-transaction limit waits, with its sender's later ones", () =>
  withNode(async (node) => {
    await node.call("evm_setAutomine", [false]);
    const a = withData(node, DEV.privateKey, 0n, 10);
    const b = withData(node, DEV.privateKey, 1n, 2_000);
    const c = withData(node, DEV.privateKey, 2n, 10);
    const d = withData(node, SECOND.privateKey, 0n, 10);
    assert(estimatedTxDaSize(b) > 1_000n && estimatedTxDaSize(a) < 200n, `${estimatedTxDaSize(b)}`);
    node.engine.daLimits.maxTxSize = 500n;
    const first = await mineWith(node, [a, b, c, d].map((t) => t.serialize()));
    assertEquals(first.sort(), [a, d].map((t) => bytesToHex(t.hash())).sort());
    // 0 lifts the limit: the held-back transactions go in.
    node.engine.daLimits.maxTxSize = 0n;
    assertEquals(await mineWith(node, []), [b, c].map((t) => bytesToHex(t.hash())));
  }));

Deno.test("DA limits: the block limit caps the pool transactions' estimates together", () =>
  withNode(async (node) => {
    await node.call("evm_setAutomine", [false]);
    const txs = [0n, 1n, 2n].map((n) => withData(node, DEV.privateKey, n, 600));
    const sizes = txs.map(estimatedTxDaSize);
    // Room for two of the three.
    node.engine.daLimits.maxBlockSize = sizes[0] + sizes[1] + sizes[2] - 1n;
    const first = await mineWith(node, txs.map((t) => t.serialize()));
    assertEquals(first, txs.slice(0, 2).map((t) => bytesToHex(t.hash())));
    // Below the smallest transaction's estimate: no pool transaction at all (the deposit still goes in).
    node.engine.daLimits.maxBlockSize = 99n;
    assertEquals(await mineWith(node, []), []);
    const head = await node.call<{ transactions: string[] }>("eth_getBlockByNumber", ["latest", false]);
    assertEquals(head.transactions.length, 1, "the L1-info deposit");
    node.engine.daLimits.maxBlockSize = 0n;
    assertEquals(await mineWith(node, []), [bytesToHex(txs[2].hash())]);
  }));

Deno.test("miner_setMaxDASize sets the engine's DA limits and answers true (0 lifts them)", async () => {
  const limits = { daLimits: { maxTxSize: 0n, maxBlockSize: 0n } };
  const dispatch = {
    registry: new MethodRegistry([minerNamespace(limits)]),
    limits: DEFAULT_ENVELOPE_LIMITS,
    logger: NOOP_LOGGER,
  };
  const call = async (params: unknown[]) =>
    JSON.parse(
      (await handleRpcValue({ jsonrpc: "2.0", id: 1, method: "miner_setMaxDASize", params }, dispatch))!,
    );
  assertEquals((await call(["0x3e8", "0x1fbd0"])).result, true);
  assertEquals(limits.daLimits, { maxTxSize: 1000n, maxBlockSize: 130_000n });
  assertEquals((await call(["0x0", "0x0"])).result, true);
  assertEquals(limits.daLimits, { maxTxSize: 0n, maxBlockSize: 0n });
  assertEquals((await call(["0x1"])).error.code, -32602);
  assertEquals((await call(["-1", "0x0"])).error.code, -32602);
});
