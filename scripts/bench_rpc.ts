/**
 * Side-by-side JSON-RPC benchmark (issue 4, "Benchmark"): runs ../shared/bench/rpc-bench.mjs with
 * Node against a fresh `keel execution --dev` and a fresh anvil (npm @foundry-rs/anvil, the real
 * binary) in the same run with the same settings, then prints a Markdown table of keel vs anvil
 * per scenario with the ratio and the target, and keel's peak RSS.
 *
 * Usage: deno run -A scripts/bench_rpc.ts [--seconds 5] [--concurrency 32] [--transfers 2000]
 *   [--token-transfers 1000] [--settle 5] [--bench-dir ../shared/bench] [--out DIR] [--only keel|anvil]
 *   [--scenarios a,b,...] (a subset of the harness's scenarios a-g)
 *
 * The harness folder is copied to node_modules/.cache/keel-bench/rpc-bench and `npm install`ed
 * there (its README: shared/ is read-only); anvil is installed into node_modules/.cache/keel-e2e.
 */
import { parseArgs } from "node:util";
import { DEV_CHAIN_ID, freePort, installNpmTool, startKeelExecution } from "../tests/e2e/helpers/mod.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const ANVIL_VERSION = "1.7.1";
const MNEMONIC = "test test test test test test test test test test test junk";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "5" },
    concurrency: { type: "string", default: "32" },
    transfers: { type: "string", default: "2000" },
    "token-transfers": { type: "string", default: "1000" },
    settle: { type: "string", default: "5" },
    "bench-dir": { type: "string", default: `${ROOT}../shared/bench` },
    out: { type: "string" },
    only: { type: "string" },
    scenarios: { type: "string" },
  },
});

interface Scenario {
  rate?: number;
  minedTxPerSec?: number;
  sentTxPerSec?: number;
  txsPerBlock?: number;
  errors?: number;
  serverCpuMsPerRequest?: number;
  serverCpuMsPerTx?: number;
  latencyMs?: { p50: number; p99: number };
}

interface BenchResult {
  node: { clientVersion: string };
  scenarios: Record<string, Scenario>;
  server?: { peakRssMiB: number; rssAtEndKiB: number };
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  const status = await new Deno.Command(cmd, { args, cwd, stdout: "inherit", stderr: "inherit" }).spawn()
    .status;
  if (!status.success) throw new Error(`${cmd} ${args.join(" ")} failed with exit code ${status.code}`);
}

/** Copies the harness (rpc-bench.mjs, package.json, lock) to a cache dir and installs viem there once. */
async function prepareHarness(): Promise<string> {
  const src = opts["bench-dir"]!;
  const dir = `${ROOT}node_modules/.cache/keel-bench/rpc-bench`;
  await Deno.mkdir(dir, { recursive: true });
  for (const f of ["rpc-bench.mjs", "package.json", "package-lock.json"]) {
    await Deno.copyFile(`${src}/${f}`, `${dir}/${f}`);
  }
  try {
    await Deno.stat(`${dir}/node_modules/viem/package.json`);
  } catch {
    await run("npm", ["install", "--no-audit", "--no-fund"], dir);
  }
  return dir;
}

async function harness(
  dir: string,
  url: string,
  pid: number,
  label: string,
  outFile: string,
): Promise<BenchResult> {
  await run("node", [
    "rpc-bench.mjs",
    "--url",
    url,
    "--seconds",
    opts.seconds!,
    "--concurrency",
    opts.concurrency!,
    "--transfers",
    opts.transfers!,
    "--token-transfers",
    opts["token-transfers"]!,
    "--settle",
    opts.settle!,
    "--pid",
    String(pid),
    "--label",
    label,
    "--out",
    outFile,
    "--deadline",
    "850",
    ...(opts.scenarios === undefined ? [] : ["--scenarios", opts.scenarios]),
  ], dir);
  return JSON.parse(await Deno.readTextFile(outFile));
}

async function benchKeel(dir: string, outDir: string): Promise<BenchResult> {
  const node = await startKeelExecution({ ws: false, readyTimeoutMs: 180_000 });
  try {
    console.error(`keel execution --dev answering on ${node.httpUrl} (pid ${node.pid})`);
    return await harness(dir, node.httpUrl, node.pid, "keel", `${outDir}/keel.json`);
  } finally {
    await node.stop();
  }
}

