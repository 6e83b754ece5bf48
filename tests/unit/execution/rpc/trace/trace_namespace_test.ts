import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, concatBytes, hexToBytes, keccak256 } from "../../../../../lib/common/mod.ts";
import { traceNamespace } from "../../../../../lib/execution/rpc/trace/mod.ts";
import { L1_ATTRIBUTES_DEPOSITOR_ADDRESS, L1_BLOCK_ADDRESS } from "../../../../../lib/protocol/mod.ts";
import { assert, assertEquals, assertRejects } from "../../../../assert.ts";
import { debugNamespace } from "../../../../../lib/execution/rpc/debug/mod.ts";
import {
  A,
  ACCOUNTS,
  B,
  B_CODE,
  BEN,
  type Chain,
  deposit,
  mine,
  openChain,
  R,
  REVERT_DATA,
  rpc,
  RpcFailure,
  S,
  userTx,
} from "../debug/fixture.ts";

const hex = (b: Uint8Array) => bytesToHex(b);
const word = (n: number) => "0x" + n.toString(16).padStart(64, "0");
const q = (n: bigint | number) => "0x" + n.toString(16);
// deno-lint-ignore no-explicit-any
type Json = any;

async function withChain(
  fn: (chain: Chain, call: (m: string, p: unknown[]) => Promise<Json>) => Promise<void>,
) {
  const chain = await openChain();
  const ns = traceNamespace(chain.backend);
  try {
    await fn(chain, (m, p) => rpc([ns], m, p));
  } finally {
    await chain.close();
  }
}

/** Init code that deploys B's runtime code. */
const DEPLOY_B = concatBytes(hexToBytes("0x6016600c60003960166000f3"), B_CODE);

Deno.test("trace_transaction: nested calls with traceAddress, subtraces, results and a reverted sub-call", async () => {
  await withChain(async (chain, call) => {
    const tx = userTx(chain, A, { gas: 300_000n });
    const built = await mine(chain, [tx]);
    const receipt = built.receipts[1];
    const traces = await call("trace_transaction", [hex(tx.hash())]);
    assertEquals(traces.length, 3);
    const place = {
      blockHash: hex(built.hash),
      blockNumber: Number(built.block.header.number),
      transactionHash: hex(tx.hash()),
      transactionPosition: 1,
    };
    assertEquals(traces[0], {
      action: {
        from: hex(ACCOUNTS[0].address),
        callType: "call",
        gas: q(300_000 - 21_000),
        input: "0x",
        to: hex(A),
        value: "0x0",
      },
      ...place,
      result: { gasUsed: q(receipt.gasUsed - 21_000n), output: "0x" },
      subtraces: 2,
      traceAddress: [],
      type: "call",
    });
    assertEquals(traces[1].traceAddress, [0]);
    assertEquals(traces[1].action.from, hex(A));
    assertEquals(traces[1].action.to, hex(B));
    assertEquals(traces[1].result, { gasUsed: q(27 + 22100 + 750 + 6), output: word(7) });
    assertEquals(traces[1].subtraces, 0);
    assertEquals(traces[2].traceAddress, [1]);
    assertEquals(traces[2].action.to, hex(R));
    assertEquals(traces[2].error, "Reverted");
    // A reverted frame keeps its result with the revert data (reth, erigon).
    assertEquals(traces[2].result.output, hex(REVERT_DATA));
    assert(BigInt(traces[2].result.gasUsed) > 0n);
    assertEquals(traces[2].transactionPosition, 1);
    assertEquals(await call("trace_transaction", ["0x" + "11".repeat(32)]), null);
  });
});

Deno.test("trace_block: the L1-info deposit (through the L1Block proxy), a create, and a user deposit", async () => {
  await withChain(async (chain, call) => {
    const create = userTx(chain, null, { gas: 200_000n, data: DEPLOY_B });
    const dep = deposit({});
    const built = await mine(chain, [dep, create]);
    const traces = await call("trace_block", [q(built.block.header.number)]);
    const l1 = traces.filter((t: Json) => t.transactionPosition === 0);
    assertEquals(l1[0].action.from, hex(L1_ATTRIBUTES_DEPOSITOR_ADDRESS).toLowerCase());
    assertEquals(l1[0].action.to, hex(L1_BLOCK_ADDRESS).toLowerCase());
    assertEquals(l1[0].action.gas, q(1_000_000n - depositIntrinsic(built.block.transactions[0])));
    assertEquals(l1[0].subtraces, 1);
    assertEquals(l1[1].action.callType, "delegatecall");
    assertEquals(l1[1].action.from, hex(L1_BLOCK_ADDRESS).toLowerCase());
    assertEquals(l1[1].traceAddress, [0]);
    const d = traces.filter((t: Json) => t.transactionPosition === 1);
    assertEquals(d.length, 1);
    assertEquals(d[0].action.value, q(10n ** 17n));
    assertEquals(d[0].transactionHash, hex(keccak256(dep)));
    const c = traces.filter((t: Json) => t.transactionPosition === 2);
    assertEquals(c.length, 1);
    assertEquals(c[0].type, "create");
    assertEquals(c[0].action.init, hex(DEPLOY_B));
    assertEquals(c[0].action.creationMethod, "create");
    assertEquals(c[0].result.address, hex(built.receipts[2].contractAddress!));
    assertEquals(c[0].result.code, hex(B_CODE));
    assertEquals(await call("trace_block", ["0x999"]), null);
  });
});

