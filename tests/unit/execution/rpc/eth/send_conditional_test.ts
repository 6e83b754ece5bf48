/**
 * eth_sendRawTransactionConditional (op-geth's, for ERC-4337 bundlers) over a real dev node: op-geth's
 * refusals and codes (cost above 1,000 lookups -32005; malformed ranges, the head's header and the head
 * parent's state -32003), a transaction whose conditional holds mined, and one whose conditional stops
 * holding before its block is built left out of the block and dropped from the pool.
 */
import { bytesToHex } from "../../../../../lib/common/bytes.ts";
import { EMPTY_TRIE_ROOT } from "../../../../../lib/protocol/mod.ts";
import { assert, assertEquals, assertStringIncludes } from "../../../../assert.ts";
import { DEV, type Node, OTHER, transfer, withNode } from "../dev/dev_node.ts";

const SLOT = `0x${"00".repeat(31)}07`;
const ZERO = `0x${"00".repeat(32)}`;
const ONE = `0x${"00".repeat(31)}01`;

async function send(node: Node, nonce: bigint, conditional: unknown) {
  return await node.rpc("eth_sendRawTransactionConditional", [
    bytesToHex(transfer(node, nonce)),
    conditional,
  ]);
}

Deno.test("eth_sendRawTransactionConditional: op-geth's refusals, codes and messages", () =>
  withNode(async (node) => {
    const many = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [`0x${i.toString(16).padStart(64, "0")}`, ZERO]),
    );
    const costly = await send(node, 0n, { knownAccounts: { [OTHER]: many } });
    assertEquals(costly.error, { code: -32005, message: "conditional cost, 1001, exceeded max: 1000" });
    const range = await send(node, 0n, { knownAccounts: {}, timestampMin: "0x10", timestampMax: "0x5" });
    assertEquals(range.error, {
      code: -32003,
      message: "failed conditional validation: timestamp minimum constraint must be less than the maximum",
    });
    // One block first: the head is block 1, so a maximum of 0 has passed.
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 0n))]);
    await node.miner.idle();
    const late = await send(node, 1n, { knownAccounts: {}, blockNumberMax: "0x0" });
    assertEquals(late.error, {
      code: -32003,
      message: "failed header check: failed block number maximum constraint",
    });
    const early = await send(node, 0n, { knownAccounts: {}, blockNumberMin: "1000" });
    assertEquals(early.error, {
      code: -32003,
      message: "failed header check: failed block number minimum constraint",
    });
    const slot = await send(node, 0n, { knownAccounts: { [OTHER]: { [SLOT]: ONE } } });
    assertEquals(slot.error?.code, -32003);
    assertStringIncludes(
      slot.error!.message,
      `state check: failed account storage slot key ${SLOT} constraint. Got ${ZERO}, Expected ${ONE}`,
    );
    const bad = await node.rpc("eth_sendRawTransactionConditional", [bytesToHex(transfer(node, 0n)), {
      knownAccounts: { [OTHER]: "0x12" },
    }]);
    assertEquals(bad.error?.code, -32602);
  }));

Deno.test("eth_sendRawTransactionConditional: a holding conditional is mined", () =>
  withNode(async (node) => {
    // An account without storage has the empty storage root; slot 7 of OTHER is zero.
    const hash = await send(node, 0n, {
      knownAccounts: { [bytesToHex(DEV.address)]: bytesToHex(EMPTY_TRIE_ROOT), [OTHER]: { [SLOT]: ZERO } },
      timestampMin: 0,
    });
    assert(hash.result !== undefined, JSON.stringify(hash.error));
    await node.miner.idle();
    const receipt = await node.call<{ status: string }>("eth_getTransactionReceipt", [hash.result]);
    assertEquals(receipt.status, "0x1");
  }));

Deno.test("eth_sendRawTransactionConditional: a conditional broken before the block is built drops the transaction", () =>
  withNode(async (node) => {
    await node.call("evm_setAutomine", [false]);
    const hash = await send(node, 0n, { knownAccounts: { [OTHER]: { [SLOT]: ZERO } } });
    assert(hash.result !== undefined, JSON.stringify(hash.error));
    assertEquals(node.engine.pool.has(hash.result as `0x${string}`), true);
    // The slot changes under it (as another transaction would change it).
    await node.call("anvil_setStorageAt", [OTHER, SLOT, ONE]);
    await node.call("evm_mine");
    const block = await node.call<{ transactions: string[] }>("eth_getBlockByNumber", ["latest", false]);
    assertEquals(block.transactions.includes(hash.result as string), false);
    assertEquals(node.engine.pool.has(hash.result as `0x${string}`), false, "dropped from the pool");
    assertEquals(await node.call("eth_getTransactionByHash", [hash.result]), null);
    // A plain transaction with the same nonce goes in.
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 0n, 2n))]);
    await node.call("evm_mine");
    const next = await node.call<{ transactions: string[] }>("eth_getBlockByNumber", ["latest", false]);
    assertEquals(next.transactions.length, 2);
  }));
