/**
 * ethers v6, unchanged, against a real `keel execution --dev` (issue 4, "Tested with real
 * clients"): JsonRpcProvider, Wallet, ContractFactory deploy, contract calls and event queries,
 * `tx.wait()`, and WebSocketProvider `on("block")` (eth_subscribe newHeads).
 */
import { Contract, ContractFactory, JsonRpcProvider, Wallet, WebSocketProvider } from "ethers";
import { assert, assertEquals } from "../assert.ts";
import {
  BENCH_TOKEN_ABI,
  BENCH_TOKEN_BYTECODE,
  BENCH_TOKEN_SUPPLY,
  DEV_ADDRESS,
  DEV_ADDRESS_1,
  DEV_CHAIN_ID,
  DEV_PRIVATE_KEY,
  startKeelExecution,
} from "./helpers/mod.ts";

Deno.test({
  name: "ethers v6 drives keel execution --dev unchanged",
  // ethers keeps internal timers (network detection, polling) beyond our control; we destroy
  // the providers and stop the node ourselves.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const node = await startKeelExecution();
    // cacheTimeout -1: no 250 ms response cache, so back-to-back sends read a fresh pending nonce.
    const provider = new JsonRpcProvider(node.httpUrl, undefined, { cacheTimeout: -1 });
    provider.pollingInterval = 100;
    try {
      const wallet = new Wallet(DEV_PRIVATE_KEY, provider);

      await t.step("provider: network, head, balance, fee data", async () => {
        assertEquals((await provider.getNetwork()).chainId, BigInt(DEV_CHAIN_ID));
        const n = await provider.getBlockNumber();
        assert(Number.isInteger(n) && n >= 0);
        assert((await provider.getBalance(DEV_ADDRESS)) > 10n ** 21n);
        const fee = await provider.getFeeData();
        assert(fee.maxFeePerGas !== null && fee.maxFeePerGas > 0n, `maxFeePerGas ${fee.maxFeePerGas}`);
        assert(fee.gasPrice !== null && fee.gasPrice > 0n);
        const block = await provider.getBlock("latest");
        assertEquals(block?.number, await provider.getBlockNumber());
        assertEquals(await wallet.getAddress(), DEV_ADDRESS);
      });

      await t.step("wallet: sendTransaction and tx.wait()", async () => {
        const before = await provider.getBalance(DEV_ADDRESS_1);
        const tx = await wallet.sendTransaction({ to: DEV_ADDRESS_1, value: 777n });
        const receipt = await tx.wait();
        assert(receipt !== null);
        assertEquals(receipt.status, 1);
        assertEquals(receipt.hash, tx.hash);
        assertEquals(receipt.gasUsed, 21000n);
        assertEquals(await provider.getBalance(DEV_ADDRESS_1), before + 777n);
        const fetched = await provider.getTransaction(tx.hash);
        assertEquals(fetched?.value, 777n);
        assertEquals(fetched?.blockHash, receipt.blockHash);
        const block = await provider.getBlock(receipt.blockNumber, true);
        assert(block?.prefetchedTransactions.some((x) => x.hash === tx.hash));
      });

      await t.step("ContractFactory deploy, calls, transfer, event query", async () => {
        const factory = new ContractFactory(BENCH_TOKEN_ABI, BENCH_TOKEN_BYTECODE, wallet);
        const deployed = await factory.deploy();
        await deployed.waitForDeployment();
        const address = await deployed.getAddress();
        assert((await provider.getCode(address)).length > 100);
        const token = new Contract(address, BENCH_TOKEN_ABI, wallet);
        assertEquals(await token.balanceOf(DEV_ADDRESS), BENCH_TOKEN_SUPPLY);
        const tx = await token.transfer(DEV_ADDRESS_1, 9n);
        const receipt = await tx.wait();
        assertEquals(receipt.status, 1);
        assertEquals(receipt.logs.length, 1);
        assertEquals(await token.balanceOf(DEV_ADDRESS_1), 9n);
        const all = await token.queryFilter(token.filters.Transfer(), 0, "latest");
        assertEquals(all.length, 2);
        const toOne = await token.queryFilter(token.filters.Transfer(null, DEV_ADDRESS_1));
        assertEquals(toOne.length, 1);
        const ev = toOne[0] as unknown as { args: unknown[]; transactionHash: string };
        assertEquals([...ev.args], [DEV_ADDRESS, DEV_ADDRESS_1, 9n]);
        assertEquals(ev.transactionHash, tx.hash);
        // A static call of a failing transfer reverts (require without a reason).
        let reverted = false;
        try {
          await token.transfer.staticCall(DEV_ADDRESS_1, BENCH_TOKEN_SUPPLY * 2n);
        } catch (err) {
          reverted = (err as { code?: string }).code === "CALL_EXCEPTION";
        }
        assert(reverted, "a transfer beyond the balance must revert with CALL_EXCEPTION");
      });

      await t.step("WebSocketProvider on('block')", async () => {
        const ws = new WebSocketProvider(node.wsUrl);
        try {
          assertEquals((await ws.getNetwork()).chainId, BigInt(DEV_CHAIN_ID));
          const seen = Promise.withResolvers<number>();
          const timer = setTimeout(
            () => seen.reject(new Error("no block over WebSocket within 30 s")),
            30_000,
          );
          await ws.on("block", (n: number) => seen.resolve(n));
          await new Promise((r) => setTimeout(r, 500));
          const tx = await wallet.sendTransaction({ to: DEV_ADDRESS_1, value: 1n });
          const receipt = await tx.wait();
          const n = await seen.promise;
          clearTimeout(timer);
          assert(n <= receipt!.blockNumber, `block ${n} after ${receipt!.blockNumber}`);
        } finally {
          await ws.destroy();
        }
      });
    } finally {
      provider.destroy();
      await node.stop();
    }
  },
});
