/**
 * A sequencing `keel node` process on anvil as L1, for the e2e tests of the node and of `keel batcher`:
 * the L2 genesis and rollup.json written to a folder, the node's arguments, processes of any keel
 * command with their output kept, and polling until a condition holds.
 */
import { JsonRpcClient } from "../../../lib/common/json_rpc_client.ts";
import { ExecutionEngine } from "../../../lib/execution/engine/mod.ts";
import { buildDevGenesis } from "../../../lib/execution/genesis/dev_genesis.ts";
import { rollupConfigToJson } from "../../../lib/protocol/rollup_config_json.ts";
import type { RollupConfig } from "../../../lib/protocol/rollup_config.ts";
import { L1Client } from "../../../lib/rollup/l1/mod.ts";
import { freePort } from "./keel_process.ts";
import { anvilRollupConfig, BATCHER } from "./op_chain.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

export interface KeelProcess {
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number>;
  /** Its exit code, once it exits by itself or is stopped. */
  readonly exited: Promise<number>;
}

/** `keel <command> ...args` under the binary's permission set. */
export function spawnKeel(command: string, args: string[], cwd = ROOT): KeelProcess {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-P=keel", `--config=${ROOT}deno.json`, `${ROOT}main.ts`, command, ...args],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  let out = "";
  const dec = new TextDecoder();
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s) out += dec.decode(chunk, { stream: true });
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  return {
    output: () => out,
    exited: child.status.then(async ({ code }) => {
      await pumps;
      return code;
    }),
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // exited
      }
      const { code } = await child.status;
      await pumps;
      return code;
    },
  };
}

/** Polls `fn` every 200 ms until it gives a value; throws with `out()` after `ms`. */
export async function until<T>(
  fn: () => Promise<T | undefined>,
  what: string,
  out: () => string,
  ms = 60_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}\n${out()}`);
}

/**
 * Writes `dir`/genesis.json and `dir`/rollup.json for an L2 (chain 901, Isthmus from genesis, batcher
 * BATCHER, inbox INBOX; `overrides` change single fields) on the L1 at `l1Url`, and returns the
 * arguments of a sequencing `keel node` serving its RPC on `port`.
 */
export async function sequencerOnAnvil(
  l1Url: string,
  dir: string,
  port: number,
  overrides: Partial<RollupConfig> = {},
): Promise<string[]> {
  const l1 = new L1Client(new JsonRpcClient(l1Url));
  const l1Genesis = await l1.blockRef(0n);
  const genesisJson = buildDevGenesis({ upTo: "isthmus", timestamp: l1Genesis.timestamp, batcher: BATCHER });
  const engine = await ExecutionEngine.open({ genesis: genesisJson });
  const l2Genesis = engine.head().hash;
  await engine.close();
  const cfg = anvilRollupConfig(l1Genesis, l2Genesis, 31337n, overrides);
  await Deno.writeTextFile(`${dir}/genesis.json`, JSON.stringify(genesisJson));
  await Deno.writeTextFile(`${dir}/rollup.json`, JSON.stringify(rollupConfigToJson(cfg)));
  return [
    `--rollup.config=${dir}/rollup.json`,
    `--genesis=${dir}/genesis.json`,
    `--l1=${l1Url}`,
    "--l1.http-poll-interval=200ms",
    "--sequencer.enabled",
    "--sequencer.l1-confs=0",
    "--rpc.addr=127.0.0.1",
    `--rpc.port=${port}`,
    "--http",
    `--http.port=${port}`,
    `--authrpc.port=${freePort()}`,
    `--datadir=${dir}/data`,
    `--p2p.priv.path=${dir}/p2p.txt`,
    "--p2p.peerstore.path=memory",
    "--p2p.listen.ip=127.0.0.1",
    "--p2p.listen.tcp=0",
  ];
}
