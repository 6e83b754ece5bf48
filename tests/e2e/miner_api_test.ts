/**
 * `--http.api miner` on `keel execution`: op-batcher's throttling call, miner_setMaxDASize, reaches the
 * block builder (a transaction over the per-transaction DA limit waits in the pool until the limit is
 * lifted), and the namespace is not served unless asked for.
 */
import { assertEquals } from "../assert.ts";
import { DEV_ADDRESS, rpcCall, rpcResult, startKeelExecution } from "./helpers/mod.ts";

Deno.test({
  name: "miner_setMaxDASize over HTTP: a transaction over the limit waits until it is lifted",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const node = await startKeelExecution({ ws: false, args: ["--http.api=eth,net,web3,miner"] });
    try {
      const url = node.httpUrl;
      assertEquals(await rpcResult(url, "miner_setMaxDASize", ["0x96", "0x0"]), true);
      // 1,000 bytes of calldata that does not compress: estimated far above 150 bytes.
      const data = "0x" +
        Array.from(crypto.getRandomValues(new Uint8Array(1_000)), (b) => b.toString(16).padStart(2, "0"))
          .join("");
      const big = await rpcResult(url, "eth_sendTransaction", [{ from: DEV_ADDRESS, to: DEV_ADDRESS, data }]);
      await rpcResult(url, "evm_mine");
      assertEquals(await rpcResult(url, "eth_getTransactionReceipt", [big]), null);
      assertEquals(await rpcResult(url, "miner_setMaxDASize", [0, 0]).catch(() => "refused"), "refused");
      assertEquals(await rpcResult(url, "miner_setMaxDASize", ["0x0", "0x0"]), true);
      await rpcResult(url, "evm_mine");
      const receipt = await rpcResult(url, "eth_getTransactionReceipt", [big]);
      assertEquals(receipt?.status, "0x1");
    } catch (e) {
      console.error(node.output().slice(-4000));
      throw e;
    } finally {
      await node.stop();
    }
    const plain = await startKeelExecution({ ws: false });
    try {
      const body = await rpcCall(plain.httpUrl, "miner_setMaxDASize", ["0x0", "0x0"]) as {
        error: { code: number };
      };
      assertEquals(body.error.code, -32601);
    } finally {
      await plain.stop();
    }
  },
});
