import { assertEquals } from "../../../assert.ts";
import { JsonRpcClient } from "../../../../lib/common/json_rpc_client.ts";
import { L1Client } from "../../../../lib/rollup/l1/mod.ts";

const z = (n: number) => `0x${"00".repeat(n)}`;

/** A fake L1 answering headers and receipts for any hash, counting the calls per method. */
async function withFakeL1(fn: (url: string, calls: Map<string, number>) => Promise<void>) {
  const calls = new Map<string, number>();
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    async (req) => {
      const { id, method, params } = await req.json();
      calls.set(method, (calls.get(method) ?? 0) + 1);
      const result = method === "eth_getBlockReceipts" ? [] : {
        hash: method === "eth_getBlockByHash" ? params[0] : `0x${"ab".repeat(32)}`,
        parentHash: z(32),
        sha3Uncles: z(32),
        miner: z(20),
        stateRoot: z(32),
        transactionsRoot: z(32),
        receiptsRoot: z(32),
        logsBloom: z(256),
        difficulty: "0x0",
        number: "0x5",
        gasLimit: "0x1",
        gasUsed: "0x0",
        timestamp: "0x10",
        extraData: "0x",
        mixHash: z(32),
        nonce: z(8),
        baseFeePerGas: "0x7",
        transactions: [],
      };
      return Response.json({ jsonrpc: "2.0", id, result });
    },
  );
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, calls);
  } finally {
    ac.abort();
    await server.finished;
  }
}

const hash = (b: number) => new Uint8Array(32).fill(b);

Deno.test("L1 client: blocks, headers and receipts are kept by hash up to --l1.cache-size", async () => {
  await withFakeL1(async (url, calls) => {
    const client = new L1Client(new JsonRpcClient(url), { trustRpc: true, cacheSize: 2 });
    await client.header(hash(1));
    await client.header(hash(1));
    await client.receipts(hash(1));
    await client.receipts(hash(1));
    await client.blockWithTxs(hash(2));
    await client.header(hash(2)); // from the block
    assertEquals(calls.get("eth_getBlockByHash"), 2);
    assertEquals(calls.get("eth_getBlockReceipts"), 1);
    // Past the size the least recently used header goes: 1, once 3 and 4 came.
    await client.header(hash(3));
    await client.header(hash(4));
    await client.header(hash(1));
    assertEquals(calls.get("eth_getBlockByHash"), 5);
    // Labels and numbers are never cached (what they name changes).
    await client.header("latest");
    await client.header("latest");
    assertEquals(calls.get("eth_getBlockByNumber"), 2);
  });
  await withFakeL1(async (url, calls) => {
    const client = new L1Client(new JsonRpcClient(url), { trustRpc: true, cacheSize: 0 });
    await client.header(hash(1));
    await client.header(hash(1));
    assertEquals(calls.get("eth_getBlockByHash"), 2);
  });
});
