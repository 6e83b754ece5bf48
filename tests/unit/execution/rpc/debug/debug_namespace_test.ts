import { RLP } from "@ethereumjs/rlp";
import { Address } from "@ethereumjs/util";
import { bytesToHex, hexToBytes, keccak256 } from "../../../../../lib/common/mod.ts";
import { debugNamespace } from "../../../../../lib/execution/rpc/debug/mod.ts";
import { orderedTrieRoot } from "../../../../../lib/protocol/ordered_trie.ts";
import { L1_ATTRIBUTES_DEPOSITOR_ADDRESS, L1_BLOCK_ADDRESS } from "../../../../../lib/protocol/mod.ts";
import { assert, assertEquals, assertRejects } from "../../../../assert.ts";
import {
  A,
  ACCOUNTS,
  B,
  B_CODE,
  type Chain,
  deposit,
  L,
  mine,
  openChain,
  R,
  REVERT_DATA,
  rpc,
  RpcFailure,
  userTx,
} from "./fixture.ts";

const hex = (b: Uint8Array) => bytesToHex(b);
const word = (n: number) => n.toString(16).padStart(64, "0");

async function withChain(
  fn: (chain: Chain, call: (m: string, p: unknown[]) => Promise<unknown>) => Promise<void>,
) {
  const chain = await openChain();
  const ns = debugNamespace(chain.backend);
  try {
    await fn(chain, (m, p) => rpc([ns], m, p));
  } finally {
    await chain.close();
  }
}

Deno.test("debug_traceTransaction: a plain transfer has no struct logs and uses 21000 gas", async () => {
  await withChain(async (chain, call) => {
    const tx = userTx(chain, ACCOUNTS[1].address, { value: 5n });
    await mine(chain, [tx]);
    const r = await call("debug_traceTransaction", [hex(tx.hash())]);
    assertEquals(r, { gas: 21000, failed: false, returnValue: "0x", structLogs: [] });
  });
});

Deno.test("debug_traceTransaction: struct logs of sstore, log1, mstore, return with gas, stack and storage", async () => {
  await withChain(async (chain, call) => {
    const tx = userTx(chain, B, { gas: 100_000n });
    await mine(chain, [tx]);
    const r = await call("debug_traceTransaction", [hex(tx.hash())]) as {
      gas: number;
      failed: boolean;
      returnValue: string;
      structLogs: {
        pc: number;
        op: string;
        gas: number;
        gasCost: number;
        depth: number;
        stack?: string[];
        storage?: Record<string, string>;
      }[];
    };
    const ops = r.structLogs.map((l) => l.op);
    assertEquals(ops, [
      "PUSH1",
      "PUSH1",
      "SSTORE",
      "PUSH1",
      "PUSH1",
      "PUSH1",
      "LOG1",
      "PUSH1",
      "PUSH1",
      "MSTORE",
      "PUSH1",
      "PUSH1",
      "RETURN",
    ]);
    assertEquals(r.structLogs.map((l) => l.gasCost), [3, 3, 22100, 3, 3, 3, 750, 3, 3, 6, 3, 3, 0]);
    // 21000 intrinsic + 9 PUSH1 + cold SSTORE 0 -> 42 (2100 + 20000) + LOG1 (375 + 375) + MSTORE (3 + 3 memory).
    assertEquals(r.gas, 21000 + 27 + 22100 + 750 + 6);
    assertEquals(r.failed, false);
    assertEquals(r.returnValue, "0x" + word(7));
    assertEquals(r.structLogs[0].gas, 100_000 - 21000);
    assertEquals(r.structLogs[1].gas, 100_000 - 21000 - 3);
    assertEquals(r.structLogs.map((l) => l.pc).slice(0, 4), [0, 2, 4, 5]);
    assert(r.structLogs.every((l) => l.depth === 1));
    assertEquals(r.structLogs[2].stack, ["0x2a", "0x0"]);
    assertEquals(r.structLogs[2].storage, { [word(0)]: word(42) });
    assertEquals(r.structLogs[0].stack, []);
    assertEquals(r.structLogs[0].storage, undefined);

    const bare = await call("debug_traceTransaction", [hex(tx.hash()), {
      disableStack: true,
      disableStorage: true,
      enableMemory: true,
    }]) as { structLogs: { stack?: unknown; storage?: unknown; memory?: string[] }[] };
    assertEquals(bare.structLogs[2].stack, undefined);
    assertEquals(bare.structLogs[2].storage, undefined);
    assertEquals(bare.structLogs[10].memory, [word(7)]);
    assertEquals(bare.structLogs[9].memory, undefined);
  });
});

