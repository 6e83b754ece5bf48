/**
 * The fast MSTORE, MLOAD, KECCAK256, CALLDATALOAD, SLOAD, SSTORE and LOG handlers and the fast gas
 * handlers (fast_gas.ts) against the stock ones: each program of the corpus runs on a stock EVM and
 * on ones with installFastOpcodes (with and without the KECCAK256 memo), on equal fresh states;
 * every step (stack, memory, gas left), the result, the gas used and refunded, the error, the logs
 * and the storage written must be the same. (A step listener keeps the stock interpreter loop:
 * fast_loop_test.ts compares the loops.)
 */
import { createEVM, type EVM } from "@ethereumjs/evm";
import { Address } from "@ethereumjs/util";
import { bytesToHex, concatBytes, hexToBytes, keccak256 } from "../../../../lib/common/mod.ts";
import {
  bytesWord,
  forkRules,
  installFastOpcodes,
  jumpAnalysisStats,
  readWord,
  wordBytes,
  writeWord,
} from "../../../../lib/execution/evm/mod.ts";
import { assert, assertEquals } from "../../../assert.ts";
import { newState, opConfig, setStorage } from "./helpers.ts";

const MAX = (1n << 256n) - 1n;
const CONTRACT = new Address(new Uint8Array(20).fill(0xc0));
const CALLER = new Address(new Uint8Array(20).fill(0xca));
const SLOT_VALUE = 0xdeadbeefn << 200n | 0x1234n;
/** A contract that writes one empty LOG0 (called from a static frame). */
const LOGGER = new Address(new Uint8Array(20).fill(0xc2));

/** PUSH32 of a word. */
function push(v: bigint): Uint8Array {
  return concatBytes(new Uint8Array([0x7f]), wordBytes(v));
}

function op(...codes: number[]): Uint8Array {
  return new Uint8Array(codes);
}

/** Program: the given ops, then RETURN(0, 256) (memory after the test as the result). */
function prog(...parts: Uint8Array[]): Uint8Array {
  return concatBytes(...parts, push(256n), push(0n), op(0xf3));
}

/** BenchToken runtime (tests rpc-bench's token) from its init code: deployed by a create. */
const TOKEN_INIT = hexToBytes(
  "0x6080604052348015600f57600080fd5b50336000818152602081815260408083206b033b2e3c9fd0803ce80000009081905590519081527fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef910160405180910390a36101bb806100706000396000f3fe608060405234801561001057600080fd5b50600436106100365760003560e01c806370a082311461003b578063a9059cbb1461006e575b600080fd5b61005b61004936600461014e565b60006020819052908152604090205481565b6040519081526020015b60405180910390f35b61008161007c366004610170565b610091565b6040519015158152602001610065565b33600090815260208190526040812054828110156100ae57600080fd5b3360009081526020819052604080822085840390556001600160a01b0386168252812080548592906100e190849061019a565b90915550506040518381526001600160a01b0385169033907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef9060200160405180910390a360019150505b92915050565b80356001600160a01b038116811461014957600080fd5b919050565b60006020828403121561016057600080fd5b61016982610132565b9392505050565b6000806040838503121561018357600080fd5b61018c83610132565b946020939093013593505050565b8082018082111561012c57634e487b7160e01b600052601160045260246000fd",
);

interface Trace {
  steps: string[];
  returnValue: string;
  gasUsed: bigint;
  refund: bigint;
  error?: string;
  logs: string;
  slots: string[];
}

/** Fast handlers installed on an Isthmus EVM: 11 opcode handlers and 16 gas handlers. */
const INSTALLED = 28;

/** Which handlers: stock, fast with the KECCAK256 memo (eth_call), fast without it (blocks). */
type Mode = "stock" | "fast" | "fast-no-memo";

