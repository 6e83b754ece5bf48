import { assertEquals, assertMatch } from "../../../assert.ts";
import { DEFAULT_RPC_LIMITS, MethodRegistry, RpcServer } from "../../../../lib/rpc/mod.ts";
import { rollupnodeNamespace } from "../../../../lib/rollup/rpc/mod.ts";
import { rollupConfigFromPreset } from "../../../../lib/protocol/mod.ts";
import { getNetworkPreset } from "../../../../networks/mod.ts";
import { keelVersion } from "../../../../lib/config/mod.ts";

async function withServer(fn: (url: string) => Promise<void>) {
  const rollupConfig = rollupConfigFromPreset(getNetworkPreset("op-mainnet"));
  const registry = new MethodRegistry([rollupnodeNamespace({ version: keelVersion(), rollupConfig })]);
  const server = new RpcServer({
    endpoints: [{
      name: "rpc",
      addr: "127.0.0.1",
      port: 0,
      http: true,
      ws: false,
      namespaces: ["rollupnode"],
      corsDomains: [],
      vhosts: ["*"],
    }],
    limits: DEFAULT_RPC_LIMITS,
    version: keelVersion(),
  }, { registry });
  await server.start();
  try {
    await fn(server.url("rpc"));
  } finally {
    await server.stop();
  }
}

async function call(url: string, method: string): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: [] }),
  });
  const body = await res.json();
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

Deno.test("rollupnode_version returns the --version string", async () => {
  await withServer(async (url) => {
    const version = await call(url, "rollupnode_version");
    assertEquals(version, keelVersion());
    assertMatch(version as string, /^keel\/v\d+\.\d+\.\d+/);
  });
});

Deno.test("rollupnode_rollupConfig has every field of spec 2.7 with its type", async () => {
  await withServer(async (url) => {
    // deno-lint-ignore no-explicit-any
    const cfg = await call(url, "rollupnode_rollupConfig") as any;
    const hash = /^0x[0-9a-f]{64}$/;
    const address = /^0x[0-9a-fA-F]{40}$/;
    const word = /^0x[0-9a-f]{64}$/;
    assertMatch(cfg.genesis.l1.hash, hash);
    assertEquals(typeof cfg.genesis.l1.number, "number");
    assertMatch(cfg.genesis.l2.hash, hash);
    assertEquals(cfg.genesis.l2.number, 105235063);
    assertEquals(typeof cfg.genesis.l2_time, "number");
    assertMatch(cfg.genesis.system_config.batcherAddr, address);
    assertMatch(cfg.genesis.system_config.overhead, word);
    assertMatch(cfg.genesis.system_config.scalar, word);
    assertEquals(typeof cfg.genesis.system_config.gasLimit, "number");
    for (
      const key of [
        "block_time",
        "max_sequencer_drift",
        "seq_window_size",
        "channel_timeout",
        "l1_chain_id",
        "l2_chain_id",
        "regolith_time",
        "canyon_time",
      ]
    ) assertEquals(typeof cfg[key], "number", key);
    assertEquals(cfg.l2_chain_id, 10);
    assertEquals(cfg.l1_chain_id, 1);
    assertEquals(cfg.block_time, 2);
    for (
      const key of [
        "batch_inbox_address",
        "deposit_contract_address",
        "l1_system_config_address",
        "protocol_versions_address",
      ]
    ) assertMatch(cfg[key], address, key);
    assertEquals(cfg.batch_inbox_address.toLowerCase(), "0xff00000000000000000000000000000000000010");
  });
});
