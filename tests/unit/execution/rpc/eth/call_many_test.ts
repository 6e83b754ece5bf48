/**
 * eth_callMany (reth, erigon) over a real dev node: calls in bundles run on one state in order (a
 * transfer then a balance read sees it), block overrides per bundle, state overrides, the state after the
 * first N transactions of a block (stateContext.transactionIndex), and reth's error strings; nothing
 * reaches the chain.
 */
import { bytesToHex } from "../../../../../lib/common/bytes.ts";
import { assertEquals } from "../../../../assert.ts";
import { DEV, OTHER, transfer, withNode } from "../dev/dev_node.ts";

/** Runtime code: returns BALANCE(OTHER) as a word. PUSH20 OTHER BALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const BALANCE_OF_OTHER = `0x73${OTHER.slice(2)}3160005260206000f3`;
/** Runtime code: returns NUMBER and TIMESTAMP as two words. */
const NUMBER_AND_TIME = "0x4360005242602052604060" + "00f3";
/** Runtime code: REVERT(0, 0). */
const REVERTS = "0x60006000fd";
const READER = "0x00000000000000000000000000000000000000b1";
const CLOCK = "0x00000000000000000000000000000000000000b2";
const FAILER = "0x00000000000000000000000000000000000000b3";

const word = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}`;

Deno.test("eth_callMany: bundles on one state, overrides, a block's state after N transactions", () =>
  withNode(async (node) => {
    const dev = bytesToHex(DEV.address);
    await node.call("anvil_setCode", [READER, BALANCE_OF_OTHER]);
    await node.call("anvil_setCode", [CLOCK, NUMBER_AND_TIME]);
    await node.call("anvil_setCode", [FAILER, REVERTS]);
    const before = BigInt(await node.call<string>("eth_getBalance", [OTHER, "latest"]));
    const head = await node.call<string>("eth_blockNumber");
    const answers = await node.call<unknown[][]>("eth_callMany", [[
      { transactions: [{ to: READER }, { from: dev, to: OTHER, value: "0x64" }, { to: READER }] },
      { transactions: [{ to: CLOCK }], blockOverride: { number: "0x99", time: "0x1234" } },
      { transactions: [{ to: FAILER }, { from: dev, to: READER, gas: "0x5212" }] },
    ]]);
    assertEquals(answers, [
      [{ value: word(before) }, { value: "0x" }, { value: word(before + 100n) }],
      [{ value: word(0x99n) + word(0x1234n).slice(2) }],
      [{ error: "execution reverted" }, { error: "out of gas" }],
    ]);
    // Nothing reached the chain.
    assertEquals(await node.call("eth_blockNumber"), head);
    assertEquals(BigInt(await node.call<string>("eth_getBalance", [OTHER, "latest"])), before);
    // A state override, seen by the calls.
    const overridden = await node.call<unknown[][]>("eth_callMany", [
      [{ transactions: [{ to: READER }] }],
      { blockNumber: "latest" },
      { [OTHER]: { balance: "0x7" } },
    ]);
    assertEquals(overridden, [[{ value: word(7n) }]]);
    // A block with two transfers to OTHER: the state after its first one (index 1 counts the deposit).
    await node.call("evm_setAutomine", [false]);
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 0n, 1000n))]);
    await node.call("eth_sendRawTransaction", [bytesToHex(transfer(node, 1n, 2000n))]);
    await node.call("evm_mine");
    const at = (index: number) =>
      node.call<{ value: string }[][]>("eth_callMany", [[{ transactions: [{ to: READER }] }], {
        blockNumber: "latest",
        transactionIndex: index,
      }]);
    assertEquals((await at(1))[0][0].value, word(before));
    assertEquals((await at(2))[0][0].value, word(before + 1000n));
    assertEquals((await at(-1))[0][0].value, word(before + 3000n));
    const empty = await node.error("eth_callMany", [[]]);
    assertEquals(empty.code, -32602);
  }));
