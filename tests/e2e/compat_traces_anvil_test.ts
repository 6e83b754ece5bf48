/**
 * The tracers side by side with anvil (npm @foundry-rs/anvil, the real binary, with --steps-tracing):
 * the same transactions (tests/e2e/fixtures/TraceProbe.sol, compiled with solc) sent from the same
 * account on `keel execution --dev` and on anvil at Prague give the same struct logs, call frames,
 * Parity traces and 4-byte counts (keel's flatCallTracer and parityTracer, which anvil lacks, against its own
 * Parity traces). Compared field by field, with the differences that are anvil's
 * own set aside (geth is the reference for keel):
 * - callTracer's top frame `gas`: geth reports the transaction's gas limit, anvil the gas after the
 *   intrinsic cost;
 * - struct logs: anvil adds `refund: 0` and `returnData: "0x"`, prefixes memory words with 0x, and
 *   counts the gas a CREATE
 *   passes on in its gasCost (geth charges it inside the opcode); storage is left out (anvil keeps
 *   a reverted frame's value);
 * - anvil's 4byteTracer counts calls to precompiles, geth's skips them;
 * - anvil's log entries in callTracer carry an extra `index`; it prints a struct log's reentrancy-sentry
 *   error as "Some(ReentrancySentryOOG)".
 */
import solc from "solc";
import { encodeFunctionData, parseAbi } from "viem";
import { assert, assertEquals } from "../assert.ts";
import { anvilForTest, DEV_ADDRESS, rpcResult, startAnvil, startKeelExecution } from "./helpers/mod.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SOURCE = Deno.readTextFileSync(new URL("./fixtures/TraceProbe.sol", import.meta.url));
const ABI = parseAbi([
  "function run(uint256 v) payable returns (uint256)",
  "function boom(uint256 v)",
  "function kill()",
]);

function compile(): string {
  const out = JSON.parse(solc.compile(JSON.stringify({
    language: "Solidity",
    sources: { "TraceProbe.sol": { content: SOURCE } },
    settings: {
      evmVersion: "prague",
      optimizer: { enabled: false },
      outputSelection: { "*": { "*": ["evm.bytecode.object"] } },
    },
  })));
  const errors = (out.errors ?? []).filter((e: Json) => e.severity === "error");
  if (errors.length > 0) throw new Error(`solc: ${JSON.stringify(errors)}`);
  return "0x" + out.contracts["TraceProbe.sol"].TraceProbe.evm.bytecode.object;
}

const rpc = rpcResult;

interface Traces {
  receipt: Json;
  struct: Json;
  call: Json;
  parity: Json;
  fourByte: Json;
  flat: Json;
  parityTracer: Json;
  mux: Json;
  prestateDiff: Json;
}

