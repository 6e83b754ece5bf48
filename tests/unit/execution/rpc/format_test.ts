/** Shape tests: blocks, transactions, receipts and logs field by field (spec 2.1-2.4, execution-apis). */
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, hexToBytes, keccak256 } from "../../../../lib/common/mod.ts";
import { encodeHeader } from "../../../../lib/protocol/mod.ts";
import { blockSize, revertReason } from "../../../../lib/execution/rpc/mod.ts";
import { formatTransaction } from "../../../../lib/execution/rpc/format.ts";
import { assert, assertEquals, assertMatch } from "../../../assert.ts";
import { A, B, C, createDeployed, D, errorData, ETHER, LOG_TOPIC, panicData } from "./fixture.ts";

const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
const HASH = /^0x[0-9a-f]{64}$/;
const ADDRESS = /^0x[0-9a-f]{40}$/;
const DATA = /^0x([0-9a-f]{2})*$/;
const BLOOM = /^0x[0-9a-f]{512}$/;

const d = await createDeployed();
const f = d.fixture;
const hex = bytesToHex;
type Obj = Record<string, unknown>;

function check(obj: Obj, fields: Record<string, RegExp | "null" | "bool" | "array" | "string">) {
  for (const [k, want] of Object.entries(fields)) {
    const v = obj[k];
    if (want === "null") assertEquals(v, null, k);
    else if (want === "bool") assertEquals(typeof v, "boolean", k);
    else if (want === "array") assert(Array.isArray(v), `${k} is an array`);
    else if (want === "string") assertEquals(typeof v, "string", k);
    else assertMatch(String(v), want, `${k} = ${v}`);
  }
}

const BLOCK_FIELDS = {
  number: QUANTITY,
  hash: HASH,
  parentHash: HASH,
  nonce: /^0x[0-9a-f]{16}$/,
  mixHash: HASH,
  sha3Uncles: HASH,
  logsBloom: BLOOM,
  stateRoot: HASH,
  miner: ADDRESS,
  difficulty: QUANTITY,
  totalDifficulty: QUANTITY,
  extraData: DATA,
  size: QUANTITY,
  gasLimit: QUANTITY,
  gasUsed: QUANTITY,
  timestamp: QUANTITY,
  transactionsRoot: HASH,
  receiptsRoot: HASH,
  baseFeePerGas: QUANTITY,
  withdrawalsRoot: HASH,
  blobGasUsed: QUANTITY,
  excessBlobGas: QUANTITY,
  parentBeaconBlockRoot: HASH,
  requestsHash: HASH,
  transactions: "array",
  uncles: "array",
  withdrawals: "array",
} as const;

Deno.test("block: every field of spec 2.3 and the post-London fields, hashes only", async () => {
  const block = await f.call<Obj>("eth_getBlockByNumber", ["0x1", false]);
  check(block, BLOCK_FIELDS);
  assertEquals(block.hash, hex(d.block1.hash));
  assertEquals(block.number, "0x1");
  assertEquals(block.transactions, d.block1.results.map((r) => hex(r.txHash)));
  assertEquals(block.uncles, []);
  assertEquals(block.withdrawals, []);
  const byHash = await f.call<Obj>("eth_getBlockByHash", [hex(d.block1.hash), false]);
  assertEquals(byHash, block);
  const header = await f.call<Obj>("eth_getHeaderByNumber", ["0x1"]);
  const { transactions: _t, uncles: _u, withdrawals: _w, size: _s, ...fields } = block;
  assertEquals(header, fields);
  assertEquals(await f.call("eth_getHeaderByHash", [hex(d.block1.hash)]), header);
  assertEquals(await f.call("eth_getHeaderByNumber", ["0x55"]), null);
});

Deno.test("block: size is the RLP length of [header, txs, uncles, withdrawals]", () => {
  const block = f.chain.getBlockByHash(d.block2.hash)!;
  const txs = block.transactions.map((t) => (t[0] >= 0xc0 ? RLP.decode(t) : t));
  const encoded = RLP.encode(
    [RLP.decode(encodeHeader(block.header)), txs, [], block.withdrawals ?? []] as Parameters<
      typeof RLP.encode
    >[0],
  );
  assertEquals(blockSize(block), encoded.length);
});