/** A deposit's intrinsic gas: 21000 + 4 per zero and 16 per non-zero byte of its data. */
function depositIntrinsic(raw: Uint8Array): bigint {
  // 0x7e || rlp([sourceHash, from, to, mint, value, gas, isSystemTx, data])
  const items = RLP.decode(raw.subarray(1)) as Uint8Array[];
  let gas = 21_000n;
  for (const b of items[7]) gas += b === 0 ? 4n : 16n;
  return gas;
}

Deno.test("trace_call: trace and stateDiff of a call object; unknown trace types are refused", async () => {
  await withChain(async (chain, call) => {
    await mine(chain, []);
    const from = hex(ACCOUNTS[2].address);
    const r = await call("trace_call", [
      { from, to: hex(A), gas: q(300_000) },
      ["trace", "stateDiff"],
      "latest",
    ]);
    assertEquals(r.output, "0x");
    assertEquals(r.vmTrace, null);
    assertEquals(r.trace.length, 3);
    assertEquals(r.trace[0].transactionHash, undefined);
    assertEquals(r.trace[2].error, "Reverted");
    assertEquals(r.stateDiff[hex(A)], {
      balance: "=",
      code: "=",
      nonce: "=",
      storage: { [word(1)]: { "*": { from: word(9), to: word(5) } } },
    });
    assertEquals(r.stateDiff[hex(B)].storage, { [word(0)]: { "*": { from: word(0), to: word(42) } } });
    assertEquals(r.stateDiff[from].nonce, { "*": { from: "0x0", to: "0x1" } });
    assertEquals(r.stateDiff[from].balance, "=");
    assertEquals(r.stateDiff[hex(R)], undefined);
    const only = await call("trace_call", [{ to: hex(R) }, ["trace"]]);
    assertEquals(only.stateDiff, null);
    assertEquals(only.output, hex(REVERT_DATA));
    const bad = await assertRejects(
      () => call("trace_call", [{ to: hex(A) }, ["calls"]]),
      RpcFailure,
    ) as RpcFailure;
    assertEquals(bad.code, -32602);
  });
});

Deno.test("trace_call vmTrace: pushes, memory and storage writes, gas left, sub-call traces", async () => {
  await withChain(async (chain, call) => {
    await mine(chain, []);
    const gas = 100_000;
    const b = await call("trace_call", [{ to: hex(B), gas: q(gas) }, ["vmTrace"]]);
    assertEquals(b.trace, []); // a list, empty when not asked for (OpenEthereum, reth)
    const vm = b.vmTrace;
    assertEquals(vm.code, hex(B_CODE));
    assertEquals(vm.ops.length, 13);
    assertEquals(vm.ops[0], {
      cost: 3,
      ex: { mem: null, push: ["0x2a"], store: null, used: gas - 21_000 - 3 },
      pc: 0,
      sub: null,
    });
    assertEquals(vm.ops[2].ex, {
      mem: null,
      push: [],
      store: { key: "0x0", val: "0x2a" },
      used: gas - 21_000 - 22_106,
    });
    assertEquals(vm.ops[9].ex.mem, { data: word(7), off: 0 });
    assertEquals(vm.ops[12].ex.push, []);
    assertEquals(vm.ops[12].ex.used, gas - 21_000 - (27 + 22_100 + 750 + 6));

    const a = (await call("trace_call", [{ to: hex(A), gas: q(300_000) }, ["vmTrace", "trace"]])).vmTrace;
    const calls = a.ops.filter((op: Json) => op.sub !== null);
    assertEquals(calls.length, 2);
    assertEquals(calls[0].sub.code, hex(B_CODE));
    assertEquals(calls[0].sub.ops.length, 13);
    assertEquals(calls[0].ex.push, ["0x1"]);
    assertEquals(calls[1].ex.push, ["0x0"]);
    assertEquals(calls[1].sub.ops.at(-1).ex.push, []);
    const sstore = a.ops.at(-2);
    assertEquals(sstore.ex.store, { key: "0x1", val: "0x5" });
  });
});

