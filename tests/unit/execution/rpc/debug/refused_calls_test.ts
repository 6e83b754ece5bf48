/**
 * Calls refused before their callee runs (value above the caller's balance, the call depth limit)
 * are frames in callTracer and traces in trace_*, with geth's error, no output and no gas used.
 */
import { bytesToHex } from "../../../../../lib/common/mod.ts";
import { debugNamespace } from "../../../../../lib/execution/rpc/debug/mod.ts";
import { traceNamespace } from "../../../../../lib/execution/rpc/trace/mod.ts";
import { assert, assertEquals } from "../../../../assert.ts";
import { B, D, openChain, rpc, V, V_CODE } from "./fixture.ts";

// deno-lint-ignore no-explicit-any
type Json = any;
const hex = (b: Uint8Array) => bytesToHex(b);

Deno.test("callTracer and trace_call: a value call above the caller's balance is a failed frame", async () => {
  const chain = await openChain();
  try {
    const debug = [debugNamespace(chain.backend)];
    const ct = await rpc(debug, "debug_traceCall", [{ to: hex(V), gas: "0x30d40" }, "latest", {
      tracer: "callTracer",
    }]) as Json;
    assertEquals(ct.error, undefined);
    assertEquals(ct.calls.length, 1);
    const refused = ct.calls[0];
    assertEquals(refused.type, "CALL");
    assertEquals(refused.from, hex(V));
    assertEquals(refused.to, hex(B));
    assertEquals(refused.value, "0x3e8");
    assertEquals(refused.input, "0x");
    assertEquals(refused.gasUsed, "0x0");
    assertEquals(refused.error, "insufficient balance for transfer");
    assertEquals(refused.output, undefined);
    // The same call with the balance enters B: its frame gets the same gas.
    const funded = await rpc(debug, "debug_traceCall", [{ to: hex(V), gas: "0x30d40" }, "latest", {
      tracer: "callTracer",
      stateOverrides: { [hex(V)]: { balance: "0x3e8" } },
    }]) as Json;
    assertEquals(funded.calls[0].error, undefined);
    assertEquals(funded.calls[0].to, hex(B));
    assertEquals(refused.gas, funded.calls[0].gas);
    // The call as the code's last opcode (the frame then ends on the implicit STOP).
    const last = hex(V_CODE.subarray(0, V_CODE.length - 2));
    const tail = await rpc(debug, "debug_traceCall", [{ to: hex(V), gas: "0x30d40" }, "latest", {
      tracer: "callTracer",
      stateOverrides: { [hex(V)]: { code: last } },
    }]) as Json;
    assertEquals(tail.calls.length, 1);
    assertEquals(tail.calls[0].error, "insufficient balance for transfer");
    assertEquals(tail.calls[0].gas, refused.gas);
    // Parity: a subtrace with the error and a null result.
    const tr = await rpc([traceNamespace(chain.backend)], "trace_call", [
      { to: hex(V), gas: "0x30d40" },
      ["trace"],
      "latest",
    ]) as Json;
    assertEquals(tr.trace.length, 2);
    assertEquals(tr.trace[0].subtraces, 1);
    assertEquals(tr.trace[1], {
      action: {
        from: hex(V),
        callType: "call",
        gas: refused.gas,
        input: "0x",
        to: hex(B),
        value: "0x3e8",
      },
      error: "insufficient balance for transfer",
      result: null,
      subtraces: 0,
      traceAddress: [0],
      type: "call",
    });
  } finally {
    await chain.close();
  }
});

Deno.test("callTracer and trace_call: the call at depth 1024 is refused with max call depth exceeded", async () => {
  const chain = await openChain();
  try {
    // Enough gas for 1025 nested frames despite 63/64 per level: no gas cap for this backend.
    const backend = { ...chain.backend, options: { ...chain.backend.options, gasCap: 0n } };
    const ct = await rpc([debugNamespace(backend)], "debug_traceCall", [
      { to: hex(D), gas: `0x${(10n ** 12n).toString(16)}` },
      "latest",
      { tracer: "callTracer", timeout: "60s" },
    ]) as Json;
    let frame = ct;
    let depth = 0;
    while (frame.calls !== undefined && frame.calls[0].error === undefined) {
      assertEquals(frame.calls.length, 1);
      frame = frame.calls[0];
      depth++;
    }
    // Frames at depths 0..1024 ran; the one at 1024 could not call.
    assertEquals(depth, 1024);
    const refused = frame.calls[0];
    assertEquals(refused.error, "max call depth exceeded");
    assertEquals([refused.from, refused.to, refused.gasUsed], [hex(D), hex(D), "0x0"]);
    assert(BigInt(refused.gas) > 0n);
    const tr = await rpc([traceNamespace(backend)], "trace_call", [
      { to: hex(D), gas: `0x${(10n ** 12n).toString(16)}` },
      ["trace"],
      "latest",
    ]) as Json;
    const last = tr.trace.at(-1);
    assertEquals(last.traceAddress.length, 1025);
    assertEquals(last.error, "max call depth exceeded");
    assertEquals(last.result, null);
  } finally {
    await chain.close();
  }
});