async function benchAnvil(dir: string, outDir: string): Promise<BenchResult> {
  const tool = await installNpmTool("@foundry-rs/anvil", ANVIL_VERSION);
  if (!tool.ok) throw new Error(tool.message);
  const port = freePort();
  const child = new Deno.Command(tool.binary, {
    args: [
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--chain-id",
      String(DEV_CHAIN_ID),
      "--mnemonic",
      MNEMONIC,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0;; i++) {
      try {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
        });
        await res.body?.cancel();
        if (res.ok) break;
      } catch {
        if (i > 300) throw new Error("anvil did not answer within 60 s");
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    console.error(`anvil ${ANVIL_VERSION} answering on ${url} (pid ${child.pid})`);
    return await harness(dir, url, child.pid, "anvil", `${outDir}/anvil.json`);
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

const ROWS: { key: string; label: string; metric: (s: Scenario) => number | undefined; target?: number }[] = [
  { key: "a", label: "a eth_blockNumber req/s", metric: (s) => s.rate, target: 0.8 },
  { key: "b", label: "b eth_getBalance req/s", metric: (s) => s.rate, target: 0.7 },
  { key: "c", label: "c eth_call balanceOf req/s", metric: (s) => s.rate, target: 0.5 },
  { key: "d", label: "d transfers mined tx/s", metric: (s) => s.minedTxPerSec },
  { key: "d", label: "d transfers sent tx/s", metric: (s) => s.sentTxPerSec },
  { key: "e", label: "e token transfers mined tx/s", metric: (s) => s.minedTxPerSec },
  { key: "f", label: "f eth_getLogs req/s", metric: (s) => s.rate, target: 0.5 },
  { key: "g", label: "g batch x100 getBalance batch/s", metric: (s) => s.rate, target: 0.3 },
];

/** Hardhat's mined transfer rate on this machine (shared/bench/README.md, pass B). */
const HARDHAT_MINED_TX_PER_S = 1100;
const RSS_TARGET_MIB = 300;

function fmt(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return "–";
  return n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(1);
}

/** The Markdown table: one row per scenario, keel, anvil, keel/anvil and the target. */
export function table(keel?: BenchResult, anvil?: BenchResult): string {
  const lines = [
    "| scenario | keel | anvil | keel/anvil | target |",
    "|---|---:|---:|---:|---|",
  ];
  for (const row of ROWS) {
    const k = keel ? row.metric(keel.scenarios[row.key] ?? {}) : undefined;
    const a = anvil ? row.metric(anvil.scenarios[row.key] ?? {}) : undefined;
    const ratio = k !== undefined && a !== undefined && a > 0 ? k / a : undefined;
    let target = row.target !== undefined ? `≥ ${row.target}×` : "";
    if (row.label === "d transfers mined tx/s") target = `≥ ${HARDHAT_MINED_TX_PER_S} tx/s (Hardhat)`;
    const met = row.target !== undefined && ratio !== undefined
      ? (ratio >= row.target ? " ✅" : " ❌")
      : row.label === "d transfers mined tx/s" && k !== undefined
      ? (k >= HARDHAT_MINED_TX_PER_S ? " ✅" : " ❌")
      : "";
    lines.push(
      `| ${row.label} | ${fmt(k)} | ${fmt(a)} | ${
        ratio === undefined ? "–" : ratio.toFixed(2) + "×"
      } | ${target}${met} |`,
    );
  }
  const tpb = (r?: BenchResult) =>
    fmt(r?.scenarios.d?.txsPerBlock) + " / " + fmt(r?.scenarios.e?.txsPerBlock);
  lines.push(`| d / e tx per block | ${tpb(keel)} | ${tpb(anvil)} | | |`);
  const errs = (r?: BenchResult) =>
    r ? String(Object.values(r.scenarios).reduce((n, s) => n + (s.errors ?? 0), 0)) : "–";
  lines.push(`| errors (all scenarios) | ${errs(keel)} | ${errs(anvil)} | | 0 |`);
  const rss = keel?.server?.peakRssMiB;
  lines.push(
    `| server peak RSS MiB | ${fmt(rss)} | ${fmt(anvil?.server?.peakRssMiB)} | | ≤ ${RSS_TARGET_MIB} MiB${
      rss === undefined ? "" : rss <= RSS_TARGET_MIB ? " ✅" : " ❌"
    } |`,
  );
  const cpu = (r?: BenchResult) =>
    ["a", "b", "c"].map((k) => r?.scenarios[k]?.serverCpuMsPerRequest?.toFixed(3) ?? "–").join(" / ");
  lines.push(`| server CPU ms/req a / b / c | ${cpu(keel)} | ${cpu(anvil)} | | |`);
  const cpuTx = (r?: BenchResult) =>
    ["d", "e"].map((k) => r?.scenarios[k]?.serverCpuMsPerTx?.toFixed(2) ?? "–").join(" / ");
  lines.push(`| server CPU ms/tx d / e | ${cpuTx(keel)} | ${cpuTx(anvil)} | | |`);
  return lines.join("\n");
}

if (import.meta.main) {
  const outDir = opts.out ?? await Deno.makeTempDir({ prefix: "keel-bench-rpc-" });
  await Deno.mkdir(outDir, { recursive: true });
  const dir = await prepareHarness();
  let anvil: BenchResult | undefined;
  let keel: BenchResult | undefined;
  if (opts.only !== "keel") anvil = await benchAnvil(dir, outDir);
  if (opts.only !== "anvil") keel = await benchKeel(dir, outDir);
  console.log(
    `\nrpc-bench: --seconds ${opts.seconds} --concurrency ${opts.concurrency} --transfers ${opts.transfers} ` +
      `--token-transfers ${opts["token-transfers"]} (results in ${outDir})\n`,
  );
  console.log(`keel: ${keel?.node.clientVersion ?? "–"}; anvil: ${anvil?.node.clientVersion ?? "–"}\n`);
  console.log(table(keel, anvil));
}
