/**
 * Tracer details checked side by side with anvil and against op-geth's tracers (eth/tracers/native,
 * core/vm/interpreter.go) and reth's Parity traces: call inputs kept as they were when the call was
 * made, error names (reentrancy sentry, invalid opcodes, failing precompiles), the return data
 * buffer after a create, and the accounts the prestate tracer reports.
 */
import { bytesToHex, concatBytes, hexToBytes } from "../../../../../lib/common/mod.ts";
import { debugNamespace } from "../../../../../lib/execution/rpc/debug/mod.ts";
import { traceNamespace } from "../../../../../lib/execution/rpc/trace/mod.ts";
import { assert, assertEquals } from "../../../../assert.ts";
import { B, BEN, type Chain, mine, openChain, rpc, S, userTx } from "./fixture.ts";

const hex = (b: Uint8Array) => bytesToHex(b);
// deno-lint-ignore no-explicit-any
type Json = any;

/** Init code that deploys `runtime` (at most 255 bytes): codecopy it to memory and return it. */
function deployCode(runtime: Uint8Array): Uint8Array {
  const n = runtime.length.toString(16).padStart(2, "0");
  return concatBytes(hexToBytes(`0x60${n}600c60003960${n}6000f3`), runtime);
}

const WORD_AA = "aa".repeat(32);
/** mstore(0, 0xaa..aa); call(gas, B, 0, in 0..32, out 0..32): B's answer overwrites the input's memory. */
const OVERWRITES_INPUT = hexToBytes(`0x7f${WORD_AA}6000526020600060206000600073${"bb".repeat(20)}5af15000`);
/** create(0, init code returning the 1-byte code 0x01); pop; stop. */
const CREATES = hexToBytes("0x69600160005360016000f3600052600a60166000f05000");
/** mstore(0, 2^256-1); call(gas, 0x06, 0, in 0..128, out none): x is past the field modulus. */
const BAD_ECADD = hexToBytes(`0x7f${"ff".repeat(32)}600052600060006080600060006006${"5a"}f15000`);
/** call(gas, 0x..0e0e, 1 wei, no input): value to an account that does not exist. */
const PAYS_NEW = hexToBytes(`0x6000600060006000600173${"00".repeat(18)}0e0e5af15000`);

async function withChain(
  fn: (chain: Chain, call: (m: string, p: unknown[]) => Promise<Json>) => Promise<void>,
) {
  const chain = await openChain();
  const namespaces = [debugNamespace(chain.backend), traceNamespace(chain.backend)];
  try {
    await fn(chain, (m, p) => rpc(namespaces, m, p));
  } finally {
    await chain.close();
  }
}

/** Deploys each runtime code in one block; returns their addresses. */
async function deploy(chain: Chain, codes: Uint8Array[]): Promise<string[]> {
  const txs = codes.map((c) => userTx(chain, null, { gas: 200_000n, data: deployCode(c) }));
  const built = await mine(chain, txs);
  return built.results.slice(1).map((r) => {
    assert(r.contractAddress !== undefined, "deployed");
    return hex(r.contractAddress);
  });
}

Deno.test("callTracer, 4byteTracer, trace_call: a call's input as it was sent, not the memory it came from later", async () => {
  await withChain(async (chain, call) => {
    const [w] = await deploy(chain, [OVERWRITES_INPUT]);
    const tx = userTx(chain, hexToBytes(w), { gas: 200_000n });
    await mine(chain, [tx]);
    const ct = await call("debug_traceTransaction", [hex(tx.hash()), { tracer: "callTracer" }]);
    assertEquals(ct.calls[0].to, hex(B));
    assertEquals(ct.calls[0].input, "0x" + WORD_AA);
    assertEquals(ct.calls[0].output, "0x" + "7".padStart(64, "0"));
    assertEquals(await call("debug_traceTransaction", [hex(tx.hash()), { tracer: "4byteTracer" }]), {
      "0xaaaaaaaa-28": 1,
    });
    const parity = await call("trace_transaction", [hex(tx.hash())]);
    assertEquals(parity[1].action.input, "0x" + WORD_AA);
    const traced = await call("trace_call", [{ to: w, gas: "0x30000" }, ["trace"], "latest"]);
    assertEquals(traced.trace[1].action.input, "0x" + WORD_AA);
  });
});