/** Sends the scenario's transactions one by one and traces each. */
async function scenario(url: string, bytecode: string): Promise<Traces[]> {
  const send = async (tx: Record<string, string>) => {
    const hash = await rpc(url, "eth_sendTransaction", [{
      from: DEV_ADDRESS,
      maxFeePerGas: "0x77359400",
      maxPriorityFeePerGas: "0x1",
      ...tx,
    }]);
    for (let i = 0; i < 200; i++) {
      const receipt = await rpc(url, "eth_getTransactionReceipt", [hash]);
      if (receipt !== null) return { hash, receipt };
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no receipt for ${hash}`);
  };
  const deployed = await send({ data: bytecode, value: "0x10", gas: "0x300000" });
  const probe = deployed.receipt.contractAddress;
  const sent = [
    deployed,
    await send({
      to: probe,
      data: encodeFunctionData({ abi: ABI, functionName: "run", args: [5n] }),
      value: "0x3",
      gas: "0x300000",
    }),
    await send({
      to: probe,
      data: encodeFunctionData({ abi: ABI, functionName: "boom", args: [1n] }),
      gas: "0x100000",
    }),
    await send({ to: probe, data: encodeFunctionData({ abi: ABI, functionName: "kill" }), gas: "0x100000" }),
  ];
  const out: Traces[] = [];
  for (const { hash, receipt } of sent) {
    out.push({
      receipt,
      struct: await rpc(url, "debug_traceTransaction", [hash, { enableReturnData: true }]),
      call: await rpc(url, "debug_traceTransaction", [hash, {
        tracer: "callTracer",
        tracerConfig: { withLog: true },
      }]),
      parity: await rpc(url, "trace_transaction", [hash]),
      fourByte: await rpc(url, "debug_traceTransaction", [hash, { tracer: "4byteTracer" }]),
      flat: await rpc(url, "debug_traceTransaction", [hash, { tracer: "flatCallTracer" }]),
      // geth's parityTracer, which anvil does not know (it takes the name for JavaScript).
      parityTracer: await rpc(url, "debug_traceTransaction", [hash, { tracer: "parityTracer" }]).catch(() =>
        null
      ),
      mux: await rpc(url, "debug_traceTransaction", [hash, {
        tracer: "muxTracer",
        tracerConfig: {
          callTracer: { withLog: true },
          "4byteTracer": {},
          prestateTracer: { diffMode: true },
        },
      }]).catch(() => null),
      prestateDiff: await rpc(url, "debug_traceTransaction", [hash, {
        tracer: "prestateTracer",
        tracerConfig: { diffMode: true },
      }]),
    });
  }
  return out;
}

/** anvil prints some step errors as Rust debug values; geth's words for them (core/vm/interpreter.go). */
const ANVIL_STEP_ERRORS: Record<string, string> = {
  "Some(ReentrancySentryOOG)": "out of gas: not enough gas for reentrancy sentry",
};

const pick = (o: Json, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));

function receiptView(r: Json) {
  return {
    ...pick(r, ["status", "gasUsed", "contractAddress", "type"]),
    logs: r.logs.map((l: Json) => pick(l, ["address", "topics", "data"])),
  };
}

function structView(s: Json) {
  return {
    ...pick(s, ["gas", "failed", "returnValue"]),
    structLogs: s.structLogs.map((l: Json) => ({
      ...pick(l, ["pc", "op", "gas", "depth", "stack"]),
      ...(l.error === undefined ? {} : { error: ANVIL_STEP_ERRORS[l.error] ?? l.error }),
      returnData: l.returnData ?? "0x", // geth leaves an empty one out, anvil writes "0x"
      // anvil counts the gas a CREATE passes on; geth (and keel) charge it inside the opcode.
      ...(l.op === "CREATE" || l.op === "CREATE2" ? {} : { gasCost: l.gasCost }),
    })),
  };
}

/** Whether `address` is in the precompile range (0x01..0x100, with P256VERIFY). */
function isPrecompile(address: string | undefined): boolean {
  return address !== undefined && BigInt(address) > 0n && BigInt(address) <= 0x100n;
}

/**
 * anvil's 4-byte counts without its calls to precompiles, which geth's 4byteTracer skips ("just fancy
 * opcodes", eth/tracers/native/4byte.go).
 */
function withoutPrecompiles(counts: Record<string, number>, call: Json): Record<string, number> {
  const out = { ...counts };
  const walk = (f: Json) => {
    const input: string = f.input ?? "0x";
    if (f.type !== "CREATE" && f.type !== "CREATE2" && isPrecompile(f.to) && input.length >= 10) {
      const key = `${input.slice(0, 10)}-${(input.length - 10) / 2}`;
      if (--out[key] === 0) delete out[key];
    }
    for (const c of f.calls ?? []) walk(c);
  };
  walk(call);
  return out;
}

function callView(f: Json, top = true): Json {
  return {
    ...pick(f, ["type", "from", "to", "value", "input", "output", "error", "revertReason", "gasUsed"]),
    ...(top ? {} : { gas: f.gas }),
    logs: (f.logs ?? []).map((l: Json) => pick(l, ["address", "topics", "data", "position"])),
    calls: (f.calls ?? []).map((c: Json) => callView(c, false)),
  };
}

Deno.test({
  name:
    "tracers: struct logs, callTracer, Parity traces and 4byteTracer agree with anvil's on the same transactions",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const tool = await anvilForTest("compat_traces_anvil_test");
    if (!tool.ok) return;
    const bytecode = compile();
    const anvil = await startAnvil(tool.binary, ["--hardfork", "prague", "--steps-tracing"]);
    let theirs: Traces[];
    try {
      theirs = await scenario(anvil.url, bytecode);
    } finally {
      await anvil.stop();
    }
    const node = await startKeelExecution({ ws: false, args: ["--http.api=eth,net,web3,debug,trace"] });
    let ours: Traces[];
    try {
      ours = await scenario(node.httpUrl, bytecode);
    } catch (e) {
      console.error(node.output().slice(-4000));
      throw e;
    } finally {
      await node.stop();
    }
    for (let i = 0; i < theirs.length; i++) {
      const at = `transaction ${i}`;
      assertEquals(receiptView(ours[i].receipt), receiptView(theirs[i].receipt), `${at}: receipt`);
      assert(ours[i].struct.structLogs.length > 0, `${at}: struct logs`);
      assertEquals(structView(ours[i].struct), structView(theirs[i].struct), `${at}: struct logs`);
      assertEquals(callView(ours[i].call), callView(theirs[i].call), `${at}: callTracer`);
      const parity = (ts: Json[]) =>
        ts.map((t) => pick(t, ["action", "result", "error", "traceAddress", "subtraces", "type"]));
      assertEquals(parity(ours[i].parity), parity(theirs[i].parity), `${at}: trace_transaction`);
      // anvil 1.7.1 answers {} for geth's flatCallTracer and parityTracer: keel's are checked against its
      // own trace_transaction (the same frames; geth's flat tracer gives the top frame the transaction's
      // gas and gas used, where Parity's count after the intrinsic cost, and names no creationMethod).
      const flatView = (ts: Json[]) =>
        ts.map((t) => ({
          action: { ...t.action, gas: undefined, creationMethod: undefined }, // geth's flat creates have none
          output: t.result?.output ?? t.result?.code,
          traceAddress: t.traceAddress,
          subtraces: t.subtraces,
          type: t.type,
        }));
      assertEquals(flatView(ours[i].parityTracer), flatView(ours[i].parity), `${at}: parityTracer`);
      const hash = ours[i].parity[0].transactionHash;
      for (const t of [...ours[i].flat, ...ours[i].parityTracer]) {
        assertEquals([t.transactionHash, t.transactionPosition], [
          hash,
          ours[i].parity[0].transactionPosition,
        ]);
      }
      // muxTracer: each tracer's result as alone, from one run.
      assertEquals(ours[i].mux, {
        callTracer: ours[i].call,
        "4byteTracer": ours[i].fourByte,
        prestateTracer: ours[i].prestateDiff,
      }, `${at}: muxTracer`);
      if (theirs[i].mux?.callTracer !== undefined) {
        assertEquals(
          callView(ours[i].mux.callTracer),
          callView(theirs[i].mux.callTracer),
          `${at}: muxTracer`,
        );
      }
      // flatCallTracer leaves out the CALL and STATICCALL frames to precompiles (its default).
      const toPrecompile = ours[i].parity.filter((t: Json) => t.type === "call" && isPrecompile(t.action.to));
      assertEquals(ours[i].flat.length, ours[i].parity.length - toPrecompile.length, `${at}: flatCallTracer`);
      assert(ours[i].flat.every((t: Json) => !(t.type === "call" && isPrecompile(t.action.to))));
      assertEquals(
        ours[i].fourByte,
        withoutPrecompiles(theirs[i].fourByte, theirs[i].call),
        `${at}: 4byteTracer`,
      );
    }
  },
});
