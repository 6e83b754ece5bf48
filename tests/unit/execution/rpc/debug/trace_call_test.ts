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
    // No fee named: no gas is bought and BASEFEE reads 0 (geth TraceCall lowers the base fee to 0).
    assertEquals(words(plain.output), [
      head.number,
      head.timestamp,
      BigInt(bytesToHex(head.coinbase)),
      0n,
      1n,
      BigInt(bytesToHex(head.mixHash)),
      head.gasLimit,
    ]);
    const coinbase = "0x00000000000000000000000000000000000c0ffe";
    const random = "0x" + "ab".repeat(32);
    // With a gas price the overridden base fee is the one the call pays and reads.
    const funded = { ...state, ["0x" + "00".repeat(20)]: { balance: "0xffffffffff" } };
    const over = await rpc(ns, "debug_traceCall", [
      { to: TARGET, gasPrice: "0x7", gas: "0x100000" },
      "latest",
      {
        tracer: "callTracer",
        stateOverrides: funded,
        blockOverrides: {
          number: "0x1234",
          time: `0x${(head.timestamp + 100n).toString(16)}`,
          feeRecipient: coinbase,
          baseFee: "0x7",
          blobBaseFee: "0x9",
          prevRandao: random,
          gasLimit: "0x1c9c381",
        },
      },
    ]) as Json;
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

Deno.test("debug_traceCall with a fee buys the gas (geth ApplyMessage): GASPRICE, the sender's balance, the funds check", async () => {
  const chain = await openChain();
  try {
    const ns = [debugNamespace(chain.backend)];
    const baseFee = chain.engine.head().header.baseFeePerGas!;
    const from = "0x00000000000000000000000000000000000000f1";
    const price = baseFee + 5n;
    const gas = 100_000n;
    const funds = 10n ** 18n;
    const call = (code: string, extra: Record<string, unknown> = {}) =>
      rpc(ns, "debug_traceCall", [
        { from, to: TARGET, gas: `0x${gas.toString(16)}`, gasPrice: `0x${price.toString(16)}`, ...extra },
        "latest",
        {
          tracer: "callTracer",
          stateOverrides: { [TARGET]: { code }, [from]: { balance: `0x${funds.toString(16)}` } },
        },
      ]) as Promise<Json>;
    // GASPRICE; then the caller's balance (CALLER BALANCE): the gas limit bought at the price.
    assertEquals(BigInt((await call("0x3a5f5260205ff3")).output), price);
    assertEquals(BigInt((await call("0x33315f5260205ff3")).output), funds - gas * price);
    // A sender that cannot pay is refused, as eth_call refuses it.
    const poor = await rpc(ns, "debug_traceCall", [
      { to: TARGET, gas: `0x${gas.toString(16)}`, gasPrice: `0x${price.toString(16)}` },
      "latest",
      { tracer: "callTracer" },
    ]).catch((e) => e) as Json;
    assertEquals(
      String(poor.message).startsWith("insufficient funds for gas * price + value"),
      true,
      poor.message,
    );
  } finally {
    await chain.close();
  }
});
