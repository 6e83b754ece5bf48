import { assert, assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import { BaseError, isErrorCode } from "../../lib/common/errors.ts";
import {
  getNetworkPreset,
  listNetworks,
  nearestNetworkNames,
  NETWORK_NAMES,
  resolveNetworkName,
} from "../../networks/mod.ts";
import { generateNetworkFiles, type SourceData, writeNetworks } from "../../scripts/gen_networks.ts";

const NETWORKS_DIR = new URL("../../networks/", import.meta.url).pathname;
/** The source data lives next to the checkout (../shared/superchain from the repo root). */
const SOURCE_DIR = new URL("../../../shared/superchain", import.meta.url).pathname;
const HAVE_SOURCE = (() => {
  try {
    return Deno.statSync(`${SOURCE_DIR}/chains.json`).isFile;
  } catch {
    return false;
  }
})();

Deno.test("networks: 63 names, sorted and unique", () => {
  assertEquals(NETWORK_NAMES.length, 63);
  assertEquals([...NETWORK_NAMES], [...NETWORK_NAMES].sort());
  assertEquals(new Set(NETWORK_NAMES).size, 63);
  for (
    const name of ["op-mainnet", "op-sepolia", "base-mainnet", "radius_testnet-sepolia", "celo-sep-sepolia"]
  ) {
    assert(NETWORK_NAMES.includes(name), name);
  }
});

Deno.test({
  name: "networks: names are exactly the keys of networks.json, with its chain ids",
  ignore: !HAVE_SOURCE,
  fn: async () => {
    const networks = JSON.parse(await Deno.readTextFile(`${SOURCE_DIR}/networks.json`));
    assertEquals([...NETWORK_NAMES], Object.keys(networks.networks).sort());
    for (const summary of listNetworks()) {
      assertEquals(summary.chainId, BigInt(networks.networks[summary.name]));
    }
  },
});

Deno.test({
  name: "networks: committed files equal a fresh run of scripts/gen_networks.ts, byte for byte",
  ignore: !HAVE_SOURCE,
  fn: async () => {
    const tmp = await Deno.makeTempDir({ prefix: "keel_networks_" });
    try {
      const written = await writeNetworks(SOURCE_DIR, tmp);
      assertEquals(written.length, 64);
      const generated = [...Deno.readDirSync(tmp)].map((e) => e.name).sort();
      const committed = [...Deno.readDirSync(NETWORKS_DIR)].map((e) => e.name).filter((n) => n !== "mod.ts")
        .sort();
      assertEquals(committed, generated);
      for (const file of generated) {
        const want = await Deno.readFile(`${tmp}/${file}`);
        const got = await Deno.readFile(`${NETWORKS_DIR}${file}`);
        assertEquals(
          got,
          want,
          `networks/${file} differs from the generator's output: run deno task gen:networks`,
        );
      }
      // A second run into the same dir changes nothing, and removes stale presets.
      await Deno.writeTextFile(`${tmp}/gone-mainnet.json`, "{}\n");
      await writeNetworks(SOURCE_DIR, tmp);
      assertEquals([...Deno.readDirSync(tmp)].map((e) => e.name).sort(), generated);
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name: "networks: every preset carries the chains.json values",
  ignore: !HAVE_SOURCE,
  fn: async () => {
    const chains = JSON.parse(await Deno.readTextFile(`${SOURCE_DIR}/chains.json`));
    assertEquals(chains.length, 63);
    for (const chain of chains) {
      const p = getNetworkPreset(chain.name);
      const r = p.rollupConfigJson as Record<string, unknown>;
      assertEquals(p.chainId, BigInt(chain.chain_id));
      assertEquals(p.l1ChainId, BigInt(chain.l1_chain_id));
      assertEquals(p.displayName, chain.display_name);
      assertEquals(r.l2_chain_id, chain.chain_id);
      assertEquals(r.genesis, chain.genesis);
      assertEquals(r.channel_timeout, 300);
      assertEquals(r.seq_window_size, chain.seq_window_size);
      assertEquals(r.max_sequencer_drift, chain.max_sequencer_drift);
      assertEquals(r.batch_inbox_address, chain.batch_inbox_address);
      assertEquals(r.deposit_contract_address, chain.deposit_contract_address);
      assertEquals(r.l1_system_config_address, chain.l1_system_config_address);
      for (const [key, value] of Object.entries(chain.hardforks)) {
        assertEquals(r[key], value ?? undefined, key);
      }
      assertEquals(p.publicRpc, chain.public_rpc === "" ? undefined : chain.public_rpc);
      assertEquals(p.sequencerRpc, chain.sequencer_rpc === "" ? undefined : chain.sequencer_rpc);
    }
  },
});

Deno.test("networks: resolveNetworkName is case-insensitive and knows the legacy aliases", () => {
  assertEquals(resolveNetworkName("op-mainnet"), "op-mainnet");
  assertEquals(resolveNetworkName("OP-Mainnet"), "op-mainnet");
  assertEquals(resolveNetworkName("mainnet"), "op-mainnet");
  assertEquals(resolveNetworkName("MAINNET"), "op-mainnet");
  assertEquals(resolveNetworkName("Sepolia"), "op-sepolia");
  assertEquals(resolveNetworkName("Radius_Testnet-Sepolia"), "radius_testnet-sepolia");
  assertEquals(resolveNetworkName("op-mainet"), undefined);
  assertEquals(resolveNetworkName(""), undefined);
  assertEquals(resolveNetworkName("holesky"), undefined);
});

Deno.test("networks: getNetworkPreset fails with UNKNOWN_NETWORK and the nearest names", () => {
  const err = assertThrows(() => getNetworkPreset("op-mainet"), BaseError);
  assert(isErrorCode(err, "UNKNOWN_NETWORK"));
  assertStringIncludes(err.message, "op-mainet");
  assertStringIncludes(err.message, "did you mean op-mainnet");
  assertEquals((err as BaseError).meta.nearest, nearestNetworkNames("op-mainet"));
  assertEquals(nearestNetworkNames("base-sepolai")[0], "base-sepolia");
  const far = assertThrows(() => getNetworkPreset("qqqqqqqqqqqqqqqqqq"), BaseError);
  assert(!far.message.includes("did you mean"));
});

Deno.test("networks: op-mainnet preset", () => {
  const p = getNetworkPreset("mainnet");
  assertEquals(p.name, "op-mainnet");
  assertEquals(p.displayName, "OP Mainnet");
  assertEquals(p.chainId, 10n);
  assertEquals(p.l1ChainId, 1n);
  assertEquals(p.blockTime, 2n);
  assertEquals(p.aliases, ["mainnet"]);
  assertEquals(p.superchain, "mainnet");
  assertEquals(p.publicRpc, "https://mainnet.optimism.io");
  assertEquals(p.sequencerRpc, "https://mainnet-sequencer.optimism.io");
  assertEquals(p.explorer, "https://explorer.optimism.io");
  assertEquals(p.addresses.OptimismPortalProxy, "0xbEb5Fc579115071764c7423A4f12eDde41f106Ed");
  assertEquals(p.source.commit, "5b055be4d294ce43814a44c8839d89b2436dc8aa");
  assertEquals((p.rollupConfigJson.genesis as { l2: { number: number } }).l2.number, 105235063);
  // Devnets have no public endpoints.
  const dev = getNetworkPreset("oplabs-devnet-0-sepolia-dev-0");
  assertEquals(dev.publicRpc, undefined);
  assertEquals(dev.sequencerRpc, undefined);
});

Deno.test("networks: each getNetworkPreset call returns a fresh copy", () => {
  const a = getNetworkPreset("op-sepolia");
  a.rollupConfigJson.block_time = 99;
  a.aliases.push("x");
  a.addresses.OptimismPortalProxy = "0x00";
  const b = getNetworkPreset("op-sepolia");
  assertEquals(b.rollupConfigJson.block_time, 2);
  assertEquals(b.aliases, ["sepolia"]);
  assert(b.addresses.OptimismPortalProxy !== "0x00");
});

Deno.test("networks: listNetworks gives chain id, L1, block time and aliases for all 63", () => {
  const list = listNetworks();
  assertEquals(list.map((n) => n.name), [...NETWORK_NAMES]);
  const by = new Map(list.map((n) => [n.name, n]));
  assertEquals(by.get("op-mainnet"), {
    name: "op-mainnet",
    chainId: 10n,
    l1ChainId: 1n,
    blockTime: 2n,
    aliases: ["mainnet"],
  });
  assertEquals(by.get("op-sepolia")?.l1ChainId, 11155111n);
  assertEquals(by.get("cyber-sepolia")?.blockTime, 10n);
  assertEquals(by.get("swan-mainnet")?.blockTime, 5n);
  assertEquals(by.get("unichain-mainnet")?.blockTime, 1n);
  assertEquals(by.get("zora-sepolia")?.chainId, 999999999n);
  assertEquals(list.filter((n) => n.aliases.length > 0).map((n) => n.name), ["op-mainnet", "op-sepolia"]);
});

Deno.test("networks: presets are embedded through static imports, not read at run time", async () => {
  const index = await Deno.readTextFile(`${NETWORKS_DIR}index.ts`);
  const mod = await Deno.readTextFile(`${NETWORKS_DIR}mod.ts`);
  for (const name of NETWORK_NAMES) {
    assertStringIncludes(index, `from "./${name}.json" with { type: "json" };`);
  }
  assert(!/Deno\.|fetch\(|import\(/.test(index + mod), "networks/ must not read files at run time");
});

function sampleSource(order: "a" | "b"): SourceData {
  const chain = (name: string, id: number, superchain: string) => ({
    name,
    short_name: name.split("-")[0],
    identifier: `${superchain}/${name.split("-")[0]}`,
    display_name: name.toUpperCase(),
    chain_id: id,
    superchain,
    l1_chain_id: 11155111,
    public_rpc: "",
    sequencer_rpc: "https://seq.example",
    explorer: "",
    superchain_level: 0,
    governed_by_optimism: false,
    superchain_time: null,
    data_availability_type: "eth-da",
    block_time: 2,
    seq_window_size: 3600,
    max_sequencer_drift: 600,
    channel_timeout: null,
    genesis: {
      l1: { hash: "0x" + "11".repeat(32), number: 1 },
      l2: { hash: "0x" + "22".repeat(32), number: 0 },
      l2_time: 1700000000,
      system_config: {
        batcherAddr: "0x" + "33".repeat(20),
        overhead: "0x" + "00".repeat(32),
        scalar: "0x" + "00".repeat(31) + "01",
        gasLimit: 30000000,
      },
    },
    batch_inbox_address: "0x" + "44".repeat(20),
    deposit_contract_address: "0x" + "55".repeat(20),
    l1_system_config_address: "0x" + "66".repeat(20),
    protocol_versions_address: null,
    superchain_config_address: null,
    hardforks: { regolith_time: 0, canyon_time: 0, delta_time: null },
    optimism: { eip1559_elasticity: 6, eip1559_denominator: 50, eip1559_denominator_canyon: 250 },
    alt_da: null,
    gas_paying_token: null,
    interop: null,
    addresses: { Z: "0x01", A: "0x02" },
    roles: {},
    source_file: `superchain/configs/${superchain}/${name}.toml`,
  });
  const chains = [chain("b-sepolia", 2, "sepolia"), chain("a-sepolia", 1, "sepolia")];
  return {
    chains: order === "a" ? chains : [...chains].reverse(),
    networks: {
      registry: "r",
      registry_commit: "c",
      legacy_aliases: order === "a" ? { x: "a-sepolia", w: "a-sepolia" } : { w: "a-sepolia", x: "a-sepolia" },
      networks: order === "a" ? { "b-sepolia": 2, "a-sepolia": 1 } : { "a-sepolia": 1, "b-sepolia": 2 },
    },
    superchains: [{
      superchain: "sepolia",
      display_name: "Sepolia",
      l1_public_rpc: "https://l1",
      l1_explorer: "",
    }],
  };
}

Deno.test("gen_networks: output does not depend on input order and follows the op-node constants", () => {
  const a = generateNetworkFiles(sampleSource("a"));
  const b = generateNetworkFiles(sampleSource("b"));
  assertEquals([...a.keys()], ["a-sepolia.json", "b-sepolia.json", "index.ts"]);
  assertEquals(a, b);
  const preset = JSON.parse(a.get("a-sepolia.json")!);
  assertEquals(Object.keys(preset), Object.keys(preset).sort());
  assertEquals(preset.aliases, ["w", "x"]);
  assertEquals(preset.rollup_config.channel_timeout, 300);
  assertEquals(preset.rollup_config.regolith_time, 0);
  assert(!("delta_time" in preset.rollup_config), "unset forks are omitted");
  assert(!("protocol_versions_address" in preset.rollup_config));
  assertEquals(preset.public_rpc, null);
  assert(a.get("a-sepolia.json")!.endsWith("}\n"));
  assertStringIncludes(a.get("index.ts")!, `"w": "a-sepolia",`);
});

Deno.test("gen_networks: inconsistent source data is refused with a message", () => {
  const src = sampleSource("a");
  (src.networks.networks as Record<string, number>)["b-sepolia"] = 3;
  assertThrows(() => generateNetworkFiles(src), Error, "chain id of b-sepolia differs");
  const src2 = sampleSource("a");
  src2.chains.pop();
  assertThrows(() => generateNetworkFiles(src2), Error, "chains.json has 1 chains, networks.json 2");
});
