import { toChecksumAddress } from "@ethereumjs/util";
/**
 * eth_simulateV1 (execution-apis execute.yaml; the request shapes of its tests/eth_simulateV1): real
 * blocks on a scratch copy of the state, each on the one before; per-call results; the error codes.
 */
import { bytesToHex } from "../../../../../lib/common/mod.ts";
import { assert, assertEquals, assertNotEquals } from "../../../../assert.ts";
import { A, B, createDeployed, createFixture, errorData, LOG_TOPIC } from "../fixture.ts";

const d = await createDeployed();
const f = d.fixture;
const hex = bytesToHex;
const C0 = "0xc000000000000000000000000000000000000000";
const C1 = "0xc100000000000000000000000000000000000000";
const C2 = "0xc200000000000000000000000000000000000000";
type Block = Record<string, unknown> & { calls: Record<string, unknown>[] };

async function simulate(payload: unknown, block: unknown = "latest"): Promise<Block[]> {
  return await f.call<Block[]>("eth_simulateV1", [payload, block]);
}

Deno.test("eth_simulateV1: transfers in one block, funded by a state override (ethSimulate-simple)", async () => {
  const latest = await f.call<{ number: string; hash: string; timestamp: string }>("eth_getBlockByNumber", [
    "latest",
    false,
  ]);
  const [block] = await simulate({
    blockStateCalls: [{
      stateOverrides: { [C0]: { balance: "0x3e8" } },
      // The third call has no `from`: the zero address sends.
      calls: [{ from: C0, to: C1, value: "0x3e8" }, { from: C1, to: C2, value: "0x3e8" }, { to: C1 }],
    }],
  });
  assertEquals(block.number, `0x${(BigInt(latest.number) + 1n).toString(16)}`);
  assertEquals(block.parentHash, latest.hash);
  assertEquals(BigInt(block.timestamp as string), BigInt(latest.timestamp) + 12n);
  assertEquals(block.baseFeePerGas, "0x0");
  assertEquals(block.gasUsed, "0xf618");
  assertEquals(block.calls, [
    { returnData: "0x", logs: [], gasUsed: "0x5208", status: "0x1" },
    { returnData: "0x", logs: [], gasUsed: "0x5208", status: "0x1" },
    { returnData: "0x", logs: [], gasUsed: "0x5208", status: "0x1" },
  ]);
  assertEquals((block.transactions as string[]).length, 3);
  // A real block: its hash is the hash of its header, and a state root was computed.
  assertNotEquals(block.stateRoot, hex(new Uint8Array(32)));
  // Nothing reached the node: C2 has nothing, the head did not move.
  assertEquals(await f.call("eth_getBalance", [C2, "latest"]), "0x0");
  assertEquals((await f.call<{ hash: string }>("eth_getBlockByNumber", ["latest", false])).hash, latest.hash);
});

Deno.test("eth_simulateV1: blocks build on each other; logs carry the block's fields; a revert is a result", async () => {
  const word = hex(new Uint8Array(32).fill(5));
  const blocks = await simulate({
    blockStateCalls: [
      { calls: [{ from: hex(A.address), to: hex(d.logger), input: word }] },
      {
        blockOverrides: { number: "0x20", time: "0x7fffffff" },
        calls: [
          // SLOAD(0) of the logger, written by the block before: it sees the simulated state.
          { from: hex(A.address), to: hex(d.reverter) },
        ],
      },
    ],
  });
  // A gap from the head to 0x20 is filled with empty blocks, returned too.
  const head = BigInt(await f.call<string>("eth_blockNumber", []));
  assertEquals(blocks.length, Number(0x20n - head));
  assertEquals(blocks.at(-1)!.number, "0x20");
  assertEquals(blocks.at(-1)!.timestamp, "0x7fffffff");
  for (let i = 1; i < blocks.length; i++) assertEquals(blocks[i].parentHash, blocks[i - 1].hash);
  const logged = blocks[0].calls[0];
  assertEquals(logged.status, "0x1");
  const [log] = logged.logs as Record<string, unknown>[];
  assertEquals(log.address, hex(d.logger));
  assertEquals((log.topics as string[])[0], hex(LOG_TOPIC));
  assertEquals(log.blockHash, blocks[0].hash);
  assertEquals(log.blockNumber, blocks[0].number);
  assertEquals(log.transactionHash, (blocks[0].transactions as string[])[0]);
  assertEquals(log.logIndex, "0x0");
  const reverted = blocks.at(-1)!.calls[0];
  assertEquals(reverted.status, "0x0");
  // As geth: no return data for a failed call; the revert data is the error's.
  assertEquals(reverted.returnData, "0x");
  assertEquals(reverted.error, {
    code: 3,
    message: "execution reverted: nope",
    data: hex(errorData("nope")),
  });
});