Deno.test("debug_traceCall: an out-of-gas SSTORE is the failing entry", async () => {
  await withChain(async (chain, call) => {
    await mine(chain, []);
    // 21000 + 100: the two PUSH1s run, SSTORE needs more than the 2300 stipend left (geth wraps the
    // gas function's error in ErrOutOfGas).
    const r = await call("debug_traceCall", [{ to: hex(B), gas: "0x526c" }, "latest"]) as {
      gas: number;
      failed: boolean;
      returnValue: string;
      structLogs: { op: string; error?: string; gas: number }[];
    };
    assertEquals(r.failed, true);
    assertEquals(r.gas, 21100);
    assertEquals(r.returnValue, "0x");
    assertEquals(r.structLogs.map((l) => l.op), ["PUSH1", "PUSH1", "SSTORE"]);
    assertEquals(r.structLogs[2].gas, 94);
    assertEquals(r.structLogs[2].error, "out of gas: not enough gas for reentrancy sentry");
    assertEquals(r.structLogs[1].error, undefined);
    const ct = await call("debug_traceCall", [{ to: hex(B), gas: "0x526c" }, "latest", {
      tracer: "callTracer",
    }]) as Record<
      string,
      unknown
    >;
    assertEquals(ct.error, "out of gas: not enough gas for reentrancy sentry");
    assertEquals(ct.output, undefined);
    assertEquals(ct.gasUsed, "0x526c");
  });
});

Deno.test("debug_traceTransaction: a CALL's cost includes the gas it passes (geth), the callee starts with it", async () => {
  await withChain(async (chain, call) => {
    const tx = userTx(chain, A, { gas: 300_000n });
    await mine(chain, [tx]);
    const r = await call("debug_traceTransaction", [hex(tx.hash())]) as {
      structLogs: { op: string; gas: number; gasCost: number; depth: number }[];
    };
    const logs = r.structLogs;
    const i = logs.findIndex((l) => l.op === "CALL");
    const available = logs[i].gas - 2600; // cold B
    const passed = available - Math.floor(available / 64); // all but one 64th (EIP-150)
    assertEquals(logs[i].gasCost, 2600 + passed);
    assertEquals(logs[i + 1].depth, 2);
    assertEquals(logs[i + 1].gas, passed);
    // Back in A: what B left comes back.
    const back = logs.findIndex((l, k) => k > i && l.depth === 1);
    assertEquals(logs[back].gas, logs[i].gas - 2600 - passed + (passed - (27 + 22100 + 750 + 6)));
  });
});

Deno.test("debug_traceTransaction callTracer: nested calls, log positions, revert reason", async () => {
  await withChain(async (chain, call) => {
    const tx = userTx(chain, A, { gas: 300_000n });
    const built = await mine(chain, [tx]);
    const receipt = built.receipts[1];
    const r = await call("debug_traceTransaction", [hex(tx.hash()), {
      tracer: "callTracer",
      tracerConfig: { withLog: true },
    }]) as Record<string, unknown> & { calls: Record<string, unknown>[] };
    assertEquals(r.type, "CALL");
    assertEquals(r.from, hex(ACCOUNTS[0].address));
    assertEquals(r.to, hex(A));
    assertEquals(r.gas, "0x493e0");
    assertEquals(r.gasUsed, "0x" + receipt.gasUsed.toString(16));
    assertEquals(r.value, "0x0");
    assertEquals(r.input, "0x");
    assertEquals(r.error, undefined);
    assertEquals(r.calls.length, 2);
    const [b, rev] = r.calls;
    assertEquals(b.type, "CALL");
    assertEquals(b.from, hex(A));
    assertEquals(b.to, hex(B));
    assertEquals(b.output, "0x" + word(7));
    assertEquals(b.logs, [{ address: hex(B), topics: ["0x" + word(1)], data: "0x", position: "0x0" }]);
    assertEquals(b.gasUsed, "0x" + (27 + 22100 + 750 + 6).toString(16));
    assertEquals(rev.to, hex(R));
    assertEquals(rev.error, "execution reverted");
    assertEquals(rev.revertReason, "nope");
    assertEquals(rev.output, hex(REVERT_DATA));
    assertEquals(rev.logs, undefined);

    const top = await call("debug_traceTransaction", [hex(tx.hash()), {
      tracer: "callTracer",
      tracerConfig: { onlyTopCall: true },
    }]) as Record<string, unknown>;
    assertEquals(top.calls, undefined);
    assertEquals(top.gasUsed, r.gasUsed);
  });
});

