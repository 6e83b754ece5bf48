/**
 * Builds the single keel executable: `deno task compile` → dist/keel.
 *
 * - The permission set is deno.json `"permissions": {"keel": ...}`, turned into flags by
 *   `permissionSetToFlags` (lib/node/permissions.ts): the same set `deno task node` runs under
 *   with `-P=keel`, and the one tests/e2e/permissions_test.ts runs main.ts under. No second copy.
 * - The network presets are embedded through their imports (networks/index.ts), so no `--include`.
 * - lib/config/build_info.json gets the git commit for the build, and its committed content is
 *   restored afterwards, whatever happens.
 * - `deno compile` downloads its runtime (denort) unless `DENORT_BIN` names a local one; deno reads
 *   that variable itself, so it is passed through the environment unchanged.
 *
 * Usage: deno run --allow-all scripts/compile.ts [--output dist/keel] [--target <triple>]
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  KEEL_RUNTIME_FLAGS,
  permissionSetFromConfig,
  permissionSetToFlags,
} from "../lib/node/permissions.ts";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** Extra modules the binary must embed that static analysis does not see (e.g. a Worker entry). */
/** Modules loaded by URL at run time (Workers), which the static module graph does not reach. */
export const COMPILE_INCLUDES: readonly string[] = [
  "lib/node/worker.ts",
  "lib/execution/state/root_worker.ts",
  "lib/execution/evm/speculation_worker.ts",
  "lib/execution/txpool/block_senders_worker.ts",
  "lib/execution/txpool/sender_recovery_worker.ts",
];

export interface CompileOptions {
  output: string;
  target?: string;
  entry: string;
  includes: readonly string[];
}

export const DEFAULT_COMPILE_OPTIONS: CompileOptions = {
  output: "dist/keel",
  entry: "main.ts",
  includes: COMPILE_INCLUDES,
};

/** The `deno compile` arguments for the parsed deno.json `config`. */
export function compileArgs(config: unknown, options: CompileOptions = DEFAULT_COMPILE_OPTIONS): string[] {
  const args = ["compile", ...permissionSetToFlags(permissionSetFromConfig(config)), ...KEEL_RUNTIME_FLAGS];
  for (const include of options.includes) args.push("--include", include);
  if (options.target) args.push("--target", options.target);
  args.push("--output", options.output, options.entry);
  return args;
}

/** The message when deno compile cannot get its runtime. */
export const DENORT_HELP =
  "keel: deno compile could not get its runtime (denort): this machine cannot download it. " +
  "Set DENORT_BIN to a local denort binary of the same Deno version (2.9.6), e.g. " +
  "DENORT_BIN=/path/to/denort deno task compile";

async function gitHead(): Promise<string> {
  try {
    const out = await new Deno.Command("git", { args: ["rev-parse", "HEAD"], cwd: ROOT, stderr: "null" })
      .output();
    const sha = new TextDecoder().decode(out.stdout).trim();
    return out.success && /^[0-9a-f]{40}$/.test(sha) ? sha : "";
  } catch {
    return "";
  }
}

function parseArgs(argv: string[]): CompileOptions {
  const options = { ...DEFAULT_COMPILE_OPTIONS };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split("=", 2);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`keel compile: ${name} needs a value`);
    if (name === "--output") options.output = value;
    else if (name === "--target") options.target = value;
    else throw new Error(`keel compile: unknown argument ${name} (accepted: --output, --target)`);
  }
  return options;
}

async function main(): Promise<number> {
  const options = parseArgs(Deno.args);
  const denort = Deno.env.get("DENORT_BIN");
  if (denort !== undefined) {
    try {
      if (!(await Deno.stat(denort)).isFile) throw new Error("not a file");
    } catch {
      console.error(
        `keel: DENORT_BIN=${
          JSON.stringify(denort)
        } is not a readable file: set it to a local denort binary ` +
          "of Deno 2.9.6, or unset it to let deno compile download one",
      );
      return 1;
    }
  }
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const args = compileArgs(config, options);
  const buildInfoPath = join(ROOT, "lib/config/build_info.json");
  const committed = await Deno.readTextFile(buildInfoPath);
  const commit = await gitHead();
  let result: Deno.CommandOutput;
  await Deno.writeTextFile(buildInfoPath, JSON.stringify({ commit }) + "\n");
  try {
    console.error(`keel: deno ${args.join(" ")}`);
    // DENORT_BIN (when set) reaches deno through the inherited environment.
    result = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT, stdout: "inherit", stderr: "piped" })
      .output();
  } finally {
    await Deno.writeTextFile(buildInfoPath, committed);
  }
  const stderr = new TextDecoder().decode(result.stderr);
  await Deno.stderr.write(result.stderr);
  if (!result.success) {
    if (denort === undefined && /denort|base binary/i.test(stderr)) console.error(DENORT_HELP);
    if (denort !== undefined && /overflowed its stack/.test(stderr)) {
      // Measured: with the deno CLI binary given as DENORT_BIN, deno 2.9.6 crashes this way on npm imports.
      console.error(
        `keel: deno compile crashed; check that DENORT_BIN (${denort}) is a denort 2.9.6 runtime`,
      );
    }
    return result.code || 1;
  }
  // A full deno binary given as DENORT_BIN produces an executable that behaves as deno: catch it here.
  const output = resolve(ROOT, options.output);
  if (!options.target) {
    const check = await new Deno.Command(output, { args: ["--version"], stdout: "piped", stderr: "piped" })
      .output();
    const text = new TextDecoder().decode(check.stdout);
    if (!check.success || !text.includes("keel")) {
      console.error(
        `keel: ${options.output} was built but does not run as keel (\`--version\` printed ${
          JSON.stringify(text.trim().slice(0, 80))
        }): DENORT_BIN must be a denort runtime, not the deno CLI.`,
      );
      return 1;
    }
    console.error(`keel: built ${options.output} (${text.trim()})`);
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main());