async function run(
  mode: Mode,
  code: Uint8Array | undefined,
  data: Uint8Array,
  gasLimit = 1_000_000n,
): Promise<Trace> {
  const common = forkRules(opConfig("isthmus"), 0n).common;
  const sm = newState();
  await setStorage(sm, CONTRACT.bytes, 1n, SLOT_VALUE);
  await setStorage(sm, CONTRACT.bytes, 2n, 1n);
  await setStorage(sm, CONTRACT.bytes, MAX, MAX);
  await sm.putCode(LOGGER, new Uint8Array([0x60, 0, 0x60, 0, 0xa0, 0]));
  const evm: EVM = await createEVM({ common, stateManager: sm });
  if (mode !== "stock") assertEquals(installFastOpcodes(evm, { keccakMemo: mode === "fast" }), INSTALLED);
  const steps: string[] = [];
  evm.events.on("step", (s, resolve) => {
    steps.push(
      `${s.pc} ${s.opcode.name} ${s.gasLeft} [${s.stack.map((v) => v.toString(16)).join(",")}] ${
        bytesToHex(s.memory)
      }`,
    );
    resolve?.();
  });
  let to = CONTRACT;
  if (code === undefined) {
    const created = await evm.runCall({ caller: CALLER, data: TOKEN_INIT, gasLimit: 1_000_000n });
    assertEquals(created.execResult.exceptionError, undefined);
    to = created.createdAddress!;
  } else {
    await sm.putCode(CONTRACT, code);
  }
  const r = await evm.runCall({ caller: CALLER, to, data, gasLimit });
  const slots: string[] = [];
  for (const k of [0n, 1n, 2n, 3n, MAX]) slots.push(bytesToHex(await sm.getStorage(to, wordBytes(k))));
  return {
    steps,
    returnValue: bytesToHex(r.execResult.returnValue),
    gasUsed: r.execResult.executionGasUsed,
    refund: r.execResult.gasRefund ?? 0n,
    error: r.execResult.exceptionError?.error,
    logs: JSON.stringify(
      (r.execResult.logs ?? []).map((l) =>
        l.map((p) => Array.isArray(p) ? p.map(bytesToHex) : bytesToHex(p))
      ),
    ),
    slots,
  };
}

async function same(
  name: string,
  code: Uint8Array | undefined,
  data: Uint8Array = new Uint8Array(),
  gasLimit?: bigint,
) {
  const stock = await run("stock", code, data, gasLimit);
  const fast = await run("fast", code, data, gasLimit);
  const plain = await run("fast-no-memo", code, data, gasLimit);
  assert(stock.steps.length > 0, `${name}: no steps`);
  assertEquals(fast, stock, name);
  assertEquals(plain, stock, `${name} (no memo)`);
  return stock;
}

const CALLDATA = hexToBytes(
  "0x" + Array.from({ length: 40 }, (_, i) => ((i * 37 + 1) & 255).toString(16).padStart(2, "0")).join(""),
);

Deno.test("fast opcodes: MSTORE and MLOAD words, unaligned and past the first memory container", async () => {
  for (const v of [0n, 1n, 0xffn << 248n, MAX, SLOT_VALUE]) {
    for (const at of [0n, 1n, 31n, 8170n, 8192n, 20_000n]) {
      const r = await same(
        `mstore ${v} at ${at}`,
        prog(push(v), push(at), op(0x52), push(at), op(0x51), push(0n), op(0x52), push(at + 7n), op(0x51)),
      );
      assertEquals(r.error, undefined);
    }
  }
  // MLOAD of untouched memory reads zero and grows memory.
  await same("mload fresh", prog(push(100n), op(0x51), push(64n), op(0x52)));
});

Deno.test("fast opcodes: out of gas, stack underflow and huge offsets are the stock errors", async () => {
  assertEquals((await same("mstore huge", prog(push(1n), push(1n << 40n), op(0x52)))).error, "out of gas");
  assertEquals((await same("mload huge", prog(push(MAX), op(0x51)))).error, "out of gas");
  assertEquals((await same("mstore underflow", op(0x60, 1, 0x52))).error, "stack underflow");
  assertEquals((await same("mload underflow", op(0x51))).error, "stack underflow");
  assertEquals((await same("keccak huge", prog(push(1n << 32n), push(0n), op(0x20)))).error, "out of gas");
  assertEquals(
    (await same("mstore gas short", prog(push(1n), push(0n), op(0x52)), new Uint8Array(), 30n)).error,
    "out of gas",
  );
});