Deno.test("block: full transactions, unknown block is null, tags", async () => {
  const block = await f.call<Obj>("eth_getBlockByNumber", ["latest", true]);
  const txs = block.transactions as Obj[];
  assertEquals(txs.length, 3);
  assertEquals(txs[0].hash, hex(d.block2.results[0].txHash));
  assertEquals(await f.call("eth_getBlockByNumber", ["0x99", false]), null);
  assertEquals(await f.call("eth_getBlockByHash", [hex(new Uint8Array(32)), false]), null);
  assertEquals((await f.call<Obj>("eth_getBlockByNumber", ["earliest", false])).number, "0x0");
  assertEquals((await f.call<Obj>("eth_getBlockByNumber", ["pending", false])).number, "0x2");
  const safe = await f.rpc("eth_getBlockByNumber", ["safe", false]);
  assertEquals(safe.error?.message, "safe block not found");
  assertEquals(await f.call("eth_getBlockTransactionCountByNumber", ["0x1"]), "0x5");
  assertEquals(await f.call("eth_getBlockTransactionCountByHash", [hex(d.block2.hash)]), "0x3");
  assertEquals(await f.call("eth_getBlockTransactionCountByNumber", ["0x9"]), null);
  assertEquals(await f.call("eth_getUncleCountByBlockNumber", ["0x1"]), "0x0");
  assertEquals(await f.call("eth_getUncleCountByBlockHash", [hex(d.block1.hash)]), "0x0");
  assertEquals(await f.call("eth_getUncleByBlockNumberAndIndex", ["0x1", "0x0"]), null);
  assertEquals(await f.call("eth_getUncleByBlockHashAndIndex", [hex(d.block1.hash), "0x0"]), null);
});

Deno.test("transaction: EIP-1559 fields (spec 2.1) with the effective gas price", async () => {
  const r = d.block1.results[1];
  const tx = await f.call<Obj>("eth_getTransactionByHash", [hex(r.txHash)]);
  check(tx, {
    blockHash: HASH,
    blockNumber: QUANTITY,
    from: ADDRESS,
    gas: QUANTITY,
    gasPrice: QUANTITY,
    maxFeePerGas: QUANTITY,
    maxPriorityFeePerGas: QUANTITY,
    hash: HASH,
    input: DATA,
    nonce: QUANTITY,
    to: ADDRESS,
    transactionIndex: QUANTITY,
    value: QUANTITY,
    type: QUANTITY,
    chainId: QUANTITY,
    v: QUANTITY,
    r: QUANTITY,
    s: QUANTITY,
    yParity: QUANTITY,
    accessList: "array",
  });
  assertEquals(tx.from, hex(A.address));
  assertEquals(tx.to, hex(B.address));
  assertEquals(tx.value, "0xde0b6b3a7640000");
  assertEquals(tx.type, "0x2");
  assertEquals(tx.chainId, "0x385");
  assertEquals(tx.transactionIndex, "0x1");
  const header = f.chain.getHeaderByHash(d.block1.hash)!;
  assertEquals(BigInt(tx.gasPrice as string), header.baseFeePerGas! + 1_000_000_000n);
  assertEquals(tx.gasPrice, `0x${r.effectiveGasPrice.toString(16)}`);
  const deploy = await f.call<Obj>("eth_getTransactionByHash", [hex(d.block1.results[2].txHash)]);
  assertEquals(deploy.to, null);
});

Deno.test("transaction: legacy EIP-155 has chainId from v and no yParity", async () => {
  const tx = await f.call<Obj>("eth_getTransactionByBlockNumberAndIndex", ["0x2", "0x2"]);
  assertEquals(tx.type, "0x0");
  assertEquals(tx.from, hex(B.address));
  assertEquals(tx.to, hex(C.address));
  assertEquals(tx.chainId, "0x385");
  assert(BigInt(tx.v as string) === 901n * 2n + 35n || BigInt(tx.v as string) === 901n * 2n + 36n);
  assertEquals(tx.yParity, undefined);
  assertEquals(tx.maxFeePerGas, undefined);
  assertEquals(tx.gasPrice, "0x77359400");
  assertEquals(await f.call("eth_getTransactionByBlockNumberAndIndex", ["0x2", "0x3"]), null);
  const same = await f.call<Obj>("eth_getTransactionByBlockHashAndIndex", [hex(d.block2.hash), "0x2"]);
  assertEquals(same, tx);
});

