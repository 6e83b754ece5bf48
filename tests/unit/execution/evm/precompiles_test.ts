import { createEVM, type PrecompileInput } from "@ethereumjs/evm";
import { assert, assertEquals } from "../../../assert.ts";
import { bytesToHex, hexToBytes } from "../../../../lib/common/bytes.ts";
import {
  BlockBuilder,
  forkRules,
  GRANITE_PAIRING_MAX_INPUT,
  opPrecompiles,
  p256Verify,
  P256VERIFY_ADDRESS,
  P256VERIFY_GAS,
} from "../../../../lib/execution/evm/mod.ts";
import {
  attributes,
  ETHER,
  FEES,
  fund,
  genesisHeader,
  newState,
  opConfig,
  SENDER,
  setL1Block,
  transfer,
} from "./helpers.ts";

/** RIP-7212 vectors (wycheproof), transcribed from op-geth core/vm/testdata/precompiles/p256Verify.json. */
const VECTORS: { input: string; expected: string; name: string }[] = JSON.parse(
  await Deno.readTextFile(new URL("./p256_vectors.json", import.meta.url)),
);

const common = forkRules(opConfig("fjord"), 0n).common;

function input(data: Uint8Array, gasLimit = 100_000n): PrecompileInput {
  return { data, gasLimit, common, _EVM: undefined as unknown as PrecompileInput["_EVM"] };
}

Deno.test("P256VERIFY: RIP-7212 vectors", () => {
  assert(VECTORS.some((v) => v.expected !== "") && VECTORS.some((v) => v.expected === ""));
  for (const v of VECTORS) {
    const res = p256Verify(input(hexToBytes(v.input)));
    assertEquals(bytesToHex(res.returnValue), v.expected === "" ? "0x" : `0x${v.expected}`, v.name);
    assertEquals(res.executionGasUsed, P256VERIFY_GAS);
  }
});

Deno.test("P256VERIFY: wrong length returns empty; too little gas is out of gas", () => {
  const valid = hexToBytes(VECTORS.find((v) => v.expected !== "")!.input);
  assertEquals(p256Verify(input(valid.subarray(0, 159))).returnValue.length, 0);
  const oog = p256Verify(input(valid, 3449n));
  assertEquals(oog.exceptionError?.error, "out of gas");
  assertEquals(oog.executionGasUsed, 3449n);
});

Deno.test("opPrecompiles: P256VERIFY from Fjord, pairing limit from Granite, BLS limits from Isthmus", () => {
  const at = (f: Parameters<typeof opConfig>[0]) => {
    const r = forkRules(opConfig(f), 0n);
    return opPrecompiles(r.opFork, r.common).map((p) => String(p.address));
  };
  assertEquals(at("ecotone"), []);
  assertEquals(at("fjord"), [P256VERIFY_ADDRESS]);
  assertEquals(at("granite").length, 2);
  assertEquals(at("isthmus").length, 5);
  assertEquals(opPrecompiles(undefined, common), []);
});

Deno.test("Granite bn256Pairing: input over 112,687 bytes consumes all gas; within the limit runs", async () => {
  const r = forkRules(opConfig("granite"), 0n);
  const pairing = opPrecompiles(r.opFork, r.common).find((p) => String(p.address).endsWith("08"));
  assert(pairing !== undefined && "function" in pairing);
  const evm = await createEVM({ common: r.common });
  const run = (data: Uint8Array) =>
    pairing.function({ data, gasLimit: 10_000_000n, common: r.common, _EVM: evm });
  const over = await run(new Uint8Array(192 * 587));
  assert(192 * 587 > GRANITE_PAIRING_MAX_INPUT);
  assertEquals(over.exceptionError?.error, "out of gas");
  assertEquals(over.executionGasUsed, 10_000_000n);
  const empty = await run(new Uint8Array());
  assertEquals(empty.exceptionError, undefined);
  assertEquals(empty.returnValue[31], 1);
});

Deno.test("P256VERIFY is reachable from a transaction from Fjord, and absent before", async () => {
  const vector = hexToBytes(VECTORS[0].input);
  let calldataGas = 0n;
  for (const b of vector) calldataGas += b === 0 ? 4n : 16n;
  for (const fork of ["ecotone", "fjord"] as const) {
    const config = opConfig(fork);
    const sm = newState();
    await setL1Block(sm, FEES);
    await fund(sm, SENDER, ETHER);
    const b = await BlockBuilder.open(config, genesisHeader(config, fork), attributes(fork), {
      stateManager: sm,
    });
    const to = hexToBytes(P256VERIFY_ADDRESS);
    const r = await b.addTransaction(
      transfer(config, 2n, 0n, { to, value: 0n, data: vector, gasLimit: 100_000n }),
    );
    assertEquals(r.receipt.status, 1);
    assertEquals(r.gasUsed, 21_000n + calldataGas + (fork === "fjord" ? P256VERIFY_GAS : 0n), fork);
    await b.abort();
  }
});