Deno.test("fast opcodes: KECCAK256 of empty, short and container-crossing memory", async () => {
  const fill = concatBytes(push(SLOT_VALUE), push(8180n), op(0x52), push(MAX), push(3n), op(0x52));
  for (const [off, len] of [[0n, 0n], [0n, 32n], [3n, 5n], [8000n, 400n], [9000n, 0n]]) {
    const r = await same(
      `keccak ${off} ${len}`,
      prog(fill, push(len), push(off), op(0x20), push(0n), op(0x52)),
    );
    assertEquals(r.error, undefined);
  }
  // Short inputs are memoized: equal inputs give equal words, different ones different words.
  const slotHash = async (key: bigint) =>
    BigInt(
      (await same(
        `mapping slot ${key}`,
        prog(
          push(key),
          push(0n),
          op(0x52),
          push(1n),
          push(32n),
          op(0x52),
          push(64n),
          push(0n),
          op(0x20),
          push(0n),
          op(0x52),
        ),
      )).returnValue.slice(0, 66),
    );
  const [a, b, a2] = [await slotHash(5n), await slotHash(6n), await slotHash(5n)];
  assertEquals(a, a2);
  assert(a !== b);
  assertEquals(a, BigInt(bytesToHex(keccak256(concatBytes(wordBytes(5n), wordBytes(1n))))));
});

Deno.test("fast opcodes: CALLDATALOAD inside, partly past, at and beyond the call data", async () => {
  for (const at of [0n, 4n, 8n, 20n, 39n, 40n, 41n, 1n << 64n, MAX]) {
    const r = await same(`calldataload ${at}`, prog(push(at), op(0x35), push(0n), op(0x52)), CALLDATA);
    assertEquals(r.error, undefined);
  }
  await same("calldataload empty", prog(push(0n), op(0x35), push(0n), op(0x52)));
});

Deno.test("fast opcodes: SLOAD of set, unset and full-width slots; SSTORE after", async () => {
  for (const k of [0n, 1n, 2n, 3n, MAX]) {
    const r = await same(
      `sload ${k}`,
      prog(
        push(k),
        op(0x54),
        op(0x80),
        push(0n),
        op(0x52),
        push(3n),
        op(0x55),
        push(k),
        op(0x54),
        push(32n),
        op(0x52),
      ),
    );
    assertEquals(r.error, undefined);
  }
});

/** SSTORE(slot, value) for each pair, then RETURN. */
function stores(...pairs: [bigint, bigint][]): Uint8Array {
  return prog(...pairs.map(([slot, value]) => concatBytes(push(value), push(slot), op(0x55))));
}

Deno.test("fast opcodes: SSTORE through every EIP-2200 case, cold and warm, with refunds", async () => {
  // Slot 3 is unset at the start, slot 2 holds 1, slot 1 holds SLOT_VALUE.
  const cases: [string, [bigint, bigint][]][] = [
    ["create, reset to unset (init refund), set, noop", [[3n, 5n], [3n, 0n], [3n, 7n], [3n, 7n]]],
    ["noop, delete (clear refund), noop, recreate (refund taken back), reset (clean refund)", [
      [2n, 1n],
      [2n, 0n],
      [2n, 0n],
      [2n, 3n],
      [2n, 1n],
    ]],
    ["clean write, dirty write, delete a dirty slot, back to original", [
      [1n, 9n],
      [1n, 10n],
      [1n, 0n],
      [1n, SLOT_VALUE],
    ]],
    ["zero into an unset slot (noop, cold)", [[3n, 0n]]],
    ["full-width key and value", [[MAX, 0n], [MAX, MAX], [MAX - 1n, MAX]]],
  ];
  for (const [name, pairs] of cases) {
    const r = await same(name, stores(...pairs));
    assertEquals(r.error, undefined, name);
  }
  // Refunds differ by case, so the comparison is not vacuous.
  const refunds = new Set<bigint>();
  for (const [, pairs] of cases) refunds.add((await run("fast", stores(...pairs), new Uint8Array())).refund);
  assert(refunds.size >= 3, `refunds ${[...refunds]}`);
  // The EIP-2200 sentry: 2,300 gas or less left at an SSTORE is out of gas.
  for (const gas of [2_306n, 2_307n, 5_000n, 22_107n, 22_106n]) {
    await same(`sstore with ${gas} gas`, concatBytes(push(1n), push(3n), op(0x55)), new Uint8Array(), gas);
  }
});

