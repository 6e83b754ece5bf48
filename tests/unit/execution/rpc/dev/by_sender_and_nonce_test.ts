/**
 * eth_getTransactionBySenderAndNonce and ots_getTransactionBySenderAndNonce's lookup over a real dev
 * node: mined transactions found by bisecting the sender's nonce history (deposits by their receipt's
 * deposit nonce), pool transactions with null block fields, null for a nonce never sent.
 */
import { bytesToHex } from "../../../../../lib/common/bytes.ts";
import { assertEquals } from "../../../../assert.ts";
import { DEV, transfer, withNode } from "./dev_node.ts";

const DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";

interface RpcTx {
  hash: string;
  nonce: string;
  blockNumber: string | null;
  from: string;
}

Deno.test("eth_getTransactionBySenderAndNonce: mined, deposits, pooled, never sent", () =>
  withNode(async (node) => {
    const sent: string[] = [];
    for (let i = 0n; i < 5n; i++) {
      sent.push(await node.call<string>("eth_sendRawTransaction", [bytesToHex(transfer(node, i))]));
      await node.miner.idle();
    }
    const sender = bytesToHex(DEV.address);
    for (let i = 0; i < 5; i++) {
      const tx = await node.call<RpcTx>("eth_getTransactionBySenderAndNonce", [
        sender,
        `0x${i.toString(16)}`,
      ]);
      assertEquals([tx.hash, tx.nonce, tx.blockNumber], [sent[i], `0x${i}`, `0x${i + 1}`]);
    }
    // The L1-info deposit of block 3: the depositor's nonce 2 (block 1's deposit has 0).
    const deposit = await node.call<RpcTx>("eth_getTransactionBySenderAndNonce", [DEPOSITOR, 2]);
    assertEquals([deposit.from, deposit.blockNumber], [DEPOSITOR, "0x3"]);
    // In the pool: a pending one (automine off) and a queued one past a gap.
    await node.call("evm_setAutomine", [false]);
    const pending = await node.call<string>("eth_sendRawTransaction", [bytesToHex(transfer(node, 5n))]);
    const queued = await node.call<string>("eth_sendRawTransaction", [bytesToHex(transfer(node, 7n))]);
    const p = await node.call<RpcTx>("eth_getTransactionBySenderAndNonce", [sender, "0x5"]);
    assertEquals([p.hash, p.blockNumber], [pending, null]);
    const q = await node.call<RpcTx>("eth_getTransactionBySenderAndNonce", [sender, 7]);
    assertEquals([q.hash, q.blockNumber], [queued, null]);
    assertEquals(await node.call("eth_getTransactionBySenderAndNonce", [sender, "0x6"]), null);
    assertEquals(await node.call("eth_getTransactionBySenderAndNonce", [sender, "0x64"]), null);
    const err = await node.error("eth_getTransactionBySenderAndNonce", ["0x12", "0x0"]);
    assertEquals(err.code, -32602);
  }));