Deno.test("debug_traceTransaction prestateTracer: touched state before, and only the changes in diffMode", async () => {
  await withChain(async (chain, call) => {
    const tx = userTx(chain, A, { gas: 300_000n });
    await mine(chain, [tx]);
    const pre = await call("debug_traceTransaction", [hex(tx.hash()), {
      tracer: "prestateTracer",
    }]) as Record<
      string,
      { balance: string; nonce?: number; code?: string; storage?: Record<string, string> }
    >;
    assertEquals(pre[hex(A)].storage, { ["0x" + word(1)]: "0x" + word(9) });
    assertEquals(pre[hex(B)].storage, { ["0x" + word(0)]: "0x" + word(0) });
    assertEquals(pre[hex(B)].code, hex(B_CODE));
    // The sender's first transaction: nonce 0 is omitted (geth omitempty).
    assertEquals(pre[hex(ACCOUNTS[0].address)].nonce, undefined);
    assert(pre[hex(R)] !== undefined);

    const diff = await call("debug_traceTransaction", [hex(tx.hash()), {
      tracer: "prestateTracer",
      tracerConfig: { diffMode: true },
    }]) as { pre: Record<string, Record<string, unknown>>; post: Record<string, Record<string, unknown>> };
    assertEquals(diff.post[hex(A)], { storage: { ["0x" + word(1)]: "0x" + word(5) } });
    assertEquals(diff.pre[hex(A)].storage, { ["0x" + word(1)]: "0x" + word(9) });
    assertEquals(diff.post[hex(B)], { storage: { ["0x" + word(0)]: "0x" + word(42) } });
    assertEquals(diff.pre[hex(B)].storage, undefined);
    assertEquals(diff.post[hex(ACCOUNTS[0].address)].nonce, 1);
    assert(typeof diff.post[hex(ACCOUNTS[0].address)].balance === "string");
    assertEquals(diff.post[hex(R)], undefined);
    assertEquals(diff.pre[hex(R)], undefined);

    // disableCode / disableStorage (geth PrestateTracerConfig): left out, and not compared in diffMode.
    const bare = await call("debug_traceTransaction", [hex(tx.hash()), {
      tracer: "prestateTracer",
      tracerConfig: { disableCode: true, disableStorage: true },
    }]) as Record<string, Record<string, unknown>>;
    assertEquals([bare[hex(B)].code, bare[hex(B)].storage, bare[hex(A)].storage], [
      undefined,
      undefined,
      undefined,
    ]);
    assertEquals(bare[hex(B)].balance, pre[hex(B)].balance);
    const noStorage = await call("debug_traceTransaction", [hex(tx.hash()), {
      tracer: "prestateTracer",
      tracerConfig: { diffMode: true, disableStorage: true },
    }]) as { pre: Record<string, unknown>; post: Record<string, unknown> };
    assertEquals(noStorage.post[hex(A)], undefined, "a storage-only change is no change");
    assertEquals(noStorage.post[hex(ACCOUNTS[0].address)], diff.post[hex(ACCOUNTS[0].address)]);
  });
});

Deno.test("debug_traceTransaction: deposits are traced without a gas purchase", async () => {
  await withChain(async (chain, call) => {
    const dep = deposit({});
    const built = await mine(chain, [dep]);
    const l1Info = hex(keccak256(built.block.transactions[0]));
    const ct = await call("debug_traceTransaction", [l1Info, { tracer: "callTracer" }]) as Record<
      string,
      unknown
    >;
    assertEquals(ct.from, hex(L1_ATTRIBUTES_DEPOSITOR_ADDRESS).toLowerCase());
    assertEquals(ct.to, hex(L1_BLOCK_ADDRESS).toLowerCase());
    assertEquals(ct.gas, "0xf4240");
    assertEquals(ct.gasUsed, "0x" + built.receipts[0].gasUsed.toString(16));
    assertEquals(ct.error, undefined);
    const sl = await call("debug_traceTransaction", [l1Info]) as { gas: number; structLogs: unknown[] };
    assertEquals(BigInt(sl.gas), built.receipts[0].gasUsed);
    assert(sl.structLogs.length > 10);

    const depHash = hex(keccak256(dep));
    const diff = await call("debug_traceTransaction", [depHash, {
      tracer: "prestateTracer",
      tracerConfig: { diffMode: true },
    }]) as { pre: Record<string, Record<string, unknown>>; post: Record<string, Record<string, unknown>> };
    const from = "0x" + "d0".repeat(20);
    // Minted 1 ETH, sent 0.1 ETH, paid no gas. The depositor had no account: geth looks it up before
    // the mint, so it is in pre with balance 0.
    assertEquals(diff.post[from], { balance: "0x" + (9n * 10n ** 17n).toString(16), nonce: 1 });
    assertEquals(diff.pre[from], { balance: "0x0" });
    const to = hex(ACCOUNTS[1].address);
    assertEquals(
      BigInt(diff.post[to].balance as string) - BigInt(diff.pre[to].balance as string),
      10n ** 17n,
    );
  });
});