Deno.test("fast opcodes: LOG0 to LOG4 with data across memory, and in a static frame", async () => {
  for (let n = 0; n <= 4; n++) {
    const topics = Array.from({ length: n }, (_, i) => push(i === 0 ? MAX : BigInt(i) << 200n));
    for (const [off, len] of [[0n, 0n], [0n, 32n], [5n, 70n], [8180n, 40n]]) {
      const r = await same(
        `log${n} ${off} ${len}`,
        prog(push(SLOT_VALUE), push(0n), op(0x52), ...topics, push(len), push(off), op(0xa0 + n)),
      );
      assertEquals(r.error, undefined);
      assert(r.logs.length > 2, "a log was written");
    }
  }
  // STATICCALL into a contract that logs: the inner frame fails, the outer returns the flag 0.
  const outer = prog(
    push(0n),
    push(0n),
    push(0n),
    push(0n),
    push(BigInt(LOGGER.toString())),
    op(0x5a, 0xfa),
    push(0n),
    op(0x52),
  );
  const r = await same("log in a static frame", outer, new Uint8Array(), 200_000n);
  assertEquals(r.error, undefined);
  assertEquals(BigInt(r.returnValue.slice(0, 66)), 0n);
  assert(r.steps.some((s) => / LOG0? /.test(s)), "the LOG ran and failed");
});

Deno.test("fast opcodes: BenchToken balanceOf, transfer and its revert; a precompile call; a REVERT", async () => {
  const sel = (s: string) => hexToBytes(s);
  const word = (v: bigint) => wordBytes(v);
  const caller = concatBytes(new Uint8Array(12), CALLER.bytes);
  const bal = await same("balanceOf", undefined, concatBytes(sel("0x70a08231"), caller));
  assertEquals(BigInt(bal.returnValue), 10n ** 27n);
  const other = concatBytes(new Uint8Array(12), new Uint8Array(20).fill(7));
  const ok = await same("transfer", undefined, concatBytes(sel("0xa9059cbb"), other, word(5n)));
  assertEquals(ok.error, undefined);
  assertEquals(
    (await same("transfer too much", undefined, concatBytes(sel("0xa9059cbb"), other, word(MAX)))).error,
    "revert",
  );
  // SHA-256 precompile on 32 bytes of memory, result MLOADed: STATICCALL(gas, 2, 0, 32, 32, 32).
  const sha = prog(
    push(SLOT_VALUE),
    push(0n),
    op(0x52),
    push(32n),
    push(32n),
    push(32n),
    push(0n),
    push(2n),
    op(0x5a),
    op(0xfa),
    push(32n),
    op(0x51),
    push(64n),
    op(0x52),
  );
  assertEquals((await same("sha256 precompile", sha)).error, undefined);
  const revert = concatBytes(push(MAX), push(0n), op(0x52), push(32n), push(0n), op(0xfd));
  assertEquals((await same("revert", revert)).error, "revert");
});

Deno.test("fast opcodes: word helpers round-trip; bytesWord pads left and right", () => {
  const buf = new Uint8Array(40);
  const view = new DataView(buf.buffer);
  for (const v of [0n, 1n, MAX, SLOT_VALUE, 1n << 255n]) {
    writeWord(view, 3, v);
    assertEquals(readWord(view, 3), v);
    assertEquals(BigInt(bytesToHex(wordBytes(v))), v);
    assertEquals(bytesWord(buf, 3), v);
  }
  assertEquals(bytesWord(new Uint8Array([1, 2]), -30), 0x0102n);
  assertEquals(bytesWord(new Uint8Array([1, 2]), 0), 0x0102n << 240n);
});

Deno.test("fast opcodes: installed once per EVM; a second install finds no stock handler left", async () => {
  const common = forkRules(opConfig("isthmus"), 0n).common;
  const evm = await createEVM({ common, stateManager: newState() });
  assertEquals(installFastOpcodes(evm, { keccakMemo: false }), INSTALLED);
  assertEquals(installFastOpcodes(evm), 0);
});

