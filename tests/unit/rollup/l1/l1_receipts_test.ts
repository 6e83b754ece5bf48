/**
 * --l1.rpckind: each provider kind fetches receipts by op-node's method for it (op-service/sources
 * receipts_rpc.go), with that method's parameters; `any` falls back past the methods the endpoint does
 * not serve. Whatever the method, the receipts are the same and are checked against the header.
 */
import { bytesToHex, hexToBytes } from "../../../../lib/common/bytes.ts";
import { BaseError, isErrorCode } from "../../../../lib/common/errors.ts";
import { JsonRpcClient } from "../../../../lib/common/json_rpc_client.ts";
import {
  isUnusableMethodError,
  L1Client,
  type L1ClientOptions,
  pickReceiptsMethod,
  type ReceiptsMethod,
  receiptsMethodsOf,
} from "../../../../lib/rollup/l1/mod.ts";
import { assert, assertEquals } from "../../../assert.ts";
import { type FakeBlock, makeBlock, serveFakeL1 } from "./fake_l1.ts";

const small = makeBlock(8, 7n);
const large = makeBlock(40, 8n);

/** The receipt calls (not the header's) a client of `options` makes for `block`, and the receipts. */
async function receiptCalls(block: FakeBlock, options: Partial<L1ClientOptions>, methods?: string[]) {
  const fake = serveFakeL1([block], methods);
  try {
    const client = new L1Client(new JsonRpcClient(fake.url), options);
    const receipts = await client.receipts(hexToBytes(block.hash));
    return { receipts, calls: fake.calls.filter((c) => c.method !== "eth_getBlockByHash") };
  } finally {
    await fake.close();
  }
}

const perTx = (block: FakeBlock) =>
  block.txs.map((t) => ({ method: "eth_getTransactionReceipt", params: [t.hash] }));

Deno.test("L1 receipts: each --l1.rpckind calls its method with its parameters", async () => {
  const expected = (await receiptCalls(large, { trustRpc: true })).receipts;
  const cases: [string, FakeBlock, { method: string; params: unknown[] }[]][] = [
    ["standard", large, [{ method: "eth_getBlockReceipts", params: [large.hash] }]],
    ["basic", large, perTx(large)],
    ["infura", large, perTx(large)],
    ["debug_geth", large, [{ method: "debug_getRawReceipts", params: [large.hash] }]],
    ["quicknode", large, [{ method: "debug_getRawReceipts", params: [large.hash] }]],
    ["erigon", large, [{ method: "erigon_getBlockReceiptsByBlockHash", params: [large.hash] }]],
    ["parity", large, [{ method: "parity_getBlockReceipts", params: [large.hash] }]],
    ["nethermind", large, [{ method: "parity_getBlockReceipts", params: [large.hash] }]],
    // Alchemy takes a block object; under 17 transactions per-transaction calls cost less there.
    ["alchemy", large, [{ method: "alchemy_getTransactionReceipts", params: [{ blockHash: large.hash }] }]],
    ["alchemy", small, perTx(small)],
    ["any", large, [{ method: "alchemy_getTransactionReceipts", params: [{ blockHash: large.hash }] }]],
  ];
  for (const [kind, block, calls] of cases) {
    for (const trustRpc of [false, true]) {
      const got = await receiptCalls(block, { rpcKind: kind, trustRpc, maxBatchSize: 100 });
      assertEquals(got.calls, calls, `${kind}, ${block.txs.length} transactions, trusted ${trustRpc}`);
      if (block === large) assertEquals(got.receipts, expected, kind);
    }
  }
});

Deno.test("L1 receipts: per-transaction calls go in batches of --l1.rpc-max-batch-size", async () => {
  const fake = serveFakeL1([large]);
  const sizes: number[] = [];
  const rpc = new JsonRpcClient(fake.url);
  const batch = rpc.batch.bind(rpc);
  rpc.batch = (calls) => {
    sizes.push(calls.length);
    return batch(calls);
  };
  try {
    await new L1Client(rpc, { rpcKind: "basic", maxBatchSize: 16 }).receipts(hexToBytes(large.hash));
    assertEquals(sizes, [16, 16, 8]);
  } finally {
    await fake.close();
  }
});