Deno.test("transaction: deposit fields (sourceHash, mint, nonce from the receipt, v r s 0x0)", async () => {
  const tx = await f.call<Obj>("eth_getTransactionByHash", [hex(d.block1.results[0].txHash)]);
  assertEquals(tx.type, "0x7e");
  assertEquals(tx.sourceHash, hex(d.deposit.sourceHash));
  assertEquals(tx.mint, "0x4563918244f40000");
  assertEquals(tx.from, hex(D.address));
  assertEquals(tx.nonce, "0x0");
  assertEquals(tx.gasPrice, "0x0");
  assertEquals([tx.v, tx.r, tx.s], ["0x0", "0x0", "0x0"]);
  assertEquals(tx.depositReceiptVersion, "0x1");
  assertEquals(tx.isSystemTx, undefined);
  assertEquals(tx.value, `0x${ETHER.toString(16)}`);
  // op-geth leaves a zero mint out (the L1-info deposit of every block, or a deposit without ETH).
  const zero = formatTransaction({ ...d.deposit, mint: 0n }, undefined, new Uint8Array(32)) as Obj;
  assertEquals("mint" in zero, false);
  assertEquals(zero.sourceHash, hex(d.deposit.sourceHash));
});

const RECEIPT_FIELDS = {
  blockHash: HASH,
  blockNumber: QUANTITY,
  cumulativeGasUsed: QUANTITY,
  effectiveGasPrice: QUANTITY,
  from: ADDRESS,
  gasUsed: QUANTITY,
  logs: "array",
  logsBloom: BLOOM,
  status: QUANTITY,
  transactionHash: HASH,
  transactionIndex: QUANTITY,
  type: QUANTITY,
} as const;

Deno.test("receipt: spec 2.2 with the L1 fee fields (Ecotone+ scalars)", async () => {
  const r = d.block1.results[1];
  const receipt = await f.call<Obj>("eth_getTransactionReceipt", [hex(r.txHash)]);
  check(receipt, {
    ...RECEIPT_FIELDS,
    to: ADDRESS,
    contractAddress: "null",
    l1GasUsed: QUANTITY,
    l1GasPrice: QUANTITY,
    l1Fee: QUANTITY,
    l1BaseFeeScalar: QUANTITY,
    l1BlobBaseFee: QUANTITY,
    l1BlobBaseFeeScalar: QUANTITY,
  });
  assertEquals(receipt.status, "0x1");
  assertEquals(receipt.gasUsed, "0x5208");
  assertEquals(BigInt(receipt.l1Fee as string), r.l1Fee!.l1Fee);
  assert(r.l1Fee!.l1Fee > 0n, "the dev chain charges an L1 fee");
  assertEquals(receipt.depositNonce, undefined);
  const deploy = await f.call<Obj>("eth_getTransactionReceipt", [hex(d.block1.results[2].txHash)]);
  assertEquals(deploy.contractAddress, hex(d.logger));
  assertEquals(deploy.to, null);
  assertEquals(await f.call("eth_getTransactionReceipt", [hex(new Uint8Array(32))]), null);
});

Deno.test("receipt: deposit has depositNonce and depositReceiptVersion, no L1 fee", async () => {
  const receipt = await f.call<Obj>("eth_getTransactionReceipt", [hex(d.block1.results[0].txHash)]);
  check(receipt, { ...RECEIPT_FIELDS, depositNonce: QUANTITY, depositReceiptVersion: QUANTITY });
  assertEquals(receipt.type, "0x7e");
  assertEquals(receipt.depositReceiptVersion, "0x1");
  assertEquals(receipt.l1Fee, undefined);
});

Deno.test("receipt: failed call has status 0x0; logs have spec 2.4 fields", async () => {
  const failed = await f.call<Obj>("eth_getTransactionReceipt", [hex(d.block2.results[1].txHash)]);
  assertEquals(failed.status, "0x0");
  const ok = await f.call<Obj>("eth_getTransactionReceipt", [hex(d.block2.results[0].txHash)]);
  const logs = ok.logs as Obj[];
  assertEquals(logs.length, 1);
  check(logs[0], {
    address: ADDRESS,
    topics: "array",
    data: DATA,
    blockNumber: QUANTITY,
    transactionHash: HASH,
    transactionIndex: QUANTITY,
    blockHash: HASH,
    logIndex: QUANTITY,
    removed: "bool",
  });
  assertEquals(logs[0].address, hex(d.logger));
  assertEquals(logs[0].topics, [hex(LOG_TOPIC), hex(new Uint8Array(12)) + hex(A.address).slice(2)]);
  assertEquals(logs[0].removed, false);
  const all = await f.call<Obj[]>("eth_getBlockReceipts", ["0x2"]);
  assertEquals(all.length, 3);
  assertEquals(all[0], ok);
  assertEquals(await f.call("eth_getBlockReceipts", ["0x7"]), null);
});