Deno.test("eth_simulateV1: validation checks nonce, base fee and funds with the spec's codes", async () => {
  const nonce = BigInt(await f.call<string>("eth_getTransactionCount", [hex(A.address), "latest"]));
  const low = await f.rpc("eth_simulateV1", [{
    validation: true,
    blockStateCalls: [{
      calls: [{
        from: hex(A.address),
        to: C1,
        maxFeePerGas: "0x3b9aca00",
        nonce: `0x${(nonce - 1n).toString(16)}`,
      }],
    }],
  }]);
  assertEquals(low.error?.code, -38010);
  const high = await f.rpc("eth_simulateV1", [{
    validation: true,
    blockStateCalls: [{
      calls: [{
        from: hex(A.address),
        to: C1,
        maxFeePerGas: "0x3b9aca00",
        nonce: `0x${(nonce + 5n).toString(16)}`,
      }],
    }],
  }]);
  assertEquals(high.error?.code, -38011);
  assertEquals(
    high.error?.message.startsWith(
      `err: nonce too high: address ${toChecksumAddress(hex(A.address))}, tx: ${nonce + 5n} state: ${nonce}`,
    ),
    true,
    high.error?.message,
  );
  // geth checks the nonce before the fees: no fee and a stale nonce is nonce too low, not base fee too low.
  const order = await f.rpc("eth_simulateV1", [{
    validation: true,
    blockStateCalls: [{ calls: [{ from: hex(A.address), to: C1, nonce: `0x${(nonce - 1n).toString(16)}` }] }],
  }]);
  assertEquals(order.error?.code, -38010);
  // ethSimulate-basefee-too-low-with-validation-38012: no fee fields, base fee above zero.
  const fee = await f.rpc("eth_simulateV1", [{
    validation: true,
    blockStateCalls: [{ calls: [{ from: hex(A.address), to: C1 }] }],
  }]);
  assertEquals(fee.error?.code, -38012);
  // ethSimulate-simple-no-funds: value above the balance.
  const funds = await f.rpc("eth_simulateV1", [{
    blockStateCalls: [{ calls: [{ from: C0, to: C1, value: "0x3e8" }] }],
  }]);
  assertEquals(funds.error?.code, -38014);
  // Without validation a wrong nonce is no error (eth_call-like) and fees are free.
  const [ok] = await simulate({
    blockStateCalls: [{ calls: [{ from: hex(A.address), to: C1, nonce: "0x0", value: "0x1" }] }],
  });
  assertEquals(ok.calls[0].status, "0x1");
  // Validation with a fee that pays the base fee: the block's base fee is the EIP-1559 one.
  const [valid] = await simulate({
    validation: true,
    blockStateCalls: [{ calls: [{ from: hex(A.address), to: C1, maxFeePerGas: "0x3b9aca00" }] }],
  });
  assert(BigInt(valid.baseFeePerGas as string) > 0n);
  assertEquals(valid.calls[0].status, "0x1");
});

