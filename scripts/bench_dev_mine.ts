/**
 * Dev-mode block sealing side by side with anvil (issue 3, part 8): the cost of one block on
 * `keel execution --dev` (the L1-info deposit, the system calls, the state root, one sqlite commit) and
 * on anvil 1.7.1 (npm @foundry-rs/anvil, the real binary, `--chain-id 901`), in one run.
 *
 *   deno run -A scripts/bench_dev_mine.ts [--blocks 500] [--rounds 3] [--sends 300] [--on-disk]
 *
 * keel runs as `keel execution --dev` does by default, its chain in memory (anvil's is too); `--on-disk`
 * gives it a `--datadir` (a sqlite file, WAL and checkpoints).
 *
 * Per round and node: `anvil_mine <blocks>` in one request (ms a block), then `--sends` value
 * transfers from one prefunded account sent one after the other with eth_sendTransaction, each
 * awaited to its receipt (ms a transaction: automine, one block each, as a test suite sends). Prints
 * a Markdown table with the medians over the rounds and keel/anvil.
 */
import { parseArgs } from "node:util";
import { ANVIL_VERSION, installNpmTool, startAnvil, startKeelExecution } from "../tests/e2e/helpers/mod.ts";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    blocks: { type: "string", default: "500" },
    rounds: { type: "string", default: "3" },
    sends: { type: "string", default: "300" },
    "on-disk": { type: "boolean", default: false },
  },
});
const BLOCKS = Number(opts.blocks);
const ROUNDS = Number(opts.rounds);
const SENDS = Number(opts.sends);
/** keel's chain in a sqlite file (`--datadir`) instead of in memory, as `keel execution --dev` keeps it by default. */
const ON_DISK = opts["on-disk"] === true;
/** The first account of the test mnemonic (prefunded on both) and the second as recipient. */
const FROM = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = await res.json() as { result?: unknown; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Milliseconds a block of `anvil_mine`, and a transaction sent and awaited to its receipt. */
async function round(url: string): Promise<{ mine: number; send: number }> {
  let t = performance.now();
  await rpc(url, "anvil_mine", [`0x${BLOCKS.toString(16)}`]);
  const mine = (performance.now() - t) / BLOCKS;
  t = performance.now();
  for (let i = 0; i < SENDS; i++) {
    const hash = await rpc(url, "eth_sendTransaction", [{ from: FROM, to: TO, value: "0x1" }]);
    // Automine: the receipt is there once the send returned (both nodes seal before answering).
    let receipt = await rpc(url, "eth_getTransactionReceipt", [hash]);
    while (receipt === null) {
      await new Promise((r) => setTimeout(r, 1));
      receipt = await rpc(url, "eth_getTransactionReceipt", [hash]);
    }
  }
  return { mine, send: (performance.now() - t) / SENDS };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(url: string): Promise<{ mine: number; send: number }> {
  await round(url); // warm-up: code paths compiled, caches filled
  const rounds: { mine: number; send: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round(url));
  return { mine: median(rounds.map((r) => r.mine)), send: median(rounds.map((r) => r.send)) };
}

const keel = await startKeelExecution({ ws: false, readyTimeoutMs: 180_000, inMemory: !ON_DISK });
let keelResult;
try {
  keelResult = await measure(keel.httpUrl);
} finally {
  await keel.stop();
}
const tool = await installNpmTool("@foundry-rs/anvil", ANVIL_VERSION);
if (!tool.ok) throw new Error(`anvil: ${tool.message}`);
const anvil = await startAnvil(tool.binary, ["--chain-id", "901"]);
let anvilResult;
try {
  anvilResult = await measure(anvil.url);
} finally {
  await anvil.stop();
}
const row = (name: string, k: number, a: number) =>
  `| ${name} | ${k.toFixed(2)} | ${a.toFixed(2)} | ${(k / a).toFixed(2)}× |`;
console.log(`\nmedian of ${ROUNDS} rounds after a warm-up; anvil ${ANVIL_VERSION}\n`);
console.log("| ms | keel | anvil | keel/anvil |\n|---|---:|---:|---:|");
console.log(row(`anvil_mine, a block (${BLOCKS} in one request)`, keelResult.mine, anvilResult.mine));
console.log(
  row(
    `eth_sendTransaction + receipt, a transfer (${SENDS} one after the other)`,
    keelResult.send,
    anvilResult.send,
  ),
);
