/**
 * Differential EVM fuzzing: random programs (tests/e2e/helpers/evm_programs.ts) run as eth_call on
 * `keel execution --dev` and on anvil (npm @foundry-rs/anvil, Prague), whose answers must agree.
 *
 *   deno run -A scripts/fuzz_evm.ts [--programs 2000] [--seed 1] [--out mismatches.json]
 *
 * Prints how many programs returned, reverted and halted, and every mismatch (program code and
 * calldata, both answers); writes them to `--out` when given. Exits 1 when any program differs.
 * The e2e test tests/e2e/evm_differential_anvil_test.ts runs 400 programs of one seed.
 */
import { parseArgs } from "node:util";
import { differential, runProgram } from "../tests/e2e/evm_differential_anvil_test.ts";
import { anvilForTest, startAnvil, startKeelExecution } from "../tests/e2e/helpers/mod.ts";
import { randomProgram } from "../tests/e2e/helpers/evm_programs.ts";
import { prng } from "../tests/prng.ts";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    programs: { type: "string", default: "2000" },
    seed: { type: "string", default: "1" },
    out: { type: "string" },
  },
});
const count = Number(opts.programs);
const seed = Number(opts.seed);
if (!Number.isSafeInteger(count) || count <= 0 || !Number.isSafeInteger(seed)) {
  console.error("--programs and --seed take whole numbers");
  Deno.exit(2);
}

const tool = await anvilForTest("fuzz_evm");
if (!tool.ok) Deno.exit(2);
const anvil = await startAnvil(tool.binary, ["--hardfork", "prague", "--chain-id", "901"]);
const node = await startKeelExecution({ ws: false });
try {
  // The outcomes' spread, from keel's answers to the same programs (the same seed replays them).
  const rand = prng(seed);
  const kinds: Record<string, number> = { ok: 0, revert: 0, halt: 0 };
  for (let i = 0; i < Math.min(count, 500); i++) {
    const o = await runProgram(node.httpUrl, randomProgram(rand, 10 + Math.floor(rand() * 80), i % 10 !== 0));
    kinds[Object.keys(o)[0]]++;
  }
  const t0 = performance.now();
  const mismatches = await differential(node.httpUrl, anvil.url, seed, count);
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `seed ${seed}: ${count} programs in ${s} s, ${mismatches.length} differ` +
      ` (of the first ${
        Math.min(count, 500)
      }: ${kinds.ok} returned, ${kinds.revert} reverted, ${kinds.halt} halted)`,
  );
  for (const m of mismatches) console.log(JSON.stringify(m));
  if (opts.out !== undefined) await Deno.writeTextFile(opts.out, JSON.stringify(mismatches, null, 1));
  if (mismatches.length > 0) Deno.exitCode = 1;
} finally {
  await anvil.stop();
  await node.stop();
}