Deno.test("eth_simulateV1: block order, gas, limits and unsupported options are errors", async () => {
  const order = await f.rpc("eth_simulateV1", [{
    blockStateCalls: [{ blockOverrides: { number: "0x78" } }, { blockOverrides: { number: "0x6e" } }],
  }]);
  assertEquals(order.error?.code, -38020);
  const time = await f.rpc("eth_simulateV1", [{
    blockStateCalls: [{ blockOverrides: { time: "0x7fffffff" } }, { blockOverrides: { time: "0x7ffffffe" } }],
  }]);
  assertEquals(time.error?.code, -38021);
  const many = await f.rpc("eth_simulateV1", [{
    blockStateCalls: [{ blockOverrides: { number: "0x1000" } }],
  }]);
  assertEquals(many.error?.code, -38026);
  const gas = await f.rpc("eth_simulateV1", [{
    blockStateCalls: [{
      blockOverrides: { gasLimit: "0x5208" },
      calls: [{ from: C0, to: C1, gas: "0x5208" }, { from: C0, to: C1, gas: "0x5208" }],
    }],
  }]);
  assertEquals(gas.error?.code, -38015);
  const intrinsic = await f.rpc("eth_simulateV1", [{
    blockStateCalls: [{ calls: [{ from: C0, to: C1, gas: "0x1" }] }],
  }]);
  assertEquals(intrinsic.error?.code, -38013);
  for (
    const payload of [
      {
        blockStateCalls: [{
          blockOverrides: {
            withdrawals: [{ index: "0x0", validatorIndex: "0x0", address: C1, amount: "0x1" }],
          },
        }],
      },
    ]
  ) {
    assertEquals((await f.rpc("eth_simulateV1", [payload])).error?.code, -32602, JSON.stringify(payload));
  }
});

Deno.test("eth_simulateV1: full transactions, contract senders, BLOCKHASH of a simulated block, BLOBBASEFEE", async () => {
  // Code at C0 (a contract may send): BLOCKHASH(NUMBER - 1) returned as a word.
  const blockhashOfParent = "0x600143034060005260206000f3";
  const blocks = await simulate({
    returnFullTransactions: true,
    blockStateCalls: [
      { calls: [{ from: hex(B.address), to: C1, value: "0x1" }] },
      {
        stateOverrides: { [C1]: { code: blockhashOfParent }, [C0]: { code: "0x00", balance: "0x1" } },
        calls: [{ from: C0, to: C1 }],
      },
    ],
  });
  const [tx] = blocks[0].transactions as Record<string, unknown>[];
  assertEquals(tx.from, hex(B.address));
  assertEquals(tx.to, C1);
  assertEquals(tx.blockHash, blocks[0].hash);
  assertEquals(blocks[1].calls[0].status, "0x1");
  assertEquals(blocks[1].calls[0].returnData, blocks[0].hash);
  // A blobBaseFee override is what BLOBBASEFEE answers (BLOBBASEFEE, MSTORE, RETURN a word).
  const [blob] = await simulate({
    blockStateCalls: [{
      blockOverrides: { blobBaseFee: "0x15" },
      stateOverrides: { [C1]: { code: "0x4a60005260206000f3" } },
      calls: [{ from: C0, to: C1 }],
    }],
  });
  assertEquals(blob.calls[0].returnData, `0x${"00".repeat(31)}15`);
});

