/** debug_traceCall: block overrides in the trace config (geth TraceCallConfig.BlockOverrides). */
import { bytesToHex } from "../../../../../lib/common/mod.ts";
import { debugNamespace } from "../../../../../lib/execution/rpc/debug/mod.ts";
import { assertEquals } from "../../../../assert.ts";
import { openChain, rpc } from "./fixture.ts";

// deno-lint-ignore no-explicit-any
type Json = any;
const TARGET = "0x00000000000000000000000000000000000000e7";
// NUMBER, TIMESTAMP, COINBASE, BASEFEE, BLOBBASEFEE, PREVRANDAO, GASLIMIT as seven words.
const BLOCK_CODE = "0x43600052426020524160405248606052" + "4a6080524460a0524560c05260e06000f3";
const words = (out: string) =>
  Array.from({ length: 7 }, (_, i) => BigInt("0x" + out.slice(2 + 64 * i, 66 + 64 * i)));

Deno.test("debug_traceCall: blockOverrides set number, time, coinbase, baseFee, blobBaseFee, random, gasLimit", async () => {
  const chain = await openChain();
  try {
    const ns = [debugNamespace(chain.backend)];
    const head = chain.engine.head().header;
    const state = { [TARGET]: { code: BLOCK_CODE } };
    const plain = await rpc(ns, "debug_traceCall", [{ to: TARGET }, "latest", {
      tracer: "callTracer",
      stateOverrides: state,
    }]) as Json;
    assertEquals(words(plain.output), [
      head.number,
      head.timestamp,
      BigInt(bytesToHex(head.coinbase)),
      head.baseFeePerGas!,
      1n,
      BigInt(bytesToHex(head.mixHash)),
      head.gasLimit,
    ]);
    const coinbase = "0x00000000000000000000000000000000000c0ffe";
    const random = "0x" + "ab".repeat(32);
    const over = await rpc(ns, "debug_traceCall", [{ to: TARGET }, "latest", {
      tracer: "callTracer",
      stateOverrides: state,
      blockOverrides: {
        number: "0x1234",
        time: `0x${(head.timestamp + 100n).toString(16)}`,
        feeRecipient: coinbase,
        baseFee: "0x7",
        blobBaseFee: "0x9",
        prevRandao: random,
        gasLimit: "0x1c9c381",
      },
    }]) as Json;
    assertEquals(words(over.output), [
      0x1234n,
      head.timestamp + 100n,
      BigInt(coinbase),
      7n,
      9n,
      BigInt(random),
      30_000_001n,
    ]);
    // The aliases coinbase and random, with the struct logger.
    const alias = await rpc(ns, "debug_traceCall", [{ to: TARGET }, "latest", {
      stateOverrides: state,
      blockOverrides: { coinbase, random },
    }]) as Json;
    const ret = words(alias.returnValue.startsWith("0x") ? alias.returnValue : "0x" + alias.returnValue);
    assertEquals([ret[2], ret[5]], [BigInt(coinbase), BigInt(random)]);
    // A malformed override is refused.
    const bad = await rpc(ns, "debug_traceCall", [{ to: TARGET }, "latest", {
      blockOverrides: { number: "12" },
    }])
      .catch((e) => e) as Json;
    assertEquals(bad.code, -32602);
  } finally {
    await chain.close();
  }
});
