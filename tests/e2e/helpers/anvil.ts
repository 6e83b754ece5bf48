/**
 * anvil (npm @foundry-rs/anvil, the real binary) as a foreign L1 on 127.0.0.1: installed into the
 * e2e tool cache on first use, started on a free port, stopped with its process.
 */
import { freePort } from "./keel_process.ts";
import { installNpmTool, type NpmToolResult } from "./npm_tool.ts";

export const ANVIL_VERSION = "1.7.1";

export interface Anvil {
  url: string;
  stop(): Promise<void>;
}

/** Installs anvil; `ok: false` with `registryUnreachable` when the npm registry cannot be reached. */
export function installAnvil(): Promise<NpmToolResult> {
  return installNpmTool("@foundry-rs/anvil", ANVIL_VERSION);
}

/**
 * Installs anvil for the e2e test `test`: throws when the install fails for another reason than an
 * unreachable registry; then warns that the test is skipped (its tests check `ok` to run).
 */
export async function anvilForTest(test: string): Promise<NpmToolResult> {
  const tool = await installAnvil();
  if (!tool.ok && !tool.registryUnreachable) throw new Error(tool.message);
  if (!tool.ok) console.warn(`${test}: skipped, the npm registry is unreachable: ${tool.message}`);
  return tool;
}

/** A JSON-RPC answer as the e2e tests read it. */
// deno-lint-ignore no-explicit-any
export type RpcAnswer = { result?: any; error?: { code: number; message: string } };

/** Starts anvil with `args` (e.g. ["--hardfork", "prague"]) and waits until it answers. */
export async function startAnvil(binary: string, args: string[] = []): Promise<Anvil> {
  const port = freePort();
  const child = new Deno.Command(binary, {
    args: ["--host", "127.0.0.1", "--port", String(port), ...args],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    await child.status;
  };
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
      if (i > 300) {
        await stop();
        throw new Error("anvil did not answer within 60 s");
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, stop };
}

/** The receipt of `txHash` once mined (anvil may answer eth_sendRawTransaction before it mined). */
export async function waitForReceipt(
  rpc: { call<T>(method: string, params?: unknown[]): Promise<T> },
  txHash: string,
): Promise<{ blockHash: string; status: string }> {
  for (let i = 0; i < 400; i++) {
    const r = await rpc.call<{ blockHash: string; status: string } | null>("eth_getTransactionReceipt", [
      txHash,
    ]);
    if (r !== null) return r;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`transaction ${txHash} was not mined within 10 s`);
}