Deno.test("fast opcodes: KECCAK256 with the memo calls a Common's own keccak256 when it is not keel's", async () => {
  const base = forkRules(opConfig("isthmus"), 0n).common;
  const common = base.copy();
  let calls = 0;
  const marker = new Uint8Array(32).fill(0x42);
  // A new customCrypto object: the cached Common's own stays untouched.
  (common as { customCrypto: object }).customCrypto = {
    ...base.customCrypto,
    keccak256: (d: Uint8Array) => {
      calls++;
      return d.length === 64 ? marker : keccak256(d);
    },
  };
  const evm: EVM = await createEVM({ common, stateManager: newState() });
  installFastOpcodes(evm, { keccakMemo: true });
  await evm.stateManager.putCode(CONTRACT, prog(op(0x60, 0x40, 0x60, 0x00, 0x20, 0x60, 0x00, 0x52)));
  const r = await evm.runCall({ caller: CALLER, to: CONTRACT, gasLimit: 100_000n });
  assertEquals(r.execResult.exceptionError, undefined);
  assert(calls > 0, "the custom keccak256 was called");
  assertEquals(bytesToHex(r.execResult.returnValue.subarray(0, 32)), bytesToHex(marker));
});

Deno.test("fast opcodes: the jump analysis runs once per code and opcode table, with the same traces", async () => {
  const common = forkRules(opConfig("isthmus"), 0n).common;
  const sm = newState();
  const evm: EVM = await createEVM({ common, stateManager: sm });
  installFastOpcodes(evm);
  const created = await evm.runCall({ caller: CALLER, data: TOKEN_INIT, gasLimit: 1_000_000n });
  const token = created.createdAddress!;
  const data = concatBytes(hexToBytes("0x70a08231"), new Uint8Array(12), CALLER.bytes);
  const traces: string[][] = [];
  for (let i = 0; i < 3; i++) {
    const steps: string[] = [];
    const listener = (s: { pc: number; opcode: { name: string }; gasLeft: bigint }, resolve?: () => void) => {
      steps.push(`${s.pc} ${s.opcode.name} ${s.gasLeft}`);
      resolve?.();
    };
    evm.events.on("step", listener);
    const before = { ...jumpAnalysisStats };
    const r = await evm.runCall({ caller: CALLER, to: token, data, gasLimit: 100_000n });
    evm.events.off("step", listener);
    assertEquals(BigInt(bytesToHex(r.execResult.returnValue)), 10n ** 27n);
    // The first call analyses the runtime code; the next ones reuse it.
    if (i === 0) assertEquals(jumpAnalysisStats.computed - before.computed, 1);
    else {
      assertEquals(jumpAnalysisStats.computed - before.computed, 0);
      assertEquals(jumpAnalysisStats.reused - before.reused, 1);
    }
    traces.push(steps);
  }
  assertEquals(traces[1], traces[0]);
  assertEquals(traces[2], traces[0]);
  // Another EVM (its own opcode table) analyses the same code again.
  const other: EVM = await createEVM({ common, stateManager: sm });
  installFastOpcodes(other);
  const before = jumpAnalysisStats.computed;
  await other.runCall({ caller: CALLER, to: token, data, gasLimit: 100_000n });
  assertEquals(jumpAnalysisStats.computed - before, 1);
});

Deno.test("fast opcodes: RETURNDATACOPY as the stock handler; past the return data it halts as geth names it", async () => {
  // STATICCALL the identity precompile (0x04: the 128 bytes of input back), then copy
  // return data: within it the traces match; past it both halt with all gas gone, the fast handler
  // naming the error as geth does (EIP-211, ErrReturnDataOutOfBounds).
  const copy = (offset: number, length: number) =>
    hexToBytes(
      "0x" + "6020" + "6000" + "6080" + "6000" + "6004" + "5a" + "fa" + "50" + // staticcall(gas, 4, 0, 128, 0, 32)
        `60${length.toString(16).padStart(2, "0")}60${offset.toString(16).padStart(2, "0")}6000` + "3e" + // returndatacopy
        "60206000f3",
    );
  await same("RETURNDATACOPY within", copy(96, 32));
  await same("RETURNDATACOPY empty", copy(128, 0));
  const stock = await run("stock", copy(100, 29), new Uint8Array());
  const fast = await run("fast", copy(100, 29), new Uint8Array());
  assertEquals(stock.error, "out of gas");
  assertEquals(fast.error, "value out of range");
  assertEquals(fast.gasUsed, stock.gasUsed);
  assertEquals(fast.steps, stock.steps);
});
