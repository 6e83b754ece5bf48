/**
 * Benchmark of the JSON-RPC core alone: a trivial `eth_blockNumber` (and a 100-call
 * `eth_getBalance` batch) through RpcServer, measured from a separate client process with
 * keep-alive fetch at concurrency 32.
 *
 *   deno run -A scripts/bench_rpc_core.ts [--seconds 5] [--concurrency 32]
 *   deno run -A scripts/bench_rpc_core.ts --serve [--port N]  # only the server; prints its URL
 *   deno run -A scripts/bench_rpc_core.ts --client URL     # only the client
 *
 * Prints req/s with p50/p99 latency per scenario. Not a test: figures vary ±30–50% on a shared
 * machine.
 */
import { defineMethod, MethodRegistry, RpcServer, s } from "../lib/rpc/mod.ts";
import { DEFAULT_RPC_LIMITS } from "../lib/rpc/mod.ts";

function arg(name: string, fallback: string): string {
  const i = Deno.args.indexOf(name);
  return i >= 0 && i + 1 < Deno.args.length ? Deno.args[i + 1] : fallback;
}

async function serve(): Promise<void> {
  // Fixed answers: enough for the shared harness (../shared/bench/rpc-bench.mjs --scenarios a,g)
  // to run its setup against this server too.
  const registry = new MethodRegistry([{
    blockNumber: defineMethod({ name: "eth_blockNumber", params: [], handler: () => "0x1234" }),
    chainId: defineMethod({ name: "eth_chainId", params: [], handler: () => "0x385" }),
    gasPrice: defineMethod({ name: "eth_gasPrice", params: [], handler: () => "0x3b9aca00" }),
    tip: defineMethod({ name: "eth_maxPriorityFeePerGas", params: [], handler: () => "0x1" }),
    getBalance: defineMethod({
      name: "eth_getBalance",
      params: [s.address(), s.blockTag()],
      handler: ([address]) => (address[19] === 0 ? "0x0" : "0x21e19e0c9bab2400000"),
    }),
    nonce: defineMethod({
      name: "eth_getTransactionCount",
      params: [s.address(), s.blockTag()],
      handler: () => "0x0",
    }),
    block: defineMethod({
      name: "eth_getBlockByNumber",
      params: [s.blockTag(), s.bool()],
      handler: () => ({ number: "0x1234", baseFeePerGas: "0x1" }),
    }),
  }, {
    clientVersion: defineMethod({
      name: "web3_clientVersion",
      params: [],
      handler: () => "keel-rpc-core-bench",
    }),
  }]);
  const server = new RpcServer({
    endpoints: [{
      name: "http",
      addr: "127.0.0.1",
      port: Number(arg("--port", "0")),
      http: true,
      ws: false,
      namespaces: ["eth", "web3"],
      corsDomains: [],
      vhosts: ["localhost"],
    }],
    limits: DEFAULT_RPC_LIMITS,
    version: "bench",
  }, { registry });
  await server.start();
  console.log(server.url("http"));
  // Runs until the parent kills it.
  await new Promise(() => {});
}

interface Result {
  scenario: string;
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(
  url: string,
  scenario: string,
  body: string,
  check: (text: string) => boolean,
): Promise<Result> {
  const seconds = Number(arg("--seconds", "5"));
  const concurrency = Number(arg("--concurrency", "32"));
  const warmupEnd = performance.now() + 1000;
  const end = warmupEnd + seconds * 1000;
  const latencies: number[] = [];
  let errors = 0;
  const headers = { "content-type": "application/json" };
  const worker = async () => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= end) return;
      const res = await fetch(url, { method: "POST", headers, body });
      const text = await res.text();
      const t1 = performance.now();
      if (!res.ok || !check(text)) errors++;
      if (t0 >= warmupEnd) latencies.push(t1 - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return {
    scenario,
    requests: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50: q(0.5),
    p99: q(0.99),
    errors,
  };
}

async function client(url: string): Promise<Result[]> {
  const blockNumber = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] });
  const batch = JSON.stringify(
    Array.from({ length: 100 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "eth_getBalance",
      params: [`0x${i.toString(16).padStart(40, "0")}`, "latest"],
    })),
  );
  return [
    await load(url, "eth_blockNumber", blockNumber, (t) => t.includes('"result":"0x1234"')),
    await load(url, "batch x100 eth_getBalance", batch, (t) => (JSON.parse(t) as unknown[]).length === 100),
  ];
}

function print(results: Result[]): void {
  for (const r of results) {
    console.log(
      `${r.scenario.padEnd(28)} ${r.perSecond.toFixed(0).padStart(7)} req/s  p50 ${
        r.p50.toFixed(2)
      } ms  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}`,
    );
  }
}

if (Deno.args.includes("--serve")) {
  await serve();
} else if (Deno.args.includes("--client")) {
  print(await client(arg("--client", "")));
} else {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--serve"],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("server exited before printing its URL");
    line += value;
  }
  const url = line.trim();
  try {
    print(await client(url));
  } finally {
    child.kill("SIGTERM");
    await child.status;
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
  }
}
