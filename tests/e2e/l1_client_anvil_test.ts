/**
 * keel's L1 client against anvil (the real binary) as L1: headers hash to their hashes under anvil's
 * fork (Prague: every header field), transactions of every type come back with their signers
 * recovered, receipts carry their logs, the transactions and receipts roots match (anvil 1.7.1 commits
 * blob transactions in their pooled form: l1_client.ts takes that too); a proxy that alters what anvil
 * says, a header field, a transaction, the list of transactions, a log, is caught.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import {
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { Address, createAddressFromPrivateKey, eoaCode7702SignAuthorization } from "@ethereumjs/util";
import { bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import { isErrorCode } from "../../lib/common/errors.ts";
import { JsonRpcClient } from "../../lib/common/json_rpc_client.ts";
import { blobTx } from "../unit/execution/txpool/fixtures.ts";
import { L1Client } from "../../lib/rollup/l1/l1_client.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { anvilForTest, DEV_PRIVATE_KEY, startAnvil, waitForReceipt } from "./helpers/mod.ts";

const tool = await anvilForTest("l1_client_anvil_test");

const key = hexToBytes(DEV_PRIVATE_KEY);
const sender = createAddressFromPrivateKey(key).bytes;
const to = new Uint8Array(20).fill(0x42);
/** Initcode that emits LOG1(topic 0x07..07) with 2 bytes of data and deploys nothing. */
const LOG_INITCODE = hexToBytes(
  "0x61abcd60005260" + "07".repeat(1) + "7f" + "07".repeat(32) + "60026000a1" + "00",
);

Deno.test({
  name: "l1 client: anvil's blocks, transactions of every type and receipts, verified",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    try {
      const rpc = new JsonRpcClient(anvil.url);
      const chainId = BigInt(await rpc.call<string>("eth_chainId"));
      const gasPrice = BigInt(await rpc.call<string>("eth_gasPrice")) * 2n;
      const common = new Common({
        chain: { ...Mainnet, chainId: Number(chainId) },
        hardfork: Hardfork.Prague,
      });
      const sent: [string, TypedTransaction, Uint8Array][] = [];
      const send = async (name: string, tx: TypedTransaction, raw = tx.serialize()) => {
        const hash = await rpc.call<string>("eth_sendRawTransaction", [bytesToHex(raw)]);
        assertEquals(hash, bytesToHex(tx.hash()), name);
        sent.push([name, tx, hexToBytes(hash)]);
      };
      let nonce = 0n;
      await send(
        "legacy",
        createLegacyTx(
          { nonce: nonce++, gasPrice, gasLimit: 30_000, to, value: 1n, data: Uint8Array.of(1) },
          { common },
        ).sign(key),
      );
      await send(
        "creation with a log",
        createFeeMarket1559Tx({
          chainId,
          nonce: nonce++,
          maxFeePerGas: gasPrice,
          maxPriorityFeePerGas: 1n,
          gasLimit: 100_000,
          data: LOG_INITCODE,
        }, { common }).sign(key),
      );
      await send(
        "set-code",
        createEOACode7702Tx({
          chainId,
          nonce: nonce++,
          maxFeePerGas: gasPrice,
          maxPriorityFeePerGas: 1n,
          gasLimit: 100_000,
          to,
          authorizationList: [
            eoaCode7702SignAuthorization({
              chainId: `0x${chainId.toString(16)}`,
              address: bytesToHex(to),
              nonce: "0x0",
            }, new Uint8Array(32).fill(9)),
          ],
        }, { common }).sign(key),
      );
      const blob = await blobTx(chainId, {
        keyBytes: key,
        nonce: nonce++,
        to: new Address(to),
        feeCap: gasPrice,
        tip: 1n,
        blobFeeCap: 10n ** 9n,
      });
      await send("blob", blob.tx, blob.network);

      const client = new L1Client(rpc);
      for (const [name, tx, hash] of sent) {
        const receipt = await waitForReceipt(rpc, bytesToHex(hash));
        assertEquals(receipt.status, "0x1", name);
        const block = await client.blockWithTxs(hexToBytes(receipt.blockHash));
        const got = block.txs.find((t) => bytesToHex(t.hash) === bytesToHex(hash))!;
        assertEquals(got.from, sender, name);
        assertEquals(got.type, tx.type, name);
        if (tx.type === 3) assertEquals(got.blobVersionedHashes.length, 1);
        const receipts = await client.receipts(block.header.hash);
        // --l1.rpckind basic: the same receipts, one eth_getTransactionReceipt each (batches of 1 here).
        const basic = new L1Client(rpc, { rpcKind: "basic", maxBatchSize: 1 });
        assertEquals(await basic.receipts(block.header.hash), receipts, name);
        // --l1.rpckind any: anvil knows none of alchemy_, debug_getRawReceipts, erigon_: eth_getBlockReceipts.
        const any = new L1Client(rpc, { rpcKind: "any" });
        assertEquals(await any.receipts(block.header.hash), receipts, name);
        if (name === "creation with a log") {
          const logs = receipts.flatMap((r) => r.logs);
          assertEquals(logs.length, 1);
          assertEquals(logs[0].topics, [new Uint8Array(32).fill(7)]);
        }
        assertEquals(block.header.excessBlobGas !== undefined, true, "Prague headers carry the blob fields");
      }
      const latest = await client.blockRef("latest");
      assert(latest.number >= BigInt(sent.length));
      assertEquals((await client.blockRef(latest.number)).hash, latest.hash);
      await assertRejects(() => client.header(10_000n), Error, "Cannot find L1 block 10000");
    } finally {
      await anvil.stop();
    }
  },
});