Deno.test("debug_traceCall: struct logs and callTracer on a call object, state overrides", async () => {
  await withChain(async (chain, call) => {
    await mine(chain, []);
    const r = await call("debug_traceCall", [{ to: hex(B), gas: "0x186a0" }, "latest"]) as {
      gas: number;
      returnValue: string;
      structLogs: unknown[];
    };
    assertEquals(r.gas, 21000 + 27 + 22100 + 750 + 6);
    assertEquals(r.returnValue, "0x" + word(7));
    assertEquals(r.structLogs.length, 13);
    const ct = await call("debug_traceCall", [{ from: hex(ACCOUNTS[2].address), to: hex(R) }, "latest", {
      tracer: "callTracer",
    }]) as Record<string, unknown>;
    assertEquals(ct.error, "execution reverted");
    assertEquals(ct.revertReason, "nope");
    assertEquals(ct.from, hex(ACCOUNTS[2].address));
    const over = await call("debug_traceCall", [{ to: hex(R) }, "latest", {
      tracer: "callTracer",
      stateOverrides: { [hex(R)]: { code: hex(B_CODE) } },
    }]) as Record<string, unknown>;
    assertEquals(over.error, undefined);
    assertEquals(over.output, "0x" + word(7));
    // Traced calls leave the chain's state alone.
    const sm = await chain.engine.stateAt(chain.engine.head().header);
    assertEquals((await sm.getStorage(new Address(B), new Uint8Array(32))).length, 0);
    assertEquals(bytesToHex(await sm.getCode(new Address(R))).length > 2 + 2 * B_CODE.length, true);
  });
});

Deno.test("debug_traceCall 4byteTracer and noopTracer", async () => {
  await withChain(async (chain, call) => {
    await mine(chain, []);
    // call(identity precompile, 4 bytes); call(B, 4 zero bytes); stop
    const code = "0x600060006004600060006004" + "5af150" + "6000600060046000600073" + hex(B).slice(2) +
      "5af100";
    const r = await call("debug_traceCall", [{ to: hex(L), input: "0xdeadbeef0102" }, "latest", {
      tracer: "4byteTracer",
      stateOverrides: { [hex(L)]: { code } },
    }]);
    assertEquals(r, { "0xdeadbeef-2": 1, "0x00000000-0": 1 });
    assertEquals(await call("debug_traceCall", [{ to: hex(B) }, "latest", { tracer: "noopTracer" }]), {});
    const unknown = await assertRejects(
      () => call("debug_traceCall", [{ to: hex(B) }, "latest", { tracer: "jsTracer" }]),
      RpcFailure,
    );
    assertEquals(unknown.message.startsWith('tracer "jsTracer" not found'), true);
  });
});

