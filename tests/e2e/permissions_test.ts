/**
 * Runs keel under exactly the permission set the binary bakes in (deno.json "permissions.keel",
 * turned into flags by the same function scripts/compile.ts uses) as real subprocesses.
 */
import { compileArgs } from "../../scripts/compile.ts";
import {
  KEEL_RUNTIME_FLAGS,
  permissionSetFromConfig,
  permissionSetToFlags,
} from "../../lib/node/permissions.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";

const ROOT = new URL("../../", import.meta.url);
const CONFIG = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
/** The baked set as flags, plus what the binary adds; `--no-prompt` as a compiled binary never prompts. */
const BAKED_FLAGS = [
  ...permissionSetToFlags(permissionSetFromConfig(CONFIG)),
  ...KEEL_RUNTIME_FLAGS,
  "--no-prompt",
];
const MAIN = new URL("main.ts", ROOT);
const HAS_MAIN = await Deno.stat(MAIN).then(() => true, () => false);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function runUnderBakedSet(script: string | URL, args: string[], flags = BAKED_FLAGS): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, script instanceof URL ? script.pathname : script, ...args],
    cwd: ROOT.pathname,
    env: { KEEL_X: "from-env", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("the baked set: no subprocesses, no FFI, env KEEL_* with --ignore-env, unscoped net and sys", () => {
  assertEquals(BAKED_FLAGS, [
    "--allow-read",
    "--allow-write",
    "--allow-net",
    "--allow-env=KEEL_*",
    "--ignore-env",
    "--allow-sys",
    "--deny-run",
    "--deny-ffi",
    "--unstable-worker-options",
    "--v8-flags=--max-semi-space-size=4,--heap-growing-percent=25",
    "--no-prompt",
  ]);
  // scripts/compile.ts bakes exactly these flags (one source: deno.json).
  const args = compileArgs(CONFIG);
  assertEquals(args.slice(1, 1 + BAKED_FLAGS.length - 1), BAKED_FLAGS.slice(0, -1));
  assertEquals(args.slice(-3), ["--output", "dist/keel", "main.ts"]);
});

/** main.ts invocations that must start and finish under the baked set. One case, one entry. */
const MAIN_CASES: { name: string; args: string[]; stdout: RegExp }[] = [
  { name: "--version", args: ["--version"], stdout: /^keel\/v\d+\.\d+\.\d+/ },
  { name: "networks", args: ["networks"], stdout: /op-mainnet/i },
];

for (const c of MAIN_CASES) {
  Deno.test({
    name: `main.ts ${c.name} runs under the baked set`,
    ignore: !HAS_MAIN,
    async fn() {
      const run = await runUnderBakedSet(MAIN, c.args);
      assertEquals(run.code, 0, run.stderr);
      assertMatch(run.stdout, c.stdout);
      assert(!/NotCapable|PermissionDenied/.test(run.stderr), run.stderr);
    },
  });
}

Deno.test("env, subprocess and a write outside the node's paths are refused, with a clear message", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-perm-" });
  const outside = `${dir}-outside.txt`;
  try {
    const run = await runUnderBakedSet(
      new URL("e2e/fixtures/permission_probe.ts", new URL("../", import.meta.url)),
      [
        `${dir}/data`,
        outside,
      ],
    );
    assertEquals(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    // HOME reads as absent (--ignore-env), KEEL_* is readable, nothing else is visible.
    assertEquals(result.home, "ok:undefined");
    assertEquals(result.keelX, "ok:from-env");
    assertEquals(result.envKeys, ["KEEL_X"]);
    assertEquals(result.run, "NotCapable");
    // debug/prom-client/LogTape load under the set, and process metrics are real.
    assert(Number(result.rss) > 0, `rss ${result.rss}`);
    // The node Worker writes its data dir and nothing else.
    assertEquals(result.worker.inside, "ok");
    assertEquals(result.worker.errorName, "NotCapable");
    assertEquals(result.worker.run, "NotCapable");
    assertEquals(result.worker.home, "absent");
    assert(result.worker.cpuProfileNodes > 0, "a CPU profile was taken in the node Worker");
    const realDir = await Deno.realPath(`${dir}/data`);
    assertEquals(
      result.worker.formatted,
      `keel: cannot write ${outside}: outside the allowed paths (${realDir})`,
    );
    assertStringIncludes(result.workerMessage, "outside the allowed paths");
    assertEquals(await Deno.readTextFile(`${realDir}/inside.txt`), "ok");
    assertEquals(await Deno.stat(outside).then(() => "exists", () => "absent"), "absent");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task's -P=keel loads the same set from deno.json", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-perm-p-" });
  try {
    const run = await runUnderBakedSet(
      new URL("e2e/fixtures/permission_probe.ts", new URL("../", import.meta.url)),
      [`${dir}/data`, `${dir}-outside.txt`],
      [`-P=keel`, ...KEEL_RUNTIME_FLAGS, "--no-prompt"],
    );
    assertEquals(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assertEquals([result.home, result.keelX, result.run], ["ok:undefined", "ok:from-env", "NotCapable"]);
    assertEquals(result.worker.errorName, "NotCapable");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task compile refuses a DENORT_BIN that is not a file, and leaves build_info.json alone", async () => {
  const buildInfo = new URL("lib/config/build_info.json", ROOT);
  const before = await Deno.readTextFile(buildInfo);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("scripts/compile.ts", ROOT).pathname],
    cwd: ROOT.pathname,
    env: { DENORT_BIN: "/nonexistent/denort" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 1);
  assertStringIncludes(
    new TextDecoder().decode(out.stderr),
    'DENORT_BIN="/nonexistent/denort" is not a readable file',
  );
  assertEquals(await Deno.readTextFile(buildInfo), before);
});
