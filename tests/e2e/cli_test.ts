/** Runs main.ts as a real process: --version, --help, networks, and bad input (exit 2, one line). */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import denoJson from "../../deno.json" with { type: "json" };

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const ROOT = new URL("../../", import.meta.url).pathname;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The parent's environment without any KEEL_* variable, so only the test's own count. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const base = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([k]) => !k.startsWith("KEEL_")),
  );
  return { ...base, ...extra };
}

async function keel(args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<Run> {
  // The permissions keel runs with: env limited to KEEL_* (and --ignore-env for libraries).
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--config=${ROOT}deno.json`,
      "--allow-read",
      "--allow-write",
      "--allow-env=KEEL_*",
      "--ignore-env",
      MAIN,
      ...args,
    ],
    cwd,
    env: cleanEnv(env),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("keel --version prints keel/v<deno.json version>[-commit]", async () => {
  for (const flag of ["--version", "-v"]) {
    const r = await keel([flag]);
    assertEquals(r.code, 0, r.stderr);
    assertMatch(
      r.stdout.trim(),
      new RegExp(`^keel/v${denoJson.version.replaceAll(".", "\\.")}(-[0-9a-f]{12})?$`),
    );
  }
});

Deno.test("keel node --help shows every area and env vars", async () => {
  const r = await keel(["node", "--help"]);
  assertEquals(r.code, 0, r.stderr);
  for (
    const text of [
      "L1 and L2 connections:",
      "Peer-to-peer:",
      "[$KEEL_L1_ETH_RPC]",
      "--l1.epoch-poll-interval",
    ]
  ) {
    assertStringIncludes(r.stdout, text);
  }
  assertStringIncludes(r.stdout, "(default: 6m24s)");
});

Deno.test("keel networks lists every preset", async () => {
  const r = await keel(["networks"]);
  assertEquals(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split("\n");
  assertMatch(lines[0], /^NAME\s+CHAIN ID\s+L1 CHAIN ID\s+BLOCK TIME/);
  assertEquals(lines.length, 1 + 63);
  const op = lines.find((l) => l.startsWith("op-mainnet "));
  assert(op !== undefined);
  assertMatch(op, /^op-mainnet\s+10\s+1\s+2s/);
});

Deno.test("a bad flag: exit status 2, one line on stderr with a suggestion, nothing on stdout", async () => {
  const r = await keel(["node", "--network=op-mainnet", "--l1.rpckindd=basic"]);
  assertEquals(r.code, 2);
  assertEquals(r.stdout, "");
  const lines = r.stderr.trimEnd().split("\n");
  assertEquals(lines.length, 1, r.stderr);
  assertStringIncludes(lines[0], "--l1.rpckindd");
  assertStringIncludes(lines[0], "did you mean --l1.rpckind (env KEEL_L1_RPC_KIND)");
});

Deno.test("a bad environment value, a missing required option, a conflict: exit 2, one line", async () => {
  const bad = await keel(["node", "--network=op-mainnet"], { KEEL_L1_EPOCH_POLL_INTERVAL: "soon" });
  assertEquals(bad.code, 2);
  assertEquals(
    bad.stderr.trimEnd(),
    'keel: invalid value "soon" in KEEL_L1_EPOCH_POLL_INTERVAL (flag --l1.epoch-poll-interval): ' +
      "expected a duration such as 6m24s, 1h0m0s, 500ms or 0",
  );
  const missing = await keel(["node"]);
  assertEquals(missing.code, 2);
  assertEquals(missing.stderr.trimEnd().split("\n").length, 1);
  assertStringIncludes(missing.stderr, "--network (env KEEL_NETWORK) or --rollup.config");
  const both = await keel(["node", "--rollup.config=r.json"], { KEEL_NETWORK: "base-mainnet" });
  assertEquals(both.code, 2);
  assertStringIncludes(both.stderr, "exclude each other");
});

Deno.test("bad input starts nothing and writes nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel_cli_" });
  try {
    const r = await keel(
      ["node", "--network=op-mainnet", "--datadir=data", "--l2.jwt-secret=jwt.hex", "--rpc.port=99999"],
      {},
      dir,
    );
    assertEquals(r.code, 2, r.stderr);
    assertStringIncludes(r.stderr, "--rpc.port (env KEEL_RPC_PORT)");
    const left = [];
    for await (const entry of Deno.readDir(dir)) left.push(entry.name);
    assertEquals(left, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a data dir that is a file: one line naming it, and the file left as it was", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel_cli_" });
  try {
    await Deno.writeTextFile(`${dir}/data`, "mine");
    const r = await keel(["execution", "--datadir=data"], {}, dir);
    assertEquals(r.code, 1, r.stderr);
    assertEquals(
      r.stderr.trimEnd().split("\n").filter((l) => !l.startsWith("Warning")).join("\n"),
      `keel: Cannot use ${await Deno.realPath(
        dir,
      )}/data as the data directory: it, or a folder above it, is a file and not a directory`,
    );
    assertEquals(await Deno.readTextFile(`${dir}/data`), "mine");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