Deno.test("debug trace timeout: an endless loop past the timeout is 'execution timeout'", async () => {
  await withChain(async (chain, call) => {
    const tx = userTx(chain, L, { gas: 20_000_000n });
    const ok = userTx(chain, ACCOUNTS[1].address, { value: 1n });
    const built = await mine(chain, [tx, ok]);
    const err = await assertRejects(
      () => call("debug_traceCall", [{ to: hex(L), gas: "0x1c9c380" }, "latest", { timeout: "30ms" }]),
      RpcFailure,
    );
    assertEquals(err.message, "execution timeout");
    const err2 = await assertRejects(
      () => call("debug_traceTransaction", [hex(tx.hash()), { tracer: "callTracer", timeout: "20ms" }]),
      RpcFailure,
    );
    assertEquals(err2.message, "execution timeout");
    // geth traceBlock with a native tracer: the first failure fails the request.
    const blockErr = await assertRejects(
      () =>
        call("debug_traceBlockByNumber", [
          "0x" + built.block.header.number.toString(16),
          { tracer: "callTracer", timeout: "20ms" },
        ]),
      RpcFailure,
    );
    assertEquals(blockErr.message, "execution timeout");
    // An unknown tracer (geth's JS path): each transaction with its error.
    const unknown = await call("debug_traceBlockByNumber", [
      "0x" + built.block.header.number.toString(16),
      { tracer: "noSuchTracer" },
    ]) as { txHash: string; error?: string }[];
    assertEquals(unknown.length, 3);
    assertEquals(unknown[2].txHash, hex(ok.hash()));
    assertEquals(typeof unknown[2].error, "string");
    const bad = await assertRejects(
      () => call("debug_traceTransaction", [hex(ok.hash()), { timeout: "5 seconds" }]),
      RpcFailure,
    );
    assertEquals(bad.message, 'time: invalid duration "5 seconds"');
  });
});

Deno.test("debug_traceBlockByNumber / ByHash: one result per transaction", async () => {
  await withChain(async (chain, call) => {
    const t1 = userTx(chain, ACCOUNTS[1].address, { value: 1n });
    const t2 = userTx(chain, A, { gas: 300_000n });
    const built = await mine(chain, [t1, t2]);
    const byHash = await call("debug_traceBlockByHash", [hex(built.hash), { tracer: "callTracer" }]) as {
      txHash: string;
      result: Record<string, unknown>;
    }[];
    assertEquals(byHash.map((r) => r.txHash), built.block.transactions.map((t) => hex(keccak256(t))));
    assertEquals((byHash[2].result.calls as unknown[]).length, 2);
    const byNumber = await call("debug_traceBlockByNumber", ["latest", { tracer: "callTracer" }]);
    assertEquals(byNumber, byHash);
    const single = await call("debug_traceTransaction", [hex(t2.hash()), { tracer: "callTracer" }]);
    assertEquals(byHash[2].result, single);
  });
});

Deno.test("debug_getRaw*: header, block, receipts and transaction round-trip", async () => {
  await withChain(async (chain, call) => {
    const tx = userTx(chain, A, { gas: 300_000n });
    const built = await mine(chain, [tx, deposit({})].reverse());
    const n = "0x" + built.block.header.number.toString(16);
    const header = await call("debug_getRawHeader", [n]) as string;
    assertEquals(hex(keccak256(hexToBytes(header))), hex(built.hash));
    const raw = await call("debug_getRawBlock", [{ blockHash: hex(built.hash) }]) as string;
    const decoded = RLP.decode(hexToBytes(raw)) as unknown as [
      Uint8Array[],
      Uint8Array[],
      unknown[],
      unknown[],
    ];
    assertEquals(hex(keccak256(RLP.encode(decoded[0]))), hex(built.hash));
    assertEquals(decoded[1].map(hex), built.block.transactions.map(hex));
    assertEquals(decoded[2], []);
    assertEquals(decoded[3], []);
    const receipts = await call("debug_getRawReceipts", [n]) as string[];
    assertEquals(receipts.length, 3);
    assertEquals(hex(orderedTrieRoot(receipts.map(hexToBytes))), hex(built.block.header.receiptsRoot));
    const rawTx = await call("debug_getRawTransaction", [hex(tx.hash())]) as string;
    assertEquals(hex(keccak256(hexToBytes(rawTx))), hex(tx.hash()));
    assertEquals(await call("debug_getRawTransaction", ["0x" + "11".repeat(32)]), "0x");
    // A number past the head: nothing, as geth (go-ethereum #31157); an unknown hash stays an error.
    assertEquals(await call("debug_getRawHeader", ["0x99"]), "0x");
    assertEquals(await call("debug_getRawBlock", ["0x99"]), "0x");
    assertEquals(await call("debug_getRawReceipts", ["0x99"]), null);
    const missing = await assertRejects(
      () => call("debug_getRawHeader", ["0x" + "22".repeat(32)]),
      RpcFailure,
    );
    assertEquals(missing.message, `block 0x${"22".repeat(32)} not found`);
    const noTx = await assertRejects(
      () => call("debug_traceTransaction", ["0x" + "33".repeat(32)]),
      RpcFailure,
    );
    assertEquals(noTx.message, "transaction not found"); // geth's words
  });
});