Deno.test("revertReason decodes Error(string) and Panic(uint256) like geth", () => {
  assertEquals(revertReason(errorData("nope")), "nope");
  assertEquals(revertReason(panicData(0x11)), "arithmetic underflow or overflow");
  assertEquals(revertReason(panicData(0x99)), "unknown panic code: 0x99");
  assertEquals(revertReason(hexToBytes("0xdeadbeef")), undefined);
});

Deno.test("format h: the native hex writer matches bytesToHex (empty, one byte, hash-sized, 0x00 and 0xff)", async () => {
  const { h } = await import("../../../../lib/execution/rpc/format.ts");
  const cases = [
    new Uint8Array(),
    new Uint8Array([0]),
    new Uint8Array([0xff]),
    Uint8Array.from({ length: 32 }, (_, i) => i * 8),
    hexToBytes("0x00ff10ab"),
  ];
  for (const c of cases) assertEquals(h(c), bytesToHex(c));
  assertEquals(h(new Uint8Array([0xab, 0x01])), "0xab01");
});

Deno.test("logsJsonBytes: the same JSON as formatLog, field by field and in order", async () => {
  const { formatLog, logsJsonBytes } = await import("../../../../lib/execution/rpc/format.ts");
  const text = (logs: Parameters<typeof logsJsonBytes>[0]) => new TextDecoder().decode(logsJsonBytes(logs));
  const base = {
    address: hexToBytes("0x00000000000000000000000000000000000000aa"),
    data: hexToBytes("0x0001ff"),
    blockHash: Uint8Array.from({ length: 32 }, (_, i) => i),
    blockNumber: 300n,
    blockTimestamp: 1_700_000_000n,
    transactionHash: Uint8Array.from({ length: 32 }, (_, i) => 255 - i),
    transactionIndex: 0,
    logIndex: 17,
    removed: false,
  };
  const logs = [
    { ...base, topics: [] },
    { ...base, topics: [LOG_TOPIC], removed: true },
    { ...base, topics: [LOG_TOPIC, new Uint8Array(32), new Uint8Array(32).fill(1)], data: new Uint8Array() },
  ];
  for (const log of logs) assertEquals(text([log]), JSON.stringify([formatLog(log)]));
  assertEquals(text(logs), JSON.stringify(logs.map(formatLog)));
  assertEquals(text([]), "[]");
  // A page far past the writer's first buffer.
  const page = Array.from(
    { length: 2_000 },
    (_, i) => ({ ...logs[i % 3], logIndex: i, blockNumber: BigInt(i) }),
  );
  assertEquals(text(page), JSON.stringify(page.map(formatLog)));
});

Deno.test("raw transaction: by hash (canonical, deposit, pooled), by block and index; 0x when none", async () => {
  const [deposit, transfer] = d.block1.results;
  const rawTransfer = hex(transfer.encoded);
  assertEquals(await f.call("eth_getRawTransactionByHash", [hex(transfer.txHash)]), rawTransfer);
  assertEquals(await f.call("eth_getRawTransactionByHash", [hex(deposit.txHash)]), hex(deposit.encoded));
  // A pooled transaction: its own encoding, which hashes to it.
  const pooled = await f.call<string>("eth_getRawTransactionByHash", [d.pendingHash]);
  assertEquals(hex(keccak256(hexToBytes(pooled))), d.pendingHash);
  assertEquals(await f.call("eth_getRawTransactionByHash", [hex(new Uint8Array(32).fill(1))]), "0x");
  assertEquals(
    await f.call("eth_getRawTransactionByBlockHashAndIndex", [hex(d.block1.hash), "0x1"]),
    rawTransfer,
  );
  assertEquals(await f.call("eth_getRawTransactionByBlockNumberAndIndex", ["0x1", "0x1"]), rawTransfer);
  assertEquals(await f.call("eth_getRawTransactionByBlockNumberAndIndex", ["0x1", "0x9"]), "0x");
  assertEquals(await f.call("eth_getRawTransactionByBlockNumberAndIndex", ["0x64", "0x0"]), "0x");
});
