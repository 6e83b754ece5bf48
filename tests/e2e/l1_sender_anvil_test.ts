/**
 * The L1 transaction sender of the batcher and proposer (batcher/l1_sender.ts) against anvil: a
 * transaction the L1 node drops while the sender waits for its receipt (as an L1 reorg does to the
 * transactions of the blocks it takes away, on a node that does not keep them) is published again.
 */
import { hexToBytes } from "../../lib/common/bytes.ts";
import { JsonRpcClient } from "../../lib/common/json_rpc_client.ts";
import { L1TxSender } from "../../lib/batcher/l1_sender.ts";
import { assert, assertEquals } from "../assert.ts";
import { isErrorCode } from "../../lib/common/errors.ts";
import { anvilForTest, DEV_PRIVATE_KEY, startAnvil } from "./helpers/mod.ts";

const tool = await anvilForTest("l1_sender_anvil_test");

async function pendingHashes(rpc: JsonRpcClient): Promise<string[]> {
  const content = await rpc.call<{ pending: Record<string, Record<string, { hash: string }>> }>(
    "txpool_content",
  );
  return Object.values(content.pending).flatMap((byNonce) => Object.values(byNonce).map((t) => t.hash));
}

async function until<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test({
  name: "L1 sender: a transaction the L1 node dropped is published again and mined",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--no-mining"]);
    try {
      const rpc = new JsonRpcClient(anvil.url);
      const sender = new L1TxSender(rpc, 31337n, hexToBytes(DEV_PRIVATE_KEY));
      const sent = sender.send(new Uint8Array(20).fill(0x11), new Uint8Array([1, 2, 3]), "test transaction", {
        timeoutMs: 20_000,
      });
      const [hash] = await until("the transaction in the pool", async () => {
        const h = await pendingHashes(rpc);
        return h.length > 0 ? h : undefined;
      });
      assertEquals(await rpc.call("anvil_dropTransaction", [hash]), hash);
      assertEquals(await pendingHashes(rpc), []);
      // Published again within the sender's look-again interval; then mined.
      await until(
        "the transaction back in the pool",
        async () => (await pendingHashes(rpc)).includes(hash) || undefined,
      );
      await rpc.call("evm_mine", []);
      const { hash: mined, block } = await sent;
      assertEquals(mined, hash);
      assertEquals(block.number, 1n);
    } finally {
      await anvil.stop();
    }
  },
});

Deno.test({
  name: "L1 sender: a transaction left behind a nonce gap by an L1 reorg ends with L1_TX_DROPPED",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--no-mining"]);
    try {
      const rpc = new JsonRpcClient(anvil.url);
      const sender = new L1TxSender(rpc, 31337n, hexToBytes(DEV_PRIVATE_KEY));
      const to = new Uint8Array(20).fill(0x11);
      const snapshot = await rpc.call<string>("evm_snapshot", []);
      // The first transaction (nonce 0) is mined, the second (nonce 1) waits in the pool...
      const first = sender.send(to, new Uint8Array([1]), "first", { timeoutMs: 20_000 });
      await until(
        "the first transaction in the pool",
        async () => (await pendingHashes(rpc)).length > 0 || undefined,
      );
      await rpc.call("evm_mine", []);
      await first;
      const started = Date.now();
      const second = sender.send(to, new Uint8Array([2]), "second", { timeoutMs: 20_000 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      await until(
        "the second transaction in the pool",
        async () => (await pendingHashes(rpc)).length > 0 || undefined,
      );
      // ... when the reorg takes the first one's block: the account's nonce is 0 again, the second can
      // never be mined. The sender gives up long before its timeout.
      assertEquals(await rpc.call("evm_revert", [snapshot]), true);
      const err = await second;
      assert(isErrorCode(err, "L1_TX_DROPPED"), String(err));
      assert(/nonce gap/.test((err as Error).message), (err as Error).message);
      assert(Date.now() - started < 15_000, `${Date.now() - started} ms`);
    } finally {
      await anvil.stop();
    }
  },
});
