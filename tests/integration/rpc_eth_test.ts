/**
 * The eth/net/web3/txpool namespaces behind the real RPC server on 127.0.0.1, driven by viem
 * unchanged (ethers runs in tests/e2e, against a real process): reads, a signed transfer through eth_sendRawTransaction, receipts, logs,
 * eth_call reverts as the clients decode them, estimateGas.
 */
import { createPublicClient, http } from "viem";
import { optimism } from "viem/chains";
import { bytesToHex } from "../../lib/common/mod.ts";
import { DEFAULT_RPC_LIMITS, RpcServer } from "../../lib/rpc/mod.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { A, B, C, createDeployed, ETHER, LOG_TOPIC } from "../unit/execution/rpc/fixture.ts";

const hex = bytesToHex;

async function withServer(fn: (url: string, d: Awaited<ReturnType<typeof createDeployed>>) => Promise<void>) {
  const d = await createDeployed();
  const server = new RpcServer({
    endpoints: [{
      name: "http",
      addr: "127.0.0.1",
      port: 0,
      http: true,
      ws: false,
      namespaces: ["eth", "net", "web3", "txpool"],
      corsDomains: [],
      vhosts: ["*"],
    }],
    limits: DEFAULT_RPC_LIMITS,
    version: "test",
  }, { registry: d.fixture.registry });
  await server.start();
  try {
    await fn(server.url("http"), d);
  } finally {
    await server.stop();
    d.fixture.filters.close();
  }
}

Deno.test("viem: public actions against the eth namespace", async () => {
  await withServer(async (url, d) => {
    // viem's OP-stack formatters (deposit transactions, L1 fee receipt fields).
    const chain = { ...optimism, id: 901 };
    const client = createPublicClient({ chain, transport: http(url, { retryCount: 0 }) });
    assertEquals(await client.getChainId(), 901);
    assertEquals(await client.getBlockNumber(), 2n);
    const block = await client.getBlock({ blockNumber: 1n, includeTransactions: true });
    assertEquals(block.hash, hex(d.block1.hash));
    assertEquals(block.transactions.length, 5);
    const deposit = block.transactions[0] as unknown as Record<string, unknown>;
    assertEquals(deposit.type, "deposit");
    assertEquals(deposit.sourceHash, hex(d.deposit.sourceHash));
    assertEquals(deposit.mint, 5n * ETHER);
    const receipt = await client.getTransactionReceipt({ hash: hex(d.block1.results[1].txHash) });
    assertEquals(receipt.status, "success");
    assertEquals(receipt.gasUsed, 21000n);
    assert((receipt as unknown as { l1Fee: bigint }).l1Fee > 0n);
    const balance = await client.getBalance({ address: hex(B.address), blockNumber: 1n });
    assert(balance > 10_000n * ETHER);
    const logs = await client.getLogs({ address: hex(d.logger), fromBlock: 0n, toBlock: "latest" });
    assertEquals(logs.length, 1);
    assertEquals(logs[0].topics[0], hex(LOG_TOPIC));
    const gas = await client.estimateGas({ account: hex(A.address), to: hex(B.address), value: 1n });
    assertEquals(gas, 21000n);
    const fees = await client.estimateFeesPerGas();
    assert(fees.maxFeePerGas! > fees.maxPriorityFeePerGas!);
    const err = await assertRejects(() => client.call({ to: hex(d.reverter) }));
    assert(String((err as Error).message).includes("nope"), (err as Error).message);
    const pending = await client.getTransactionCount({ address: hex(C.address), blockTag: "pending" });
    assertEquals(pending, 1);
  });
});

Deno.test("viem: a sent transfer is pending, then mined with its receipt; a batch of 100 over HTTP", async () => {
  await withServer(async (url, d) => {
    const client = createPublicClient({ transport: http(url, { retryCount: 0 }) });
    const f = d.fixture;
    const tx = f.sign(A, 6n, { to: C.address, value: 777n, gas: 21_000n });
    const hash = await client.sendRawTransaction({ serializedTransaction: hex(tx.serialize()) });
    assertEquals(hash, hex(tx.hash()));
    const pooled = await client.getTransaction({ hash });
    assertEquals(pooled.blockNumber, null);
    await f.mine([tx]);
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
    assertEquals(receipt.status, "success");
    assertEquals(receipt.blockNumber, 3n);
    const batch = Array.from({ length: 100 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "eth_getBalance",
      params: [hex(B.address), "latest"],
    }));
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(batch),
    });
    const answers = await res.json() as { id: number; result: string }[];
    assertEquals(answers.length, 100);
    assertEquals(new Set(answers.map((a) => a.result)).size, 1);
    assertEquals(await client.request({ method: "net_version" as never }), "901");
  });
});
