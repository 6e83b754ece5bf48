/**
 * keel's EVM against anvil's revm on random programs (helpers/evm_programs.ts): each runs as an
 * eth_call on both nodes (its code and a helper contract given by state overrides, the same sender,
 * 2,000,000 gas) and the answers must agree: the same return data (which holds what the program left
 * on its stack, GAS, MSIZE and RETURNDATASIZE, so that a value or a gas charge that differs shows), or
 * the same revert data, or an exceptional halt on both. Every tenth program also runs as a mined
 * transaction (its code set with anvil_setCode on both): the same status, gas used (after refunds and
 * the EIP-7623 floor) and logs. Both chains see the same transactions in the same order, so the
 * program's storage, which later programs read, stays the same on both. This reaches the paths keel wrote itself
 * (the interpreter loop, the gas handlers of memory, SSTORE and LOG, the opcode handlers over
 * DataView words) as well as @ethereumjs's. A mismatch prints the program to replay.
 *
 * More seeds: `deno run -A scripts/fuzz_evm.ts --programs 2000 --seed 7`.
 */
import { assertEquals } from "../assert.ts";
import { anvilForTest, DEV_ADDRESS, rpcResult, startAnvil, startKeelExecution } from "./helpers/mod.ts";
import {
  BLOCK_OVERRIDES,
  HELPER,
  HELPER_CODE,
  PROGRAM,
  type Program,
  randomProgram,
} from "./helpers/evm_programs.ts";
import { prng } from "../prng.ts";

/** What a node answered, reduced to what both must agree on. */
export type Outcome = { ok: string } | { revert: string } | { halt: true };

let id = 0;
/** Runs `p` as an eth_call on the node at `url`. */
export async function runProgram(url: string, p: Program): Promise<Outcome> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method: "eth_call",
      params: [
        { from: DEV_ADDRESS, to: PROGRAM, data: p.data, gas: "0x1e8480" },
        "latest",
        { [PROGRAM]: { code: p.code, balance: "0x10" }, [HELPER]: { code: HELPER_CODE } },
        BLOCK_OVERRIDES,
      ],
    }),
  });
  const body = await res.json();
  if (body.result !== undefined) return { ok: body.result };
  if (body.error?.code === 3) return { revert: body.error.data ?? "0x" };
  return { halt: true };
}

const rpc = rpcResult;

/**
 * Runs `p` as a mined transaction (its code set with anvil_setCode, as both nodes serve it): what its
 * receipt says that an eth_call does not (gas used after refunds and the calldata floor, logs).
 */
export async function runProgramTx(url: string, p: Program): Promise<unknown> {
  await rpc(url, "anvil_setCode", [PROGRAM, p.code]);
  const hash = await rpc(url, "eth_sendTransaction", [{
    from: DEV_ADDRESS,
    to: PROGRAM,
    data: p.data,
    gas: "0x1e8480",
  }]);
  for (let i = 0; i < 200; i++) {
    const r = await rpc(url, "eth_getTransactionReceipt", [hash]) as
      | { status: string; gasUsed: string; logs: { address: string; topics: string[]; data: string }[] }
      | null;
    if (r !== null) {
      return {
        status: r.status,
        gasUsed: r.gasUsed,
        logs: r.logs.map((l) => [l.address, l.topics, l.data]),
      };
    }
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`no receipt for ${hash}`);
}

/** Sets up both nodes alike for the programs' transactions: the helper's code, the program's balance. */
async function prepare(url: string): Promise<void> {
  await rpc(url, "anvil_setCode", [HELPER, HELPER_CODE]);
  await rpc(url, "anvil_setBalance", [PROGRAM, "0x10"]);
}

/**
 * Runs `count` programs of `seed` on both, as calls, and every `txEvery`-th also as a transaction; the
 * mismatches, each with its program.
 */
export async function differential(
  keelUrl: string,
  anvilUrl: string,
  seed: number,
  count: number,
  txEvery = 10,
): Promise<{ program: Program; keel: unknown; anvil: unknown }[]> {
  await Promise.all([prepare(keelUrl), prepare(anvilUrl)]);
  const rand = prng(seed);
  const out: { program: Program; keel: unknown; anvil: unknown }[] = [];
  for (let i = 0; i < count; i++) {
    // Programs that also run as transactions (in blocks the two chains number and time apart) do not
    // read the block; the others do, in the overridden block.
    const asTx = i % txEvery === 0;
    const program = randomProgram(rand, 10 + Math.floor(rand() * 80), !asTx);
    const [keel, anvil] = await Promise.all([runProgram(keelUrl, program), runProgram(anvilUrl, program)]);
    if (JSON.stringify(keel) !== JSON.stringify(anvil)) out.push({ program, keel, anvil });
    if (!asTx) continue;
    const [keelTx, anvilTx] = await Promise.all([
      runProgramTx(keelUrl, program),
      runProgramTx(anvilUrl, program),
    ]);
    if (JSON.stringify(keelTx) !== JSON.stringify(anvilTx)) {
      out.push({ program, keel: keelTx, anvil: anvilTx });
    }
  }
  return out;
}

Deno.test({
  name: "EVM: random programs answer the same on keel and on anvil (revm)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const tool = await anvilForTest("evm_differential_anvil_test");
    if (!tool.ok) return;
    // The same chain id as keel's dev chain (901), for CHAINID.
    const anvil = await startAnvil(tool.binary, ["--hardfork", "prague", "--chain-id", "901"]);
    const node = await startKeelExecution({ ws: false });
    try {
      const mismatches = await differential(node.httpUrl, anvil.url, 20261127, 400);
      for (const m of mismatches.slice(0, 3)) console.error(JSON.stringify(m));
      assertEquals(
        mismatches.length,
        0,
        `${mismatches.length} of 400 programs differ (the first ones printed)`,
      );
    } finally {
      await anvil.stop();
      await node.stop();
    }
  },
});
