/**
 * debug_getModifiedAccountsByNumber / ByHash over a real dev node: the accounts a block changed (its
 * sender, recipient, the L1-info deposit's L1Block and depositor, the fee vaults), the accounts changed
 * across a range, none of the untouched, and geth's refusals.
 */
import { bytesToHex } from "../../../../../lib/common/bytes.ts";
import { deriveDevAccounts } from "../../../../../lib/execution/genesis/mod.ts";
import { assert, assertEquals } from "../../../../assert.ts";
import { DEV, OTHER, transfer, withNode } from "../dev/dev_node.ts";

const [, SECOND, THIRD] = deriveDevAccounts(3);
const L1_BLOCK = "0x4200000000000000000000000000000000000015";
const DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
const BASE_FEE_VAULT = "0x4200000000000000000000000000000000000019";

Deno.test("debug_getModifiedAccounts: a block's and a range's changed accounts, by number and by hash", () =>
  withNode(async (node) => {
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 0n, 5n))]);
    await node.miner.idle();
    await node.call("eth_sendTransaction", [{ from: bytesToHex(SECOND.address), to: OTHER, value: "0x9" }]);
    await node.miner.idle();
    const one = await node.call<string[]>("debug_getModifiedAccountsByNumber", [1]);
    for (const a of [bytesToHex(DEV.address), OTHER, L1_BLOCK, DEPOSITOR, BASE_FEE_VAULT]) {
      assert(one.includes(a), `${a} in ${one}`);
    }
    assert(!one.includes(bytesToHex(SECOND.address)), "block 1 did not touch the second account");
    assert(!one.includes(bytesToHex(THIRD.address)));
    const hash1 = (await node.call<{ hash: string }>("eth_getBlockByNumber", ["0x1", false])).hash;
    assertEquals(await node.call("debug_getModifiedAccountsByHash", [hash1]), one);
    const both = await node.call<string[]>("debug_getModifiedAccountsByNumber", [0, 2]);
    assert(both.includes(bytesToHex(SECOND.address)) && both.includes(bytesToHex(DEV.address)));
    assert(!both.includes(bytesToHex(THIRD.address)));
    assertEquals(both, [...both].sort(), "sorted");
    const backwards = await node.error("debug_getModifiedAccountsByNumber", [2, 1]);
    assertEquals(backwards.message, "start block height (2) must be less than end block height (1)");
    const genesis = await node.error("debug_getModifiedAccountsByNumber", [0]);
    assertEquals(genesis.message, "the genesis block has no parent");
    const missing = await node.error("debug_getModifiedAccountsByNumber", [99]);
    assertEquals(missing.message, "start block 99 not found");
  }));
