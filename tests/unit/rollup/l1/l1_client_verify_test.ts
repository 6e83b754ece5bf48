/**
 * An untrusted L1 RPC cannot drop, insert, reorder or change a block's transactions or its receipts'
 * logs: the transactions must make the header's transactionsRoot and the receipts its receiptsRoot.
 * A trusted one (--l1.trustrpc) is taken at its word.
 */
import { bytesToHex, hexToBytes } from "../../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../../lib/common/errors.ts";
import { JsonRpcClient } from "../../../../lib/common/json_rpc_client.ts";
import { L1Client } from "../../../../lib/rollup/l1/mod.ts";
import { assert, assertEquals } from "../../../assert.ts";
import { makeBlock, serveFakeL1 } from "./fake_l1.ts";

const block = makeBlock(12);
const hash = hexToBytes(block.hash);

type Tamper = [string, (method: string, result: unknown) => unknown];
// deno-lint-ignore no-explicit-any
type Any = any;

const swap = <T>(list: T[], i: number, j: number) => ([list[i], list[j]] = [list[j], list[i]]);

/** Alterations of eth_getBlockByHash(hash, true): each leaves every transaction well signed and of the block. */
const TX_TAMPERS: Tamper[] = [
  ["a transaction dropped", (m, r: Any) => {
    if (m === "eth_getBlockByHash" && typeof r.transactions[0] === "object") r.transactions.splice(4, 1);
    return r;
  }],
  ["two transactions swapped", (m, r: Any) => {
    if (m === "eth_getBlockByHash" && typeof r.transactions[0] === "object") swap(r.transactions, 1, 2);
    return r;
  }],
  ["a transaction inserted twice", (m, r: Any) => {
    if (m === "eth_getBlockByHash" && typeof r.transactions[0] === "object") {
      r.transactions.push(r.transactions[3]);
    }
    return r;
  }],
];

/** Alterations of the receipts (eth_getBlockReceipts): counts and indexes kept where the root alone can tell. */
const RECEIPT_TAMPERS: Tamper[] = [
  ["a receipt dropped", (m, r: Any) => {
    if (m === "eth_getBlockReceipts") r.pop();
    return r;
  }],
  ["a log dropped", (m, r: Any) => {
    if (m === "eth_getBlockReceipts") r[3].logs.pop();
    return r;
  }],
  ["a log's data changed", (m, r: Any) => {
    if (m === "eth_getBlockReceipts") r[6].logs[1].data = "0x0601ff";
    return r;
  }],
  ["a log's topic changed", (m, r: Any) => {
    if (m === "eth_getBlockReceipts") r[0].logs[0].topics[1] = bytesToHex(new Uint8Array(32).fill(0xee));
    return r;
  }],
  ["a log moved to another receipt", (m, r: Any) => {
    if (m === "eth_getBlockReceipts") r[1].logs.push(r[0].logs.pop());
    return r;
  }],
  ["two receipts' contents swapped", (m, r: Any) => {
    if (m === "eth_getBlockReceipts") {
      [r[0].logs, r[3].logs] = [r[3].logs, r[0].logs];
    }
    return r;
  }],
  ["a failed receipt made successful", (m, r: Any) => {
    if (m === "eth_getBlockReceipts") r[6].status = "0x1";
    return r;
  }],
];

Deno.test("L1 client: the untampered block's transactions and receipts verify", async () => {
  const fake = serveFakeL1([block]);
  try {
    const client = new L1Client(new JsonRpcClient(fake.url));
    const { txs } = await client.blockWithTxs(hash);
    assertEquals(txs.map((t) => bytesToHex(t.hash)), block.txs.map((t) => t.hash));
    assertEquals(txs.map((t) => t.type), [0, 1, 2, 4, 0, 1, 2, 4, 0, 1, 2, 4]);
    const receipts = await client.receipts(hash);
    assertEquals(receipts.length, 12);
    assertEquals(receipts[6].status, 0);
    assertEquals(receipts[3].logs[1].data, Uint8Array.of(3, 1, 5));
    // The block's header came with its transactions: the receipts' check did not fetch it again.
    assertEquals(fake.calls.map((c) => c.method), ["eth_getBlockByHash", "eth_getBlockReceipts"]);
  } finally {
    await fake.close();
  }
});

