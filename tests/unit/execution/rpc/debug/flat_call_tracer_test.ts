/**
 * geth's flatCallTracer layout (eth/tracers/native/call_flat.go) from a frame tree: depth-first order,
 * trace addresses and subtraces, precompile calls left out by default, no result for a failure other
 * than a revert, geth's errors or Parity's with convertParityErrors, the block and transaction placement.
 */
import { hexToBytes } from "../../../../../lib/common/bytes.ts";
import type { CallFrame } from "../../../../../lib/execution/rpc/debug/call_tracer.ts";
import { flatCallResult } from "../../../../../lib/execution/rpc/debug/flat_call_tracer.ts";
import { assertEquals } from "../../../../assert.ts";

const A = hexToBytes("0x00000000000000000000000000000000000000aa");
const B = hexToBytes("0x00000000000000000000000000000000000000bb");
const SHA256 = hexToBytes("0x0000000000000000000000000000000000000002");

function frame(over: Partial<CallFrame>): CallFrame {
  return {
    type: "CALL",
    from: A,
    to: B,
    value: 0n,
    gas: 100_000n,
    gasUsed: 21_000n,
    execGas: 79_000n,
    execGasUsed: 1_000n,
    input: new Uint8Array([1, 2]),
    output: new Uint8Array([3]),
    calls: [],
    logs: [],
    ...over,
  };
}

const PLACE = {
  blockHash: new Uint8Array(32).fill(7),
  blockNumber: 5n,
  txHash: new Uint8Array(32).fill(9),
  txIndex: 2,
};

Deno.test("flatCallTracer: frames flattened depth-first, precompile calls left out, geth's errors", () => {
  const root = frame({
    value: 3n,
    calls: [
      frame({ type: "STATICCALL", from: B, to: SHA256, precompile: true }),
      frame({ from: B, to: A, error: "revert", output: new Uint8Array([0xde, 0xad]) }),
      frame({ type: "CREATE", from: B, to: A, input: new Uint8Array([0x60]), error: "out of gas" }),
      frame({ type: "SELFDESTRUCT", from: B, to: A, value: 9n }),
    ],
  });
  const flat = flatCallResult(root, {}, PLACE);
  assertEquals(flat.map((t) => [t.type, t.traceAddress, t.subtraces, t.error, t.result !== undefined]), [
    ["call", [], 3, undefined, true],
    ["call", [0], 0, "execution reverted", true],
    ["create", [1], 0, "out of gas", false],
    ["suicide", [2], 0, undefined, false],
  ]);
  assertEquals(flat[0].action, {
    callType: "call",
    from: "0x00000000000000000000000000000000000000aa",
    gas: "0x186a0", // the callTracer's: the transaction's gas for the top frame
    input: "0x0102",
    to: "0x00000000000000000000000000000000000000bb",
    value: "0x3",
  });
  assertEquals(flat[0].result, { gasUsed: "0x5208", output: "0x03" });
  assertEquals(flat[1].result, { gasUsed: "0x5208", output: "0xdead" }); // the revert data stays
  assertEquals(flat[3].action, {
    address: "0x00000000000000000000000000000000000000bb",
    balance: "0x9",
    refundAddress: "0x00000000000000000000000000000000000000aa",
  });
  assertEquals([flat[0].blockHash, flat[0].blockNumber, flat[0].transactionPosition], [
    "0x" + "07".repeat(32),
    5,
    2,
  ]);
  assertEquals(flat[0].transactionHash, "0x" + "09".repeat(32));
});

Deno.test("flatCallTracer: includePrecompiles and convertParityErrors (parityTracer); a call has no transaction hash", () => {
  const root = frame({
    calls: [
      frame({ type: "STATICCALL", from: B, to: SHA256, precompile: true }),
      frame({ from: B, to: A, error: "revert" }),
      frame({ from: B, to: A, error: "invalid JUMP at x" }),
    ],
  });
  const flat = flatCallResult(root, { includePrecompiles: true, convertParityErrors: true }, {
    ...PLACE,
    txHash: undefined,
  });
  assertEquals(flat.map((t) => [t.traceAddress, t.error]), [
    [[], undefined],
    [[0], undefined],
    [[1], "Reverted"],
    [[2], "Bad jump destination"],
  ]);
  assertEquals(flat[0].subtraces, 3);
  assertEquals(flat[0].transactionHash, null);
});