Deno.test("L1 receipts: `any` falls back past the methods the endpoint does not know, and remembers", async () => {
  const fake = serveFakeL1([small, large], ["eth_getBlockReceipts", "eth_getTransactionReceipt"]);
  try {
    const client = new L1Client(new JsonRpcClient(fake.url), { rpcKind: "any" });
    const receipts = await client.receipts(hexToBytes(large.hash));
    assertEquals(receipts.length, 40);
    const methods = () => fake.calls.map((c) => c.method).filter((m) => m !== "eth_getBlockByHash");
    assertEquals(methods(), [
      "alchemy_getTransactionReceipts",
      "debug_getRawReceipts",
      "erigon_getBlockReceiptsByBlockHash",
      "eth_getBlockReceipts",
    ]);
    // The next block goes straight to the method that worked.
    fake.calls.length = 0;
    await client.receipts(hexToBytes(small.hash));
    assertEquals(methods(), ["eth_getBlockReceipts"]);
    // Once the reset time has passed, the preferred methods are tried again.
    const soon = new L1Client(new JsonRpcClient(fake.url), { rpcKind: "any", receiptsMethodResetMs: 0 });
    await soon.receipts(hexToBytes(small.hash));
    fake.calls.length = 0;
    await new Promise((r) => setTimeout(r, 2));
    await soon.receipts(hexToBytes(large.hash));
    assertEquals(methods()[0], "alchemy_getTransactionReceipts");
  } finally {
    await fake.close();
  }
});

Deno.test("L1 receipts: `any` ends with per-transaction calls; other errors are not fallen back from", async () => {
  const fake = serveFakeL1([small], ["eth_getTransactionReceipt"]);
  try {
    const receipts = await new L1Client(new JsonRpcClient(fake.url), { rpcKind: "any" }).receipts(
      hexToBytes(small.hash),
    );
    assertEquals(receipts.length, 8);
    assertEquals(fake.calls.filter((c) => c.method === "eth_getTransactionReceipt").length, 8);
    assertEquals(fake.calls.filter((c) => c.method === "parity_getBlockReceipts").length, 1);
  } finally {
    await fake.close();
  }
  // Another error (the endpoint knows the method) is the call's: no fallback.
  const failing = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const { id } = await req.json();
      return Response.json({ jsonrpc: "2.0", id, error: { code: -32000, message: "header not found" } });
    },
  );
  try {
    const client = new L1Client(new JsonRpcClient(`http://127.0.0.1:${failing.addr.port}`), {
      rpcKind: "any",
      trustRpc: true,
    });
    const e = await client.receipts(hexToBytes(small.hash)).then(() => undefined, (e) => e);
    assert(isErrorCode(e, "RPC_ERROR") && /alchemy_getTransactionReceipts failed/.test(e.message), String(e));
  } finally {
    await failing.shutdown();
  }
});

Deno.test("L1 receipts: debug_getRawReceipts' encodings are decoded, and checked against the root", async () => {
  const trusted = (await receiptCalls(large, { trustRpc: true })).receipts;
  const raw = await receiptCalls(large, { rpcKind: "debug_geth" });
  assertEquals(raw.receipts, trusted);
  // A raw receipt with a log's data changed (same length): decodes, but the root differs.
  const fake = serveFakeL1([large]);
  fake.alter = (m, r) => {
    if (m !== "debug_getRawReceipts") return r;
    const list = r as string[];
    assert(list[3].endsWith("83030108"), list[3]);
    list[3] = `${list[3].slice(0, -8)}83${bytesToHex(Uint8Array.of(3, 1, 7)).slice(2)}`;
    return list;
  };
  try {
    const e = await new L1Client(new JsonRpcClient(fake.url), { rpcKind: "debug_geth" })
      .receipts(hexToBytes(large.hash)).then(() => undefined, (e) => e);
    assert(isErrorCode(e, "L1_INVALID") && /their root is/.test(e.message), String(e));
    // One receipt short: refused for its count.
    fake.alter = (m, r) => (m === "debug_getRawReceipts" ? (r as string[]).slice(1) : r);
    const e2 = await new L1Client(new JsonRpcClient(fake.url), { rpcKind: "debug_geth" })
      .receipts(hexToBytes(large.hash)).then(() => undefined, (e) => e);
    assert(isErrorCode(e2, "L1_INVALID") && /39 receipts for 40 transactions/.test(e2.message), String(e2));
    // Bytes that are no receipt.
    fake.alter = (m, r) => (m === "debug_getRawReceipts" ? ["0x02c0", ...(r as string[]).slice(1)] : r);
    const e3 = await new L1Client(new JsonRpcClient(fake.url), { rpcKind: "debug_geth" })
      .receipts(hexToBytes(large.hash)).then(() => undefined, (e) => e);
    assert(isErrorCode(e3, "L1_INVALID") && /receipt 0 has 0 fields/.test(e3.message), String(e3));
  } finally {
    await fake.close();
  }
});