Deno.test("eth_simulateV1: traceTransfers puts ETH transfers among the logs, in order, without failed frames", async () => {
  const addr = (n: number) => `0xc${n}00000000000000000000000000000000000000`;
  const [C3, C4, C5, C6, C7, C8] = [3, 4, 5, 6, 7, 8].map(addr);
  // CALL(GAS, to, CALLVALUE, 0, 0, 0, 0)
  const call = (to: string) => `600060006000600034` + `73${to.slice(2)}5af1`;
  const transfer = (from: string, to: string, value: bigint) => ({
    address: "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
    topics: [
      "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
      `0x${"00".repeat(12)}${from.slice(2)}`,
      `0x${"00".repeat(12)}${to.slice(2)}`,
    ],
    data: `0x${value.toString(16).padStart(64, "0")}`,
  });
  const [block] = await simulate({
    traceTransfers: true,
    blockStateCalls: [{
      stateOverrides: {
        [C0]: { balance: "0x7d0" },
        // LOG0, then forward the value to C4.
        [C3]: { code: `0x60006000a0${call(C4)}00` },
        // Forward the value to C4, then revert.
        [C5]: { code: `0x${call(C4)}60006000fd` },
        // Forward the value to C5 (which reverts), go on.
        [C6]: { code: `0x${call(C5)}5000` },
        // SELFDESTRUCT to C8 with its balance.
        [C7]: { code: `0x73${C8.slice(2)}ff`, balance: "0xa" },
      },
      calls: [
        { from: C0, to: C1, value: "0x3e8" },
        { from: C0, to: C3, value: "0x7" },
        { from: C0, to: C5, value: "0x3" },
        { from: C0, to: C6, value: "0x2" },
        { from: C0, to: C7, value: "0x5" },
      ],
    }],
  });
  const shape = (logs: unknown) =>
    (logs as Record<string, unknown>[]).map(({ address, topics, data }) => ({ address, topics, data }));
  assertEquals(shape(block.calls[0].logs), [transfer(C0, C1, 0x3e8n)]);
  assertEquals(shape(block.calls[1].logs), [
    transfer(C0, C3, 7n),
    { address: C3, topics: [], data: "0x" },
    transfer(C3, C4, 7n),
  ]);
  // A call that reverts issues nothing; a failed inner call drops its transfers only.
  assertEquals(block.calls[2].status, "0x0");
  assertEquals(block.calls[2].logs, []);
  assertEquals(shape(block.calls[3].logs), [transfer(C0, C6, 2n)]);
  assertEquals(shape(block.calls[4].logs), [transfer(C0, C7, 5n), transfer(C7, C8, 15n)]);
  // Log indexes run over the block; the transfers are in no receipt, so not in the bloom.
  const indexes = block.calls.flatMap((c) => (c.logs as { logIndex: string }[]).map((l) => l.logIndex));
  assertEquals(indexes, ["0x0", "0x1", "0x2", "0x3", "0x4", "0x5", "0x6"]);
  assertEquals(BigInt(block.logsBloom as string) !== 0n, true);
  assertEquals(await f.call("eth_getBalance", [C4, "latest"]), "0x0");
});

Deno.test("eth_simulateV1: movePrecompileToAddress (ethSimulate-move-ecrecover-and-call-old-and-new)", async () => {
  const ECRECOVER = "0x0000000000000000000000000000000000000001";
  const MOVED = "0x0000000000000000000000000000000000123456";
  // The execution-apis vector: a hash, v, r, s that recover 0xb11c...f48a.
  const input =
    "0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8000000000000000000000000000000000000000000000000000000000000001cb7cf302145348387b9e69fde82d8e634a0f8761e78da3bfa059efced97cbed0d2a66b69167cafe0ccfc726aec6ee393fea3cf0e4f3f9c394705e0f56d9bfe1c9";
  const recovered = "0x000000000000000000000000b11cad98ad3f8114e0b3a1f6e7228bc8424df48a";
  const blocks = await simulate({
    blockStateCalls: [
      {
        stateOverrides: { [ECRECOVER]: { movePrecompileToAddress: MOVED } },
        calls: [{ from: C1, to: MOVED, input }, { from: C1, to: ECRECOVER, input }],
      },
      // The next block has the precompiles of the fork again.
      { calls: [{ from: C1, to: ECRECOVER, input }, { from: C1, to: MOVED, input }] },
    ],
  });
  assertEquals(blocks[0].calls.map((c) => c.returnData), [recovered, "0x"]);
  assertEquals(blocks[1].calls.map((c) => c.returnData), [recovered, "0x"]);
  // ethSimulate-try-to-move-non-precompile / move-to-address-itself: not a precompile.
  const notPrecompile = await f.rpc("eth_simulateV1", [{
    blockStateCalls: [{ stateOverrides: { [C1]: { movePrecompileToAddress: C1 } } }],
  }]);
  assertEquals(notPrecompile.error, { code: -32000, message: `account ${C1} is not a precompile` });
  // Onto an address the same overrides name.
  const named = await f.rpc("eth_simulateV1", [{
    blockStateCalls: [{
      stateOverrides: { [ECRECOVER]: { movePrecompileToAddress: C2 }, [C2]: { balance: "0x1" } },
    }],
  }]);
  assertEquals(named.error, { code: -32000, message: `account ${C2} is already overridden` });
  // eth_call moves precompiles too (geth doCall applies the overrides with the active precompiles).
  const call = await f.rpc("eth_call", [{ to: MOVED, input }, "latest", {
    [ECRECOVER]: { movePrecompileToAddress: MOVED },
  }]);
  assertEquals(call.error, undefined);
  assertEquals(call.result, (await f.rpc("eth_call", [{ to: ECRECOVER, input }])).result);
});

