/** eth_sendRawTransaction, pending lookups, the txpool namespace and the gas price oracle. */
import { toChecksumAddress } from "@ethereumjs/util";
import { bytesToHex } from "../../../../lib/common/mod.ts";
import { encodeDepositTx } from "../../../../lib/protocol/mod.ts";
import { goDuration } from "../../../../lib/execution/rpc/eth/send_raw_transaction.ts";
import { assert, assertEquals } from "../../../assert.ts";
import { A, B, C, createDeployed, createFixture, GWEI } from "./fixture.ts";

const hex = bytesToHex;
const d = await createDeployed();
const f = d.fixture;

Deno.test("eth_sendRawTransaction: adds to the pool; geth's messages pass through as -32000", async () => {
  const tx = f.sign(B, 1n, { to: C.address, value: 5n, gas: 21_000n });
  const hash = await f.call("eth_sendRawTransaction", [hex(tx.serialize())]);
  assertEquals(hash, hex(tx.hash()));
  assertEquals((await f.rpc("eth_sendRawTransaction", [hex(tx.serialize())])).error, {
    code: -32000,
    message: "already known",
  });
  const low = await f.rpc("eth_sendRawTransaction", [
    hex(f.sign(A, 0n, { to: B.address, gas: 21_000n }).serialize()),
  ]);
  assertEquals(low.error?.code, -32000);
  assert(low.error!.message.startsWith("nonce too low"), low.error!.message);
  const deposit = encodeDepositTx(d.deposit);
  assertEquals((await f.rpc("eth_sendRawTransaction", [hex(deposit)])).error, {
    code: -32000,
    message: "transaction type not supported",
  });
  // 2,000,000 gas at 1000 gwei = 2 ether > the 1 ether cap.
  const pricey = f.sign(A, 6n, { to: B.address, gas: 2_000_000n, maxFee: 1000n * GWEI, tip: GWEI });
  assertEquals((await f.rpc("eth_sendRawTransaction", [hex(pricey.serialize())])).error, {
    code: -32000,
    message: "tx fee (2.00 ether) exceeds the configured cap (1.00 ether)",
  });
  assertEquals((await f.rpc("eth_sendRawTransaction", ["0x01"])).error?.code, -32000);
});

Deno.test("eth_sendRawTransactionSync (EIP-7966): the receipt once mined; error 4 with the hash when the wait passes", async () => {
  const g = await createFixture({ txSyncDefaultTimeoutMs: 5_000 });
  const tx = g.sign(A, 0n, { to: C.address, value: 7n, gas: 21_000n });
  const sync = g.rpc("eth_sendRawTransactionSync", [hex(tx.serialize())]);
  // The fixture has no new-heads feed: the handler polls the chain.
  await new Promise((r) => setTimeout(r, 60));
  const mined = await g.mine([tx]);
  const answer = await sync;
  assertEquals(answer.error, undefined);
  const receipt = answer.result as Record<string, unknown>;
  assertEquals(receipt.transactionHash, hex(tx.hash()));
  assertEquals(receipt.blockHash, hex(mined.hash));
  assertEquals(receipt, await g.call("eth_getTransactionReceipt", [hex(tx.hash())]));
  // Not mined within the asked 80 ms (as a JSON number, viem's form).
  const late = g.sign(A, 1n, { to: C.address, value: 7n, gas: 21_000n });
  const timedOut = await g.rpc("eth_sendRawTransactionSync", [hex(late.serialize()), 80]);
  assertEquals(timedOut.error, {
    code: 4,
    message: "The transaction was added to the transaction pool but wasn't processed in 80ms",
    data: hex(late.hash()),
  });
  // Refused transactions fail at once, as eth_sendRawTransaction.
  assertEquals((await g.rpc("eth_sendRawTransactionSync", [hex(late.serialize()), "0x10"])).error, {
    code: -32000,
    message: "already known",
  });
});

Deno.test("goDuration prints as Go's time.Duration", () => {
  assertEquals([80, 2_000, 2_500, 20_000, 60_000, 90_500].map(goDuration), [
    "80ms",
    "2s",
    "2.5s",
    "20s",
    "1m0s",
    "1m30.5s",
  ]);
});

Deno.test("eth_getTransactionByHash: a pool transaction has null block fields", async () => {
  const tx = await f.call<Record<string, unknown>>("eth_getTransactionByHash", [d.pendingHash]);
  assertEquals(tx.hash, d.pendingHash);
  assertEquals(tx.blockHash, null);
  assertEquals(tx.blockNumber, null);
  assertEquals(tx.transactionIndex, null);
  assertEquals(tx.from, hex(C.address));
  assertEquals(tx.gasPrice, "0x2540be400", "a pending 1559 tx reports its fee cap");
  assertEquals(await f.call("eth_getTransactionByHash", [hex(new Uint8Array(32))]), null);
  assertEquals(await f.call("eth_getTransactionReceipt", [d.pendingHash]), null);
});