Deno.test("struct logger: after a successful CREATE the return data buffer is empty (EIP-211)", async () => {
  await withChain(async (chain, call) => {
    const [c] = await deploy(chain, [CREATES]);
    const r = await call("debug_traceCall", [{ to: c, gas: "0x30000" }, "latest", {
      enableReturnData: true,
    }]);
    const ops: string[] = r.structLogs.map((l: Json) => l.op);
    const create = ops.indexOf("CREATE");
    assert(create > 0);
    // The child's RETURN step had no return data either; back in the creator, POP sees none.
    const after = r.structLogs.slice(create + 1).find((l: Json) => l.depth === 1);
    assertEquals(after.op, "POP");
    assertEquals(after.returnData, undefined);
    const ct = await call("debug_traceCall", [{ to: c, gas: "0x30000" }, "latest", { tracer: "callTracer" }]);
    assertEquals(ct.calls[0].type, "CREATE");
    assertEquals(ct.calls[0].output, "0x01");
  });
});

Deno.test("error names: a failing precompile, invalid opcodes (geth's and Parity's)", async () => {
  await withChain(async (chain, call) => {
    const [p, inv, undef] = await deploy(chain, [BAD_ECADD, hexToBytes("0xfe"), hexToBytes("0x0c")]);
    const ct = await call("debug_traceCall", [{ to: p, gas: "0x30000" }, "latest", { tracer: "callTracer" }]);
    const sub = ct.calls[0];
    assertEquals(sub.to, "0x" + "6".padStart(40, "0"));
    assertEquals(sub.error, "precompiled failed");
    assertEquals(sub.gasUsed, sub.gas); // all its gas is gone: not a revert
    assertEquals(sub.output, undefined);
    const parity = await call("trace_call", [{ to: p, gas: "0x30000" }, ["trace"], "latest"]);
    assertEquals(parity.trace[1].error, "Built-in failed");
    assertEquals(parity.trace[1].result, null);

    for (
      const [to, geth] of [[inv, "invalid opcode: INVALID"], [
        undef,
        "invalid opcode: opcode 0xc not defined",
      ]]
    ) {
      const top = await call("debug_traceCall", [{ to, gas: "0x10000" }, "latest", { tracer: "callTracer" }]);
      assertEquals(top.error, geth);
      const sl = await call("debug_traceCall", [{ to, gas: "0x10000" }, "latest"]);
      assertEquals(sl.structLogs.at(-1).error, geth);
      const pt = await call("trace_call", [{ to, gas: "0x10000" }, ["trace"], "latest"]);
      assertEquals(pt.trace[0].error, "Bad instruction");
    }
  });
});