Deno.test("L1 receipts: op-node's method table and picks", () => {
  const table: [string, ReceiptsMethod[]][] = [
    ["alchemy", ["alchemy_getTransactionReceipts", "eth_getBlockReceipts", "eth_getTransactionReceipt"]],
    ["quicknode", ["debug_getRawReceipts", "eth_getBlockReceipts", "eth_getTransactionReceipt"]],
    ["infura", ["eth_getTransactionReceipt"]],
    ["parity", ["parity_getBlockReceipts", "eth_getTransactionReceipt"]],
    ["nethermind", ["parity_getBlockReceipts", "eth_getTransactionReceipt"]],
    ["debug_geth", ["debug_getRawReceipts", "eth_getTransactionReceipt"]],
    ["erigon", ["erigon_getBlockReceiptsByBlockHash", "eth_getTransactionReceipt"]],
    ["basic", ["eth_getTransactionReceipt"]],
    ["standard", ["eth_getBlockReceipts", "eth_getTransactionReceipt"]],
    ["any", [
      "alchemy_getTransactionReceipts",
      "debug_getRawReceipts",
      "erigon_getBlockReceiptsByBlockHash",
      "eth_getBlockReceipts",
      "parity_getBlockReceipts",
      "eth_getTransactionReceipt",
    ]],
  ];
  for (const [kind, methods] of table) {
    assertEquals([...receiptsMethodsOf(kind)].sort(), [...methods].sort(), kind);
  }
  const pick = (kind: string, txs: number, without: ReceiptsMethod[] = []) => {
    const available = receiptsMethodsOf(kind);
    for (const m of without) available.delete(m);
    return pickReceiptsMethod(kind, available, txs);
  };
  assertEquals(pick("alchemy", 16), "eth_getTransactionReceipt");
  assertEquals(pick("alchemy", 17), "alchemy_getTransactionReceipts");
  assertEquals(pick("alchemy", 33, ["alchemy_getTransactionReceipts"]), "eth_getTransactionReceipt");
  assertEquals(pick("alchemy", 34, ["alchemy_getTransactionReceipts"]), "eth_getBlockReceipts");
  assertEquals(pick("quicknode", 1), "debug_getRawReceipts");
  assertEquals(pick("quicknode", 29, ["debug_getRawReceipts"]), "eth_getTransactionReceipt");
  assertEquals(pick("quicknode", 30, ["debug_getRawReceipts"]), "eth_getBlockReceipts");
  assertEquals(pick("any", 1), "alchemy_getTransactionReceipts");
  assertEquals(
    pick("any", 1, ["alchemy_getTransactionReceipts", "debug_getRawReceipts"]),
    "erigon_getBlockReceiptsByBlockHash",
  );
  assertEquals(pick("standard", 1, ["eth_getBlockReceipts"]), "eth_getTransactionReceipt");

  const rpcError = (code: number, message: string) =>
    new BaseError("RPC_ERROR", `m failed: ${message}`, { meta: { code } });
  assert(isUnusableMethodError(rpcError(-32601, "Method not found")));
  assert(isUnusableMethodError(rpcError(-32602, "bad")));
  assert(isUnusableMethodError(rpcError(-32001, "rpc method is not whitelisted")));
  assert(isUnusableMethodError(rpcError(-32000, "the method alchemy_x does not exist/is not available")));
  assert(!isUnusableMethodError(rpcError(-32000, "header not found")));
  assert(!isUnusableMethodError(new BaseError("RPC_TRANSPORT", "Cannot call m: HTTP 502")));
});