Deno.test("txpool_status, txpool_content, txpool_inspect in geth's shapes", async () => {
  const status = await f.call<Record<string, string>>("txpool_status");
  const pool = f.pool.status();
  assertEquals(status, {
    pending: `0x${pool.pending.toString(16)}`,
    queued: `0x${pool.queued.toString(16)}`,
  });
  const content = await f.call<Record<string, Record<string, Record<string, Record<string, unknown>>>>>(
    "txpool_content",
  );
  const fromC = content.pending[toChecksumAddress(hex(C.address))];
  assertEquals(Object.keys(fromC), ["0"]);
  assertEquals(fromC["0"].hash, d.pendingHash);
  assertEquals(content.queued, {});
  const inspect = await f.call<Record<string, Record<string, Record<string, string>>>>("txpool_inspect");
  assertEquals(
    inspect.pending[toChecksumAddress(hex(C.address))]["0"],
    `${toChecksumAddress(hex(A.address))}: 1 wei + 21000 gas × 10000000000 wei`,
  );
  const from = await f.call<Record<string, Record<string, unknown>>>("txpool_contentFrom", [hex(C.address)]);
  assertEquals(Object.keys(from.pending), ["0"]);
});

Deno.test("gas price oracle: minimum tip on a block with room, base fee + tip, fee history", async () => {
  const header = f.chain.getHeadHeader("latest")!;
  assertEquals(await f.call("eth_maxPriorityFeePerGas"), "0xf4240");
  assertEquals(await f.call("eth_gasPrice"), `0x${(header.baseFeePerGas! + 1_000_000n).toString(16)}`);
  const history = await f.call<Record<string, unknown>>("eth_feeHistory", ["0x2", "latest", [0, 50, 100]]);
  assertEquals(history.oldestBlock, "0x1");
  const baseFees = history.baseFeePerGas as string[];
  assertEquals(baseFees.length, 3);
  assertEquals(baseFees[1], `0x${header.baseFeePerGas!.toString(16)}`);
  assertEquals((history.gasUsedRatio as number[]).length, 2);
  assertEquals(history.gasUsedRatio as number[], [
    Number(f.chain.getHeaderByNumber(1n)!.gasUsed) / 30_000_000,
    Number(header.gasUsed) / 30_000_000,
  ]);
  const reward = history.reward as string[][];
  assertEquals(reward.length, 2);
  // Block 1: the deposit tips 0; the three user txs tip 1 gwei.
  assertEquals(reward[0], ["0x0", "0x3b9aca00", "0x3b9aca00"]);
  assertEquals((await f.call<Record<string, unknown>>("eth_feeHistory", [4, "0x1"])).oldestBlock, "0x0");
  assertEquals((await f.rpc("eth_feeHistory", ["0x2", "latest", [50, 10]])).error?.code, -32000);
});

Deno.test("eth_feeHistory: geth's shapes and words at the edges", async () => {
  const err = async (params: unknown[]) => (await f.rpc("eth_feeHistory", params)).error;
  // No percentiles: no reward field (omitempty); no blocks: only oldestBlock and a null gasUsedRatio.
  const plain = await f.call<Record<string, unknown>>("eth_feeHistory", ["0x2", "latest", []]);
  assertEquals("reward" in plain, false);
  assertEquals((plain.gasUsedRatio as number[]).length, 2);
  assertEquals(await f.call("eth_feeHistory", ["0x0", "latest", [50]]), {
    oldestBlock: "0x0",
    gasUsedRatio: null,
  });
  const head = f.chain.headNumber();
  assertEquals(await err(["0x2", "0x100", [50]]), {
    code: -32000,
    message: `request beyond head block: requested 256, head ${head}`,
  });
  assertEquals((await err(["0x2", "latest", [101]]))?.message, "invalid reward percentile: 101.000000");
  assertEquals(
    (await err(["0x2", "latest", [90, 10]]))?.message,
    "invalid reward percentile: #0:90.000000 >= #1:10.000000",
  );
  assertEquals(
    (await err(["0x2", "latest", Array.from({ length: 101 }, (_, i) => i)]))?.message,
    "invalid reward percentile: over the query limit 100",
  );
});

Deno.test("gas price oracle: a block at capacity suggests 10% over its median tip (op-geth)", async () => {
  const g = await createFixture({}, 100_000n);
  const tips = [2n * GWEI, 3n * GWEI, 5n * GWEI, 7n * GWEI];
  await g.mine(
    tips.map((tip, i) =>
      g.sign(A, BigInt(i), { to: B.address, value: 1n, gas: 21_000n, tip, maxFee: 20n * GWEI })
    ),
  );
  const header = g.chain.getHeadHeader("latest")!;
  assertEquals(header.gasUsed, 84_000n);
  // 84,000 + 21,000 > 100,000: at capacity. Median of [2, 3, 5, 7] gwei is 5 gwei; +10%.
  assertEquals(await g.call("eth_maxPriorityFeePerGas"), `0x${(5n * GWEI + GWEI / 2n).toString(16)}`);
  // Capped by gpo.maxprice.
  const h = await createFixture({ maxPrice: GWEI }, 100_000n);
  await h.mine(
    tips.map((tip, i) =>
      h.sign(A, BigInt(i), { to: B.address, value: 1n, gas: 21_000n, tip, maxFee: 20n * GWEI })
    ),
  );
  assertEquals(await h.call("eth_maxPriorityFeePerGas"), `0x${GWEI.toString(16)}`);
});
