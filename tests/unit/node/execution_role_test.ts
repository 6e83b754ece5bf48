/**
 * writeGenesisFile: the saved dev genesis is exactly JSON.stringify(genesis, null, 2), written in pieces;
 * watchMemoryChain: the in-memory dev chain's size warnings; txpoolOptions: the pool limits of `--txpool.*`.
 */
import { buildDevGenesis, type GenesisJson } from "../../../lib/execution/mod.ts";
import type { Logger } from "../../../lib/common/mod.ts";
import { SqliteStore } from "../../../lib/db/mod.ts";
import { txpoolOptions, watchMemoryChain, writeGenesisFile } from "../../../lib/node/execution_role.ts";
import { parseArgs } from "../../../lib/config/mod.ts";
import { assertEquals, assertStringIncludes } from "../../assert.ts";

async function roundTrip(genesis: GenesisJson): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/genesis.json`;
    await Deno.writeTextFile(path, "x".repeat(200_000)); // a longer old file is truncated
    await writeGenesisFile(path, genesis);
    assertEquals(await Deno.readTextFile(path), JSON.stringify(genesis, null, 2) + "\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("writeGenesisFile: the dev genesis, byte for byte as JSON.stringify(genesis, null, 2)", async () => {
  await roundTrip(buildDevGenesis({ chainId: 901n, timestamp: 1_700_000_000n }) as GenesisJson);
});

Deno.test("writeGenesisFile: an empty alloc; a config key named alloc", async () => {
  await roundTrip({ config: { chainId: 1 }, gasLimit: "0x1", difficulty: "0x0", alloc: {} });
  await roundTrip({
    config: { alloc: "a" },
    gasLimit: "0x1",
    difficulty: "0x0",
    alloc: { "0x01": { balance: "0x1", storage: { "0x00": "0x01" } }, "0x02": { balance: "0x0" } },
  });
});

Deno.test("watchMemoryChain: a warning each time the in-memory chain holds another step of bytes", async () => {
  const store = SqliteStore.open(":memory:");
  const warnings: { message: string; mib: unknown }[] = [];
  const log = {
    warn: (message: string, props: { mib: unknown }) => warnings.push({ message, mib: props.mib }),
  } as unknown as Logger;
  const stop = watchMemoryChain(store, log, { stepBytes: 1024 * 1024, everyMs: 5 });
  try {
    const tick = () => new Promise((r) => setTimeout(r, 30));
    await tick();
    assertEquals(warnings.length, 0);
    // ~2.5 MiB of rows: past two steps at once, one warning.
    store.transaction(() => {
      for (let i = 0; i < 2500; i++) store.put(Uint8Array.of(1, i >> 8, i & 0xff), new Uint8Array(1000));
    });
    await tick();
    assertEquals(warnings.length, 1);
    assertStringIncludes(warnings[0].message, "--datadir");
    assertEquals(warnings[0].mib, Math.round(store.sizeBytes() / 2 ** 20));
    await tick();
    assertEquals(warnings.length, 1);
  } finally {
    stop();
    store.close();
  }
});

Deno.test("--txpool.* options set the pool's limits; dev mode has no minimum tip unless one is given", () => {
  const of = (argv: string[], env: Record<string, string> = {}) => {
    const p = parseArgs(["execution", ...argv], env);
    if (p.command !== "execution") throw new Error(p.command);
    return txpoolOptions(p.options, p.sources);
  };
  const plain = of([]);
  assertEquals(plain, {
    minTip: 1n,
    priceBump: 10n,
    accountSlots: 16,
    globalSlots: 5120,
    accountQueue: 64,
    globalQueue: 1024,
    lifetimeMs: 3 * 60 * 60 * 1000,
    allowUnprotectedTxs: false,
    noLocals: false,
  });
  assertEquals(of(["--dev"]).minTip, 0n);
  assertEquals(of(["--dev", "--txpool.pricelimit=7"]).minTip, 7n);
  assertEquals(of(["--dev"], { KEEL_TXPOOL_PRICELIMIT: "9" }).minTip, 9n);
  const tuned = of([
    "--txpool.pricebump=25",
    "--txpool.accountslots=4",
    "--txpool.globalslots=100",
    "--txpool.accountqueue=2",
    "--txpool.globalqueue=10",
    "--txpool.lifetime=1m30s",
    "--rpc.allow-unprotected-txs",
    "--txpool.nolocals",
  ]);
  assertEquals(tuned, {
    minTip: 1n,
    priceBump: 25n,
    accountSlots: 4,
    globalSlots: 100,
    accountQueue: 2,
    globalQueue: 10,
    lifetimeMs: 90_000,
    allowUnprotectedTxs: true,
    noLocals: true,
  });
});