for (const [name, tamper] of TX_TAMPERS) {
  Deno.test(`L1 client: ${name} is refused (transactionsRoot) unless the RPC is trusted`, async () => {
    const fake = serveFakeL1([block]);
    fake.alter = tamper;
    try {
      const e = await new L1Client(new JsonRpcClient(fake.url)).blockWithTxs(hash).then(
        () => undefined,
        (e) => e,
      );
      assert(isErrorCode(e, "L1_INVALID"), String(e));
      assert(/transactions have root 0x[0-9a-f]{64}, the header says/.test(e.message), e.message);
      const trusted = await new L1Client(new JsonRpcClient(fake.url), { trustRpc: true }).blockWithTxs(hash);
      assert(
        trusted.txs.length !== 12 || trusted.txs[1].type !== 1,
        "the trusted client took the altered list",
      );
    } finally {
      await fake.close();
    }
  });
}

for (const [name, tamper] of RECEIPT_TAMPERS) {
  Deno.test(`L1 client: ${name} is refused (receiptsRoot) unless the RPC is trusted`, async () => {
    const fake = serveFakeL1([block]);
    fake.alter = tamper;
    try {
      const e = await new L1Client(new JsonRpcClient(fake.url)).receipts(hash).then(
        () => undefined,
        (e) => e,
      );
      assert(isErrorCode(e, "L1_INVALID"), String(e));
      assert(/Cannot trust the receipts of L1 block/.test(e.message), e.message);
      await new L1Client(new JsonRpcClient(fake.url), { trustRpc: true }).receipts(hash);
    } finally {
      await fake.close();
    }
  });
}

Deno.test("L1 client: receipts of another block, or a header that is not the block's, are refused", async () => {
  const other = makeBlock(12, 6n);
  const fake = serveFakeL1([block, other]);
  try {
    // The receipts of another block with as many transactions, relabelled as this block's.
    fake.alter = (m, r: Any) => {
      if (m !== "eth_getBlockReceipts") return r;
      return other.receipts.map((x) => ({
        ...structuredClone(x),
        blockHash: block.hash,
        blockNumber: "0x5",
      }));
    };
    const e1 = await new L1Client(new JsonRpcClient(fake.url)).receipts(hash).then(() => undefined, (e) => e);
    assert(isErrorCode(e1, "L1_INVALID") && /their root is/.test(e1.message), String(e1));
    // The right receipts with a wrong block number.
    fake.alter = (m, r: Any) => {
      if (m === "eth_getBlockReceipts") r[2].blockNumber = "0x6";
      return r;
    };
    const e2 = await new L1Client(new JsonRpcClient(fake.url)).receipts(hash).then(() => undefined, (e) => e);
    assert(isErrorCode(e2, "L1_INVALID") && /receipt 2 is not the block's/.test(e2.message), String(e2));
    // A header altered to match the altered receipts no longer hashes to the block's hash.
    fake.alter = (m, r: Any) => {
      if (m === "eth_getBlockByHash") r.receiptsRoot = other.header.receiptsRoot;
      if (m === "eth_getBlockReceipts") return other.receipts;
      return r;
    };
    const e3 = await new L1Client(new JsonRpcClient(fake.url)).receipts(hash).then(() => undefined, (e) => e);
    assert(isErrorCode(e3, "L1_INVALID") && /header hashes to/.test(e3.message), String(e3));
  } finally {
    await fake.close();
  }
});

Deno.test("L1 client: the receipts' check fetches the block's header when it is not known, once", async () => {
  const fake = serveFakeL1([block]);
  try {
    const client = new L1Client(new JsonRpcClient(fake.url));
    // Not cached (cache size 0) and nothing known: the header is fetched alongside the receipts.
    await client.receipts(hash);
    assertEquals(fake.calls.map((c) => c.method).sort(), ["eth_getBlockByHash", "eth_getBlockReceipts"]);
    assertEquals(fake.calls.find((c) => c.method === "eth_getBlockByHash")!.params, [block.hash, false]);
    // Then the header is known (a few blocks' are kept whatever the cache size): one call.
    fake.calls.length = 0;
    await client.receipts(hash);
    assertEquals(fake.calls.map((c) => c.method), ["eth_getBlockReceipts"]);
  } finally {
    await fake.close();
  }
});
