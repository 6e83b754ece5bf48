/**
 * CPU profile of `keel execution --dev` while ../shared/bench's harness sends value and token
 * transfers (scenarios d and e, the dev-mode send path: HTTP, the pool's admission, automine).
 *
 *   deno run -A --v8-flags=--max-semi-space-size=4,--heap-growing-percent=25 scripts/profile_dev_sends.ts \
 *     [--out FILE.cpuprofile] [--scenarios d,e] [--transfers 2000]
 *
 * Runs the execution role in this process (on a temp data dir, a free port) with node:inspector's
 * profiler on, the harness with Node as a child process (prepared by scripts/bench_rpc.ts: run that
 * once first), and writes the profile (Chrome DevTools opens it) and the harness's table.
 */
import { Session } from "node:inspector/promises";
import { parseArgs as parseFlags } from "node:util";
import { parseArgs } from "../lib/config/mod.ts";
import { startExecutionRole } from "../lib/node/execution_role.ts";
import { freePort } from "../tests/e2e/helpers/mod.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const { values: opts } = parseFlags({
  args: Deno.args,
  options: {
    out: { type: "string", default: "dev_sends.cpuprofile" },
    scenarios: { type: "string", default: "d,e" },
    transfers: { type: "string", default: "2000" },
  },
});
const harness = `${ROOT}node_modules/.cache/keel-bench/rpc-bench/rpc-bench.mjs`;
try {
  await Deno.stat(harness);
} catch {
  throw new Error(`${harness} is missing: run scripts/bench_rpc.ts once (it installs the harness)`);
}

const dataDir = await Deno.makeTempDir({ prefix: "keel-profile-dev-" });
const port = freePort();
const parsed = parseArgs([
  "execution",
  "--dev",
  "--http",
  "--http.addr=127.0.0.1",
  `--http.port=${port}`,
  `--authrpc.port=${freePort()}`,
  `--datadir=${dataDir}`,
  "--log.level=warn",
], {});
if (parsed.command !== "execution") throw new Error("unexpected command");
const role = await startExecutionRole(parsed.options, parsed.sources);
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 200 });
await session.post("Profiler.start");
try {
  const out = await new Deno.Command("node", {
    args: [
      harness,
      "--url",
      `http://127.0.0.1:${port}`,
      "--scenarios",
      opts.scenarios,
      "--transfers",
      opts.transfers,
      "--quiet",
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`the harness failed (exit ${out.code})`);
} finally {
  const { profile } = await session.post("Profiler.stop");
  await Deno.writeTextFile(opts.out, JSON.stringify(profile));
  session.disconnect();
  await role.stop();
  await Deno.remove(dataDir, { recursive: true });
}
console.log(`profile written to ${opts.out}`);