Deno.test("eth_simulateV1: rpc.evmtimeout bounds the request (-32016)", async () => {
  const slow = await createFixture({ evmTimeoutMs: 50 });
  // JUMPDEST PUSH1 0 JUMP: a loop until the gas runs out (50M gas: far past 50 ms).
  const loop = await slow.rpc("eth_simulateV1", [{
    blockStateCalls: [{ stateOverrides: { [C1]: { code: "0x5b600056" } }, calls: [{ from: C0, to: C1 }] }],
  }]);
  assertEquals(loop.error?.code, -32016);
  assertEquals(loop.error?.message, "execution aborted (timeout = 50ms)");
});

Deno.test("eth_simulateV1: without validation a fee-less call ignores an overridden base fee (geth NoBaseFee)", async () => {
  // BASEFEE, MSTORE, RETURN a word: it still answers the block's base fee.
  const code = "0x4860005260206000f3";
  const [block] = await simulate({
    blockStateCalls: [{
      blockOverrides: { baseFeePerGas: "0xa" },
      stateOverrides: { [C1]: { code } },
      // C2 has no funds: a fee-less call pays nothing.
      // The third creates (the full runTx path): its init code returns the word as the new code.
      calls: [{ from: C2, to: C1 }, { from: C2, to: C1, gasPrice: "0x0" }, { from: C2, input: code }],
    }],
  });
  assertEquals(block.baseFeePerGas, "0xa");
  const word = `0x${"00".repeat(31)}0a`;
  assertEquals(block.calls.map((c) => [c.status, c.returnData]), [["0x1", word], ["0x1", word], [
    "0x1",
    word,
  ]]);
  // A fee offered below the base fee is still held to it.
  const low = await f.rpc("eth_simulateV1", [{
    blockStateCalls: [{
      blockOverrides: { baseFeePerGas: "0xa" },
      calls: [{ from: C0, to: C1, maxFeePerGas: "0x5" }],
    }],
  }]);
  assertEquals(low.error?.code, -38012);
});

Deno.test("eth_simulateV1: a call that fails in the VM answers -32015 in the VM error's own words (geth)", async () => {
  const res = await f.call<{ calls: { status: string; error?: { code: number; message: string } }[] }[]>(
    "eth_simulateV1",
    [{
      blockStateCalls: [{
        // JUMPDEST PUSH1 0 JUMP: runs out of gas.
        stateOverrides: { [C1]: { code: "0x5b600056" } },
        calls: [{ from: C0, to: C1, gas: "0x10000" }],
      }],
    }],
  );
  assertEquals(res[0].calls[0].status, "0x0");
  assertEquals(res[0].calls[0].error, { code: -32015, message: "out of gas" });
});