Deno.test({
  name: "l1 client: a proxy that alters anvil's answers is caught unless the RPC is trusted",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    const ac = new AbortController();
    // deno-lint-ignore no-explicit-any
    let alter: (result: any, method: string) => void = () => {};
    const proxy = Deno.serve(
      { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
      async (req) => {
        const text = await req.text();
        const res = await fetch(anvil.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: text,
        });
        const body = await res.json();
        const method = Array.isArray(body) ? "batch" : JSON.parse(text).method;
        if (body.result !== null && typeof body.result === "object") alter(body.result, method);
        return Response.json(body);
      },
    );
    try {
      const rpc = new JsonRpcClient(`http://127.0.0.1:${proxy.addr.port}`);
      const chainId = BigInt(await rpc.call<string>("eth_chainId"));
      const common = new Common({
        chain: { ...Mainnet, chainId: Number(chainId) },
        hardfork: Hardfork.Prague,
      });
      // One block of three transactions: a transfer, a creation that logs, another transfer.
      await rpc.call("evm_setAutomine", [false]);
      const raws = [
        createLegacyTx({ nonce: 0, gasPrice: 10n ** 10n, gasLimit: 30_000, to, value: 5n }, { common }),
        createLegacyTx({ nonce: 1, gasPrice: 10n ** 10n, gasLimit: 100_000, data: LOG_INITCODE }, { common }),
        createLegacyTx({ nonce: 2, gasPrice: 10n ** 10n, gasLimit: 30_000, to, value: 6n }, { common }),
      ].map((tx) => bytesToHex(tx.sign(key).serialize()));
      const hashes = [];
      for (const raw of raws) hashes.push(await rpc.call<string>("eth_sendRawTransaction", [raw]));
      await rpc.call("evm_mine");
      const txHash = hashes[0];
      const client = new L1Client(rpc);
      const head = await client.blockRef(hexToBytes((await waitForReceipt(rpc, txHash)).blockHash));
      assertEquals((await client.blockWithTxs(head.hash)).txs.length, 3);
      assertEquals((await client.receipts(head.hash))[1].logs.length, 1);
      alter = (b) => {
        if (typeof b.timestamp === "string") b.timestamp = "0x1";
      };
      const e1 = await client.header(head.hash).then((h) => new Error(`accepted ${h.timestamp}`), (e) => e);
      assert(isErrorCode(e1, "L1_INVALID"), String(e1));
      assertEquals((await new L1Client(rpc, { trustRpc: true }).header(head.hash)).timestamp, 1n);
      alter = (b) => {
        const txs = b.transactions as Record<string, string>[] | undefined;
        if (txs !== undefined && txs.length > 0 && typeof txs[0] === "object") txs[0].value = "0x6";
      };
      const e2 = await assertRejects(() => client.blockWithTxs(head.hash));
      assert(isErrorCode(e2, "L1_TX_INVALID"), String(e2));

      // Each transaction left intact but one dropped: the list no longer makes the transactions root.
      alter = (b, method) => {
        if (method === "eth_getBlockByHash" && typeof b.transactions?.[0] === "object") {
          b.transactions.splice(1, 1);
        }
      };
      const e3 = await assertRejects(() => new L1Client(rpc).blockWithTxs(head.hash));
      assert(isErrorCode(e3, "L1_INVALID") && /transactions have root/.test(e3.message), String(e3));
      assertEquals((await new L1Client(rpc, { trustRpc: true }).blockWithTxs(head.hash)).txs.length, 2);

      // The deposit-like log dropped, or its data changed: the receipts no longer make the receipts root.
      for (
        const change of [
          (r: { logs: unknown[] }[]) => r[1].logs.pop(),
          (r: { logs: { data: string }[] }[]) => (r[1].logs[0].data = "0xabce"),
        ]
      ) {
        alter = (r, method) => {
          if (method === "eth_getBlockReceipts") change(r);
        };
        const e4 = await assertRejects(() => new L1Client(rpc).receipts(head.hash));
        assert(isErrorCode(e4, "L1_INVALID") && /their root is/.test(e4.message), String(e4));
        const trusted = await new L1Client(rpc, { trustRpc: true }).receipts(head.hash);
        assert(trusted[1].logs.length === 0 || trusted[1].logs[0].data[1] === 0xce);
      }
      // Unaltered, per-transaction calls (--l1.rpckind basic) give the same verified receipts.
      alter = () => {};
      const basic = await new L1Client(rpc, { rpcKind: "basic" }).receipts(head.hash);
      assertEquals(basic, await new L1Client(rpc).receipts(head.hash));
    } finally {
      ac.abort();
      await proxy.finished;
      await anvil.stop();
    }
  },
});