Deno.test("prestateTracer: accounts that did not exist are reported, created ones are not; a self-destructed one stays in pre", async () => {
  await withChain(async (chain, call) => {
    const [payer, creator] = await deploy(chain, [PAYS_NEW, CREATES]);
    const fresh = "0x" + "0e0e".padStart(40, "0");
    const pay = userTx(chain, hexToBytes(payer), { gas: 100_000n, value: 5n });
    const create = userTx(chain, hexToBytes(creator), { gas: 200_000n });
    const kill = userTx(chain, S, { gas: 100_000n });
    await mine(chain, [pay, create, kill]);

    const pre = await call("debug_traceTransaction", [hex(pay.hash()), { tracer: "prestateTracer" }]);
    assertEquals(pre[fresh], { balance: "0x0" });
    const diff = await call("debug_traceTransaction", [hex(pay.hash()), {
      tracer: "prestateTracer",
      tracerConfig: { diffMode: true },
    }]);
    assertEquals(diff.pre[fresh], { balance: "0x0" });
    assertEquals(diff.post[fresh], { balance: "0x1" });
    // op-geth looks up the fee vaults too.
    assert(pre["0x4200000000000000000000000000000000000019"] !== undefined);
    assert(pre["0x420000000000000000000000000000000000001a"] !== undefined);

    const cpre = await call("debug_traceTransaction", [hex(create.hash()), { tracer: "prestateTracer" }]);
    const cdiff = await call("debug_traceTransaction", [hex(create.hash()), {
      tracer: "prestateTracer",
      tracerConfig: { diffMode: true },
    }]);
    const created = Object.keys(cdiff.post).filter((a) => (cdiff.post[a].code ?? "") === "0x01");
    assertEquals(created.length, 1);
    assertEquals(cpre[created[0]], undefined);
    assertEquals(cdiff.pre[created[0]], undefined);

    const kdiff = await call("debug_traceTransaction", [hex(kill.hash()), {
      tracer: "prestateTracer",
      tracerConfig: { diffMode: true },
    }]);
    const s = hex(S);
    assertEquals(kdiff.pre[s].balance, "0x5");
    assert(kdiff.pre[s].code !== undefined);
    assertEquals(kdiff.post[s], undefined);
    assertEquals(kdiff.pre[hex(BEN)], { balance: "0x0" });
    assertEquals(kdiff.post[hex(BEN)], { balance: "0x5" });
  });
});

Deno.test("debug_traceCall: the EIP-7623 calldata floor and an access list count as in a transaction", async () => {
  await withChain(async (chain, call) => {
    await mine(chain, []);
    // STOP at an address with no code: 100 nonzero bytes cost 21000 + 1600 in intrinsic gas, the floor is
    // 21000 + 10 * 400 = 25000 (geth ApplyMessage).
    const data = "0x" + "ff".repeat(100);
    const floor = await call("debug_traceCall", [
      { to: "0x" + "12".repeat(20), data, gas: "0x10000" },
      "latest",
      {
        tracer: "callTracer",
      },
    ]);
    assertEquals(floor.gasUsed, "0x" + (25_000).toString(16));
    const plain = await call("debug_traceCall", [{ to: hex(B), gas: "0x186a0" }, "latest", {
      tracer: "callTracer",
    }]);
    const listed = await call("debug_traceCall", [
      {
        to: hex(B),
        gas: "0x186a0",
        accessList: [{ address: hex(B), storageKeys: ["0x" + "00".repeat(32)] }],
      },
      "latest",
      { tracer: "callTracer" },
    ]);
    // The list costs 2400 + 1900 and spares B's SSTORE the cold-slot 2100.
    assertEquals(BigInt(listed.gasUsed) - BigInt(plain.gasUsed), 2400n + 1900n - 2100n);
  });
});

Deno.test("error names: RETURNDATACOPY past the return data is geth's 'return data out of bounds'", async () => {
  await withChain(async (chain, call) => {
    // RETURNDATACOPY(mem 0, data 0, 1 byte) with no return data.
    const [copier] = await deploy(chain, [hexToBytes("0x600160006000" + "3e00")]);
    const ct = await call("debug_traceCall", [{ to: copier, gas: "0x10000" }, "latest", {
      tracer: "callTracer",
    }]);
    assertEquals(ct.error, "return data out of bounds");
    const sl = await call("debug_traceCall", [{ to: copier, gas: "0x10000" }, "latest"]);
    assertEquals(sl.structLogs.at(-1).op, "RETURNDATACOPY");
    assertEquals(sl.structLogs.at(-1).error, "return data out of bounds");
    const pt = await call("trace_call", [{ to: copier, gas: "0x10000" }, ["trace"], "latest"]);
    assertEquals(pt.trace[0].error, "Out of bounds");
  });
});
