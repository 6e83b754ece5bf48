/**
 * viem, unchanged, against a real `keel execution --dev` (issue 4, "Tested with real clients"):
 * public and wallet actions, a contract's deploy/read/write/events, simulateBlocks and simulateCalls
 * (eth_simulateV1), watchBlocks and
 * watchContractEvent over WebSocket (eth_subscribe newHeads / logs), and viem/op-stack's L2
 * actions and deposit formatters.
 */
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  keccak256,
  pad,
  webSocket,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { chainConfig, publicActionsL2 } from "viem/op-stack";
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

/** The L1 attributes depositor (specs/protocol/deposits.md, "L1 Attributes Deposited Transaction"). */
const L1_INFO_DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";

function waitFor<T>(what: string, ms: number, start: (done: (v: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    start((v) => {
      clearTimeout(timer);
      resolve(v);
    });
  });
}

Deno.test({
  name: "viem drives keel execution --dev unchanged",
  // viem keeps internal timers (request dedupe, socket keep-alive) beyond our control; we stop
  // the node and close the WebSocket ourselves.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const node = await startKeelExecution();
    try {
      const keelDev = defineChain({
        ...chainConfig,
        id: DEV_CHAIN_ID,
        name: "keel dev",
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [node.httpUrl], webSocket: [node.wsUrl] } },
      });
      const account = privateKeyToAccount(DEV_PRIVATE_KEY);
      const client = createPublicClient({ chain: keelDev, transport: http(node.httpUrl) }).extend(
        publicActionsL2(),
      );
      const wallet = createWalletClient({ account, chain: keelDev, transport: http(node.httpUrl) });

      await t.step("public actions: chain id, head, balance, nonce, fees", async () => {
        assertEquals(await client.getChainId(), DEV_CHAIN_ID);
        const n = await client.getBlockNumber();
        assertEquals(typeof n, "bigint");
        assert((await client.getBalance({ address: DEV_ADDRESS })) > 10n ** 21n);
        assertEquals(typeof (await client.getTransactionCount({ address: DEV_ADDRESS })), "number");
        const gasPrice = await client.getGasPrice();
        assert(gasPrice > 0n, `gas price ${gasPrice}`);
        const fees = await client.estimateFeesPerGas();
        assert(fees.maxFeePerGas >= fees.maxPriorityFeePerGas && fees.maxPriorityFeePerGas > 0n);
        const latest = await client.getBlock();
        assertEquals(latest.number, await client.getBlockNumber());
        assert(latest.baseFeePerGas !== null && latest.baseFeePerGas > 0n);
      });

      let transferHash: `0x${string}` = "0x";
      await t.step("wallet: sendTransaction, receipt, transaction, block, fee history", async () => {
        const before = await client.getBalance({ address: DEV_ADDRESS_1 });
        transferHash = await wallet.sendTransaction({ to: DEV_ADDRESS_1, value: 12345n });
        const receipt = await client.waitForTransactionReceipt({ hash: transferHash, pollingInterval: 100 });
        assertEquals(receipt.status, "success");
        assertEquals(receipt.from, DEV_ADDRESS.toLowerCase());
        assertEquals(receipt.to, DEV_ADDRESS_1.toLowerCase());
        assertEquals(receipt.gasUsed, 21000n);
        assertEquals(receipt.type, "eip1559");
        // OP receipt fields through viem's op-stack formatter.
        const opReceipt = receipt as typeof receipt & { l1Fee?: bigint | null; l1GasUsed?: bigint | null };
        assertEquals(typeof opReceipt.l1Fee, "bigint");
        assertEquals(typeof opReceipt.l1GasUsed, "bigint");
        assertEquals(await client.getBalance({ address: DEV_ADDRESS_1 }), before + 12345n);
        const tx = await client.getTransaction({ hash: transferHash });
        assertEquals(tx.hash, transferHash);
        assertEquals(tx.value, 12345n);
        assertEquals(tx.blockHash, receipt.blockHash);
        assertEquals(tx.from, DEV_ADDRESS.toLowerCase());
        const block = await client.getBlock({ blockNumber: receipt.blockNumber, includeTransactions: true });
        assertEquals(block.hash, receipt.blockHash);
        assert(block.transactions.some((x) => x.hash === transferHash));
        const history = await client.getFeeHistory({ blockCount: 2, rewardPercentiles: [25, 75] });
        assertEquals(history.baseFeePerGas.length, 3);
        assertEquals(history.reward?.length, 2);
        assertEquals(history.reward?.[0].length, 2);
      });

      await t.step(
        "wallet: sendTransactionSync (eth_sendRawTransactionSync, EIP-7966) answers the receipt",
        async () => {
          const receipt = await wallet.sendTransactionSync({
            to: DEV_ADDRESS_1,
            value: 777n,
            timeout: 10_000,
          });
          assertEquals(receipt.status, "success");
          assertEquals(receipt.to, DEV_ADDRESS_1.toLowerCase());
          const again = await client.getTransactionReceipt({ hash: receipt.transactionHash });
          assertEquals(again.blockHash, receipt.blockHash);
        },
      );

      let token: `0x${string}` = "0x";
      await t.step("contract: deploy, read, write, events, call, estimateGas, storage, proof", async () => {
        const deployHash = await wallet.deployContract({
          abi: BENCH_TOKEN_ABI,
          bytecode: BENCH_TOKEN_BYTECODE,
        });
        const deployed = await client.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 100 });
        assertEquals(deployed.status, "success");
        assert(deployed.contractAddress, "receipt has contractAddress");
        token = deployed.contractAddress!;
        const code = await client.getCode({ address: token });
        assert(code !== undefined && code.length > 100, `code ${code}`);
        assertEquals(
          await client.readContract({
            address: token,
            abi: BENCH_TOKEN_ABI,
            functionName: "balanceOf",
            args: [DEV_ADDRESS],
          }),
          BENCH_TOKEN_SUPPLY,
        );
        const { request } = await client.simulateContract({
          account,
          address: token,
          abi: BENCH_TOKEN_ABI,
          functionName: "transfer",
          args: [DEV_ADDRESS_1, 5n],
        });
        const writeHash = await wallet.writeContract(request);
        const written = await client.waitForTransactionReceipt({ hash: writeHash, pollingInterval: 100 });
        assertEquals(written.status, "success");
        assertEquals(written.logs.length, 1);
        assertEquals(
          await client.readContract({
            address: token,
            abi: BENCH_TOKEN_ABI,
            functionName: "balanceOf",
            args: [DEV_ADDRESS_1],
          }),
          5n,
        );
        const events = await client.getContractEvents({
          address: token,
          abi: BENCH_TOKEN_ABI,
          eventName: "Transfer",
          fromBlock: 0n,
        });
        assertEquals(events.length, 2);
        assertEquals(events[1].args, { from: DEV_ADDRESS, to: DEV_ADDRESS_1, value: 5n });
        const filtered = await client.getLogs({
          address: token,
          event: BENCH_TOKEN_ABI[2],
          args: { to: DEV_ADDRESS_1 },
          fromBlock: 0n,
          toBlock: "latest",
        });
        assertEquals(filtered.length, 1);
        assertEquals(filtered[0].transactionHash, writeHash);
        const data = encodeFunctionData({
          abi: BENCH_TOKEN_ABI,
          functionName: "balanceOf",
          args: [DEV_ADDRESS_1],
        });
        assertEquals((await client.call({ to: token, data })).data, pad("0x05"));
        const gas = await client.estimateGas({
          account,
          to: token,
          data: encodeFunctionData({
            abi: BENCH_TOKEN_ABI,
            functionName: "transfer",
            args: [DEV_ADDRESS_1, 1n],
          }),
        });
        assert(gas > 21000n && gas < 100000n, `estimateGas ${gas}`);
        // balanceOf is mapping slot 0: keccak256(pad(address) ++ pad(0)).
        const slot = keccak256(`${pad(DEV_ADDRESS_1)}${pad("0x0").slice(2)}` as `0x${string}`);
        assertEquals(await client.getStorageAt({ address: token, slot }), pad("0x05"));
        const proof = await client.getProof({ address: token, storageKeys: [slot] });
        assertEquals(proof.storageProof[0].value, 5n);
        assert(proof.accountProof.length > 0 && proof.storageProof[0].proof.length > 0);
        assertEquals(proof.codeHash, keccak256(code!));
      });

      await t.step("eth_simulateV1: simulateBlocks and simulateCalls", async () => {
        // (viem caches eth_blockNumber for a polling interval.)
        const head = await client.getBlockNumber({ cacheTime: 0 });
        const [first, second] = await client.simulateBlocks({
          blocks: [
            {
              calls: [{
                account: DEV_ADDRESS,
                to: token,
                abi: BENCH_TOKEN_ABI,
                functionName: "transfer",
                args: [DEV_ADDRESS_1, 7n],
              }],
            },
            {
              calls: [{ to: token, abi: BENCH_TOKEN_ABI, functionName: "balanceOf", args: [DEV_ADDRESS_1] }],
            },
          ],
        });
        assertEquals(first.number, head + 1n);
        assertEquals(second.parentHash, first.hash);
        assertEquals(first.calls[0].status, "success");
        assertEquals(first.calls[0].logs?.length, 1);
        // The second block sees the first one's transfer (5 from the real one before, 7 simulated)...
        assertEquals(second.calls[0].result, 12n);
        // ... and nothing reached the chain.
        assertEquals(await client.getBlockNumber({ cacheTime: 0 }), head);
        assertEquals(
          await client.readContract({
            address: token,
            abi: BENCH_TOKEN_ABI,
            functionName: "balanceOf",
            args: [DEV_ADDRESS_1],
          }),
          5n,
        );
        const { results } = await client.simulateCalls({
          account: DEV_ADDRESS,
          calls: [
            { to: DEV_ADDRESS_1, value: 1n },
            { to: token, abi: BENCH_TOKEN_ABI, functionName: "transfer", args: [DEV_ADDRESS_1, 10n ** 40n] },
          ],
        });
        assertEquals(results.map((r) => r.status), ["success", "failure"]);
      });

      await t.step(
        "EIP-7702: estimateGas and sendTransaction with an authorizationList from the node's account",
        async () => {
          // The authority is a fresh key; the node's account (JSON-RPC, eth_sendTransaction) sponsors.
          const eoa = privateKeyToAccount(generatePrivateKey());
          const auth = await eoa.signAuthorization({ chainId: DEV_CHAIN_ID, address: token, nonce: 0 });
          // A call the token's code answers (it has no fallback).
          const data = encodeFunctionData({
            abi: BENCH_TOKEN_ABI,
            functionName: "balanceOf",
            args: [eoa.address],
          });
          const gas = await client.estimateGas({
            account: DEV_ADDRESS,
            to: eoa.address,
            data,
            authorizationList: [auth],
          });
          assert(gas >= 46_000n, `estimate ${gas}`);
          const rpcWallet = createWalletClient({
            account: DEV_ADDRESS,
            chain: keelDev,
            transport: http(node.httpUrl),
          });
          const hash = await rpcWallet.sendTransaction({ to: eoa.address, data, authorizationList: [auth] });
          const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
          assertEquals(receipt.status, "success");
          assertEquals(receipt.type, "eip7702");
          assertEquals(
            await client.getCode({ address: eoa.address }),
            `0xef0100${token.slice(2).toLowerCase()}`,
          );
          // The delegated account answers as the token: its own (empty) balance of itself.
          assertEquals(
            await client.readContract({
              address: eoa.address,
              abi: BENCH_TOKEN_ABI,
              functionName: "balanceOf",
              args: [eoa.address],
            }),
            0n,
          );
        },
      );

      await t.step("WebSocket: watchBlocks and watchContractEvent (eth_subscribe)", async () => {
        const wsClient = createPublicClient({ chain: keelDev, transport: webSocket(node.wsUrl) });
        try {
          let unwatchBlocks = () => {};
          let unwatchEvents = () => {};
          const block = waitFor<bigint>("a block over WebSocket", 30_000, (done) => {
            unwatchBlocks = wsClient.watchBlocks({ onBlock: (b) => done(b.number!) });
          });
          const logs = waitFor<unknown[]>("a Transfer event over WebSocket", 30_000, (done) => {
            unwatchEvents = wsClient.watchContractEvent({
              address: token,
              abi: BENCH_TOKEN_ABI,
              eventName: "Transfer",
              onLogs: (l) => done(l.map((x) => x.args)),
            });
          });
          // Let both eth_subscribe calls land before the block they should see.
          await new Promise((r) => setTimeout(r, 500));
          const hash = await wallet.writeContract({
            address: token,
            abi: BENCH_TOKEN_ABI,
            functionName: "transfer",
            args: [DEV_ADDRESS_1, 7n],
          });
          const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
          assert((await block) <= receipt.blockNumber);
          assertEquals(await logs, [{ from: DEV_ADDRESS, to: DEV_ADDRESS_1, value: 7n }]);
          unwatchBlocks();
          unwatchEvents();
        } finally {
          const rpc = await (wsClient.transport as unknown as { getRpcClient(): Promise<{ close(): void }> })
            .getRpcClient();
          rpc.close();
        }
      });

      const feeRequest = { account, to: DEV_ADDRESS_1, value: 1n, chain: keelDev } as const;
      await t.step("viem/op-stack: getL1BaseFee, estimateL1Fee, estimateL1Gas", async () => {
        assertEquals(typeof (await client.getL1BaseFee()), "bigint");
        assertEquals(typeof (await client.estimateL1Fee(feeRequest)), "bigint");
        const l1Gas = await client.estimateL1Gas(feeRequest);
        assert(l1Gas > 0n, `l1 gas ${l1Gas}`);
      });

      await t.step(
        "viem/op-stack: estimateTotalFee (GasPriceOracle.getOperatorFee since Isthmus)",
        async () => {
          const l1Fee = await client.estimateL1Fee(feeRequest);
          const total = await client.estimateTotalFee(feeRequest);
          assert(total > l1Fee, `total ${total} vs l1 fee ${l1Fee}`);
        },
      );

      await t.step("viem/op-stack: deposit transaction and receipt formatters", async () => {
        // Every OP block starts with the L1 attributes deposit.
        const block = await client.getBlock({ blockNumber: 1n, includeTransactions: true });
        const deposit = block.transactions[0] as unknown as Record<string, unknown>;
        assertEquals(deposit.type, "deposit");
        assertEquals(deposit.typeHex, "0x7e");
        assertEquals((deposit.from as string).toLowerCase(), L1_INFO_DEPOSITOR);
        assertEquals((deposit.sourceHash as string).length, 66);
        // Since Regolith the L1 info deposit is not a system tx; op-geth omits a false isSystemTx and a nil mint.
        assert(
          deposit.isSystemTx === false || deposit.isSystemTx === undefined,
          `isSystemTx ${deposit.isSystemTx}`,
        );
        assertEquals(deposit.mint, undefined);
        const depositReceipt = await client.getTransactionReceipt({ hash: deposit.hash as `0x${string}` });
        assertEquals(depositReceipt.status, "success");
        // viem's receipt formatter keeps an unknown type as its hex.
        assertEquals(depositReceipt.type as string, "0x7e");
        const opReceipt = depositReceipt as typeof depositReceipt & { depositNonce?: unknown };
        assertEquals(typeof opReceipt.depositNonce, "bigint");
      });
    } finally {
      await node.stop();
    }
  },
});
