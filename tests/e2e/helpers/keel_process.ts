/**
 * Starts a real `keel execution --dev` process (main.ts under the `keel` permission set) on free
 * 127.0.0.1 ports with a throw-away data dir, waits until its HTTP JSON-RPC answers, and stops it.
 */
import { KEEL_V8_FLAGS } from "../../../lib/node/permissions.ts";
import { jwtAuthorizationHeader } from "../../../lib/rpc/mod.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

/** The `--dev` chain's funded account 0 (test mnemonic), as anvil and hardhat have it. */
export const DEV_PRIVATE_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
export const DEV_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
/** Account 1 of the test mnemonic (a plain recipient). */
export const DEV_ADDRESS_1 = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
/** `--networkid` default of the dev chain. */
export const DEV_CHAIN_ID = 901;

/** Ports freePort handed out in this process: the kernel may offer a closed port again at once. */
const HANDED_OUT = new Set<number>();

/**
 * A port that was free a moment ago on 127.0.0.1, and not handed out before by this process (a
 * devnet test took the same port twice in a row for its L1 and its p2p listener, and failed with
 * EADDRINUSE).
 */
export function freePort(): number {
  for (;;) {
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (l.addr as Deno.NetAddr).port;
    l.close();
    if (HANDED_OUT.has(port)) continue;
    HANDED_OUT.add(port);
    return port;
  }
}

export interface KeelNode {
  readonly httpUrl: string;
  readonly wsUrl: string;
  /** The Engine API (JWT). */
  readonly authUrl: string;
  readonly pid: number;
  readonly dataDir: string;
  /** What the process printed so far (stdout and stderr, last 64 KiB). */
  output(): string;
  /** SIGTERM, wait for exit (SIGKILL after 10 s), remove the data dir. Idempotent. */
  stop(): Promise<void>;
}

export interface StartKeelOptions {
  /** Start with `--dev` (default true); without it, pass the genesis in `args`. */
  dev?: boolean;
  /** Serve WebSocket JSON-RPC too (default true). */
  ws?: boolean;
  /** With `--dev`: no `--datadir`, so the chain lives in memory, as `keel execution --dev` runs by default. */
  inMemory?: boolean;
  /** More flags, e.g. `--http.api=eth,net,web3,debug`. */
  args?: string[];
  /** Run on this data dir (a restart), which stop() then leaves in place; default: a new temp dir, removed. */
  dataDir?: string;
  /** How long to wait for the first answer (default 120 s: the first run type-checks nothing but loads npm modules). */
  readyTimeoutMs?: number;
}

/** POST one JSON-RPC request; returns the parsed body. */
export async function rpcCall(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return await res.json();
}

/** POST one JSON-RPC request; returns its result, or throws with the method and the error object. */
// deno-lint-ignore no-explicit-any
export async function rpcResult(url: string, method: string, params: unknown[] = []): Promise<any> {
  const body = await rpcCall(url, method, params) as { result?: unknown; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

/** One Engine API request to `url` with a fresh HS256 JWT of `secret`; its result, or throws with the error. */
export async function engineCall(
  url: string,
  secret: Uint8Array,
  method: string,
  params: unknown[],
): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: await jwtAuthorizationHeader(secret, Math.floor(Date.now() / 1000)),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = await res.json() as { result?: unknown; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function pump(stream: ReadableStream<Uint8Array>, sink: (text: string) => void): Promise<void> {
  const dec = new TextDecoder();
  for await (const chunk of stream) sink(dec.decode(chunk, { stream: true }));
}

/**
 * Starts `keel execution --dev --http [--ws]` (or without `--dev`) on a new temp data dir and resolves
 * once eth_chainId answers over HTTP.
 */
export async function startKeelExecution(options: StartKeelOptions = {}): Promise<KeelNode> {
  const ws = options.ws ?? true;
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: "keel-e2e-" });
  const httpPort = freePort();
  const wsPort = ws ? freePort() : 0;
  const authPort = freePort();
  const args = [
    "run",
    "-P=keel",
    KEEL_V8_FLAGS,
    `--config=${ROOT}deno.json`,
    `${ROOT}main.ts`,
    "execution",
    ...(options.dev === false ? [] : ["--dev"]),
    "--http",
    "--http.addr=127.0.0.1",
    `--http.port=${httpPort}`,
    `--authrpc.port=${authPort}`,
    ...(options.inMemory === true ? [] : [`--datadir=${dataDir}`]),
    ...(ws ? ["--ws", "--ws.addr=127.0.0.1", `--ws.port=${wsPort}`] : []),
    ...(options.args ?? []),
  ];
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  const sink = (text: string) => {
    out += text;
    if (out.length > 65_536) out = out.slice(-65_536);
  };
  const pumps = Promise.all([pump(child.stdout, sink), pump(child.stderr, sink)]).catch(() => {});
  let exited: Deno.CommandStatus | undefined;
  const status = child.status.then((s) => (exited = s));
  let stopping: Promise<void> | undefined;
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  const node: KeelNode = {
    httpUrl,
    wsUrl: `ws://127.0.0.1:${wsPort}`,
    authUrl: `http://127.0.0.1:${authPort}`,
    pid: child.pid,
    dataDir,
    output: () => out,
    stop() {
      stopping ??= (async () => {
        if (exited === undefined) {
          try {
            child.kill("SIGTERM");
          } catch {
            // already gone
          }
          const timer = setTimeout(() => {
            try {
              child.kill("SIGKILL");
            } catch {
              // already gone
            }
          }, 10_000);
          await status;
          clearTimeout(timer);
        }
        await pumps;
        if (options.dataDir === undefined) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
      })();
      return stopping;
    },
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  while (true) {
    if (exited !== undefined) {
      await node.stop();
      throw new Error(`keel execution exited with code ${exited.code} before answering:\n${out}`);
    }
    try {
      const body = await rpcCall(httpUrl, "eth_chainId") as { result?: string };
      if (typeof body.result === "string") break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await node.stop();
      throw new Error(`keel execution --dev did not answer on ${httpUrl} within the timeout:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return node;
}

/** eth_sendTransaction of `tx` (the node signs it) and its receipt once mined. */
// deno-lint-ignore no-explicit-any
export async function sendAndWait(url: string, tx: Record<string, string>): Promise<any> {
  const hash = await rpcResult(url, "eth_sendTransaction", [tx]);
  for (let i = 0; i < 400; i++) {
    const receipt = await rpcResult(url, "eth_getTransactionReceipt", [hash]);
    if (receipt !== null) return receipt;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`transaction ${hash} was not mined within 10 s`);
}
