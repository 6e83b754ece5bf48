/**
 * The composition root end to end: `keel execution --dev`, `keel execution init`, and
 * `keel node` as real processes under the baked permission set, on 127.0.0.1.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { freePort, rpcCall } from "./helpers/keel_process.ts";
import { type KeelProcess, spawnKeel as spawnCommand } from "./helpers/sequencer.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

type Proc = KeelProcess;

/** `keel ...args` (the first argument is the command), in `cwd` (the repository by default). */
function spawnKeel(args: string[], cwd?: string): Proc {
  return spawnCommand(args[0], args.slice(1), cwd);
}

async function waitFor(url: string, method: string, proc: Proc, timeoutMs = 120_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      // deno-lint-ignore no-explicit-any
      const body = await rpcCall(url, method) as any;
      if (body.result !== undefined) return body.result;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer ${method}:\n${proc.output()}`);
}

Deno.test("keel execution --dev serves, stops on SIGTERM, and a restart reopens the same chain", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "keel-roles-" });
  try {
    const port = freePort();
    const args = [
      "execution",
      "--dev",
      `--http.port=${port}`,
      `--authrpc.port=${freePort()}`,
      `--datadir=${dataDir}`,
    ];
    const url = `http://127.0.0.1:${port}`;
    let proc = spawnKeel(args);
    assertEquals(await waitFor(url, "eth_chainId", proc), "0x385");
    // deno-lint-ignore no-explicit-any
    const block0 = ((await rpcCall(url, "eth_getBlockByNumber", ["0x0", false])) as any).result;
    assertMatch(block0.hash, /^0x[0-9a-f]{64}$/);
    assertEquals(await proc.stop(), 0, proc.output());
    // The stop is in the log, as geth's "Got interrupt, shutting down...", and its end.
    assertMatch(proc.output(), /msg="Shutting down" module=node reason=SIGTERM[^]*msg=Stopped module=node/);
    const saved = JSON.parse(await Deno.readTextFile(`${dataDir}/genesis.json`));
    assertEquals(saved.config.chainId, 901);
    const secret = await Deno.stat(`${dataDir}/jwtsecret`);
    assertEquals(secret.mode! & 0o777, 0o600);

    proc = spawnKeel(args);
    await waitFor(url, "eth_chainId", proc);
    // deno-lint-ignore no-explicit-any
    const again = ((await rpcCall(url, "eth_getBlockByNumber", ["0x0", false])) as any).result;
    assertEquals(again.hash, block0.hash);
    assertEquals(await proc.stop(), 0, proc.output());
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("keel execution --dev without --datadir keeps its chain in memory: nothing written, a new chain each start", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "keel-dev-memory-" });
  try {
    const port = freePort();
    const args = ["execution", "--dev", `--http.port=${port}`, `--authrpc.port=${freePort()}`];
    const url = `http://127.0.0.1:${port}`;
    let proc = spawnKeel(args, cwd);
    await waitFor(url, "eth_chainId", proc);
    const from = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
    // deno-lint-ignore no-explicit-any
    const sent = (await rpcCall(url, "eth_sendTransaction", [{ from, to: from, value: "0x1" }])) as any;
    assertMatch(sent.result, /^0x[0-9a-f]{64}$/, JSON.stringify(sent));
    assertEquals(await waitFor(url, "eth_blockNumber", proc), "0x1");
    assertMatch(proc.output(), /chain="in memory/);
    assertEquals(await proc.stop(), 0, proc.output());
    // As geth --dev and anvil: no keel_data, no genesis.json, no jwtsecret.
    assertEquals(await Array.fromAsync(Deno.readDir(cwd)), []);
    proc = spawnKeel(args, cwd);
    assertEquals(await waitFor(url, "eth_blockNumber", proc), "0x0");
    assertEquals(await proc.stop(), 0, proc.output());
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("keel execution init writes the genesis; keel execution then opens the data dir without it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-init-" });
  try {
    const { buildDevGenesis } = await import("../../lib/execution/mod.ts");
    const genesis = buildDevGenesis({ chainId: 4242n, timestamp: 1_700_000_000n });
    await Deno.writeTextFile(`${dir}/genesis.json`, JSON.stringify(genesis));
    const init = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-P=keel",
        `--config=${ROOT}deno.json`,
        `${ROOT}main.ts`,
        "execution",
        "init",
        "--datadir",
        `${dir}/data`,
        `${dir}/genesis.json`,
      ],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(init.stdout);
    assertEquals(init.code, 0, new TextDecoder().decode(init.stderr));
    const hash = /genesis (0x[0-9a-f]{64})/.exec(stdout)?.[1];
    assert(hash, stdout);

    const port = freePort();
    const proc = spawnKeel([
      "execution",
      "--http",
      `--http.port=${port}`,
      `--authrpc.port=${freePort()}`,
      `--datadir=${dir}/data`,
    ]);
    const url = `http://127.0.0.1:${port}`;
    assertEquals(await waitFor(url, "eth_chainId", proc), "0x1092");
    // deno-lint-ignore no-explicit-any
    const block0 = ((await rpcCall(url, "eth_getBlockByNumber", ["0x0", false])) as any).result;
    assertEquals(block0.hash, hash);
    assertEquals(await proc.stop(), 0, proc.output());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("keel node with an external engine serves rollupnode_version and rollupnode_rollupConfig", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-node-" });
  try {
    const port = freePort();
    const proc = spawnKeel([
      "node",
      "--network=op-sepolia",
      "--l2=http://127.0.0.1:9",
      `--l2.jwt-secret=${dir}/jwt.hex`,
      "--rpc.addr=127.0.0.1",
      `--rpc.port=${port}`,
      `--datadir=${dir}/data`,
      "--p2p.priv.path=" + `${dir}/p2p.txt`,
      "--p2p.peerstore.path=memory",
      "--p2p.listen.ip=127.0.0.1",
      `--p2p.listen.tcp=${freePort()}`,
    ]);
    const url = `http://127.0.0.1:${port}`;
    assertMatch(await waitFor(url, "rollupnode_version", proc) as string, /^keel\/v\d+\.\d+\.\d+/);
    // deno-lint-ignore no-explicit-any
    const cfg = ((await rpcCall(url, "rollupnode_rollupConfig")) as any).result;
    assertEquals(cfg.l2_chain_id, 11155420);
    assertEquals(await proc.stop(), 0, proc.output());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("keel node embeds the execution client; its RPC and the node's share one port", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keel-embed-" });
  try {
    const { buildDevGenesis } = await import("../../lib/execution/mod.ts");
    const { getNetworkPreset } = await import("../../networks/mod.ts");
    await Deno.writeTextFile(
      `${dir}/genesis.json`,
      JSON.stringify(buildDevGenesis({ timestamp: 1_700_000_000n })),
    );
    const rollup = getNetworkPreset("op-sepolia").rollupConfigJson as Record<string, unknown>;
    await Deno.writeTextFile(`${dir}/rollup.json`, JSON.stringify({ ...rollup, l2_chain_id: 901 }));
    const port = freePort();
    const proc = spawnKeel([
      "node",
      `--rollup.config=${dir}/rollup.json`,
      `--genesis=${dir}/genesis.json`,
      "--rpc.addr=127.0.0.1",
      `--rpc.port=${port}`,
      "--http",
      `--http.port=${port}`,
      `--authrpc.port=${freePort()}`,
      `--datadir=${dir}/data`,
      `--p2p.priv.path=${dir}/p2p.txt`,
      "--p2p.peerstore.path=memory",
      "--p2p.listen.ip=127.0.0.1",
      `--p2p.listen.tcp=${freePort()}`,
    ]);
    const url = `http://127.0.0.1:${port}`;
    assertMatch(await waitFor(url, "rollupnode_version", proc) as string, /^keel\//);
    assertEquals(await waitFor(url, "eth_chainId", proc), "0x385");
    assertEquals(await proc.stop(), 0, proc.output());

    /** `keel node` that must refuse to start: its exit code and what it said. */
    const refusedStart = async (args: string[]) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-P=keel",
          `--config=${ROOT}deno.json`,
          `${ROOT}main.ts`,
          "node",
          `--genesis=${dir}/genesis.json`,
          `--rpc.port=${freePort()}`,
          `--authrpc.port=${freePort()}`,
          `--p2p.priv.path=${dir}/p2p.txt`,
          "--p2p.peerstore.path=memory",
          "--p2p.listen.ip=127.0.0.1",
          `--p2p.listen.tcp=${freePort()}`,
          ...args,
        ],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assertEquals(out.code, 1, stderr);
      return stderr;
    };
    // The rollup config and the embedded engine must describe the same chain.
    assertMatch(
      await refusedStart(["--network=op-sepolia", `--datadir=${dir}/data2`]),
      /embedded engine's genesis is chain 901, the rollup config is chain 11155420/,
    );
    // Refused at start, each with its reason: Alt-DA on a chain without alt_da, op-node's conductor rule,
    // and a beacon node that does not answer.
    for (
      const [extra, reason] of [
        [
          ["--altda.enabled", "--altda.da-server=http://127.0.0.1:3100"],
          /Cannot start with Alt-DA: --altda.enabled, but the rollup config has no alt_da section/,
        ],
        [["--conductor.enabled"], /--conductor.enabled needs --sequencer.enabled/],
        [["--l1.beacon=http://127.0.0.1:9"], /beacon node.*--l1.beacon.ignore starts anyway/],
      ] as const
    ) {
      assertMatch(
        await refusedStart([`--rollup.config=${dir}/rollup.json`, `--datadir=${dir}/data`, ...extra]),
        reason,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