Deno.test("selfdestruct: a SELFDESTRUCT frame in callTracer and a suicide trace", async () => {
  const chain = await openChain();
  try {
    const tx = userTx(chain, S, { gas: 100_000n });
    await mine(chain, [tx]);
    const ct = await rpc([debugNamespace(chain.backend)], "debug_traceTransaction", [hex(tx.hash()), {
      tracer: "callTracer",
    }]) as Json;
    assertEquals(ct.calls, [{
      type: "SELFDESTRUCT",
      from: hex(S),
      gas: "0x0",
      gasUsed: "0x0",
      to: hex(BEN),
      input: "0x",
      value: "0x5",
    }]);
    const traces = await rpc([traceNamespace(chain.backend)], "trace_transaction", [hex(tx.hash())]) as Json;
    assertEquals(traces[0].subtraces, 1);
    assertEquals(traces[1].action, { address: hex(S), refundAddress: hex(BEN), balance: "0x5" });
    assertEquals(traces[1].type, "suicide");
    assertEquals(traces[1].traceAddress, [0]);
    assertEquals(traces[1].result, null);
  } finally {
    await chain.close();
  }
});

Deno.test("trace_replayBlockTransactions: one TraceResults per transaction; deposits buy no gas", async () => {
  await withChain(async (chain, call) => {
    const dep = deposit({});
    const tx = userTx(chain, A, { gas: 300_000n });
    const built = await mine(chain, [dep, tx]);
    const r = await call("trace_replayBlockTransactions", [q(built.block.header.number), [
      "trace",
      "stateDiff",
    ]]);
    assertEquals(
      r.map((x: Json) => x.transactionHash),
      built.block.transactions.map((t) => hex(keccak256(t))),
    );
    const depositor = "0x" + "d0".repeat(20);
    assertEquals(r[1].stateDiff[depositor].balance, { "+": q(9n * 10n ** 17n) });
    assertEquals(r[1].stateDiff[depositor].nonce, { "+": "0x1" });
    assertEquals(r[2].trace.length, 3);
    const sender = r[2].stateDiff[hex(ACCOUNTS[0].address)];
    assert(sender.balance["*"] !== undefined);
    const single = await call("trace_replayTransaction", [hex(tx.hash()), ["trace"]]);
    assertEquals(single.trace, r[2].trace);
    assertEquals(single.stateDiff, null);
  });
});

Deno.test("trace_filter: address filters, after and count over a block range", async () => {
  await withChain(async (chain, call) => {
    const t1 = userTx(chain, A, { gas: 300_000n });
    await mine(chain, [t1]);
    const t2 = userTx(chain, A, { gas: 300_000n });
    const t3 = userTx(chain, ACCOUNTS[1].address, { value: 1n });
    await mine(chain, [t2, t3]);
    const fromA = await call("trace_filter", [{
      fromBlock: "0x1",
      toBlock: "latest",
      fromAddress: [hex(A)],
    }]);
    assertEquals(fromA.length, 4);
    assert(fromA.every((t: Json) => t.action.from === hex(A)));
    const toR = await call("trace_filter", [{ toAddress: [hex(R)] }]);
    assertEquals(toR.map((t: Json) => t.transactionHash), [hex(t1.hash()), hex(t2.hash())]);
    assertEquals(await call("trace_filter", [{ count: 0 }]), []); // reth: none, erigon: none
    const paged = await call("trace_filter", [{ fromAddress: [hex(A)], after: 1, count: 2 }]);
    assertEquals(paged, fromA.slice(1, 3));
    const both = await call("trace_filter", [{
      fromAddress: [hex(ACCOUNTS[0].address)],
      toAddress: [hex(R)],
      mode: "intersection",
    }]);
    assertEquals(both, []);
    const either = await call("trace_filter", [{
      fromAddress: [hex(ACCOUNTS[0].address)],
      toAddress: [hex(R)],
    }]);
    assertEquals(either.length, 3 + 2);
    const err = await assertRejects(
      () => call("trace_filter", [{ fromBlock: "0x2", toBlock: "0x1" }]),
      RpcFailure,
    );
    assertEquals(err.message, "invalid block range: fromBlock 2 is after toBlock 1");
  });
});

Deno.test("trace_call vmTrace: a CREATE's sub-trace shows the init code it ran, though the creator overwrites that memory after", async () => {
  await withChain(async (chain, call) => {
    await mine(chain, []);
    // PUSH4 0x60425000 PUSH1 0 MSTORE; CREATE(0, 28, 4); POP; PUSH1 0 PUSH1 0 MSTORE (memory zeroed); STOP.
    const data = "0x63604250006000526004601c6000f050600060005200";
    const r = await call("trace_call", [{ data, gas: q(200_000) }, ["vmTrace"]]);
    const subs = (r.vmTrace.ops as { sub: { code: string } | null }[]).filter((op) => op.sub !== null);
    assertEquals(subs.length, 1);
    assertEquals(subs[0].sub!.code, "0x60425000");
  });
});
