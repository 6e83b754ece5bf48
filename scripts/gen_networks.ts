/**
 * Generates the embedded network presets in `networks/` from the superchain-registry data in
 * `../shared/superchain/` (chains.json, networks.json, superchains.json; see its README.md).
 *
 * For every network it writes `networks/<name>.json`: the op-node rollup config (rollup.json
 * format, op-node/rollup/types.go `Config`) plus what a node shows or defaults from (display name,
 * L1, RPC URLs, explorer, aliases). It also writes `networks/index.ts`, which imports every JSON
 * file statically so the presets are compiled into the binary and never read from disk at run time.
 *
 * The output is deterministic (sorted names and keys, two-space indent, trailing newline):
 * re-running it on the same data changes nothing. A test regenerates into a temp dir and compares.
 *
 * Usage: deno run --allow-read=../shared,networks --allow-write=networks scripts/gen_networks.ts
 *          [--source DIR] [--out DIR]
 */

/** op-node's `ChannelTimeoutBedrock` for every registry chain (LoadOPStackRollupConfig); not in the registry. */
export const CHANNEL_TIMEOUT_BEDROCK = 300;
/**
 * Fork-time keys of chains.json `hardforks`, copied when set (op-node omits unset forks). op-node
 * sets `regolith_time = 0` for every registry chain; chains.json already carries that value.
 */
const FORK_KEYS = [
  "regolith_time",
  "canyon_time",
  "delta_time",
  "ecotone_time",
  "fjord_time",
  "granite_time",
  "holocene_time",
  "pectra_blob_schedule_time",
  "isthmus_time",
  "jovian_time",
  "interop_time",
] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface SourceData {
  chains: JsonObject[];
  networks: JsonObject;
  superchains: JsonObject[];
}

function fail(message: string): never {
  throw new Error(`Cannot generate network presets: ${message}`);
}

function obj(value: Json | undefined, where: string): JsonObject {
  if (value === null || value === undefined || typeof value !== "object" || Array.isArray(value)) {
    fail(`${where} is not an object`);
  }
  return value;
}

function str(value: Json | undefined, where: string): string {
  if (typeof value !== "string") fail(`${where} is not a string`);
  return value;
}

function int(value: Json | undefined, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    fail(`${where} is not a non-negative integer`);
  }
  return value;
}

/** Recursively sorts object keys so the output does not depend on input order. */
function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: JsonObject = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
    return out;
  }
  return value;
}

/** The op-node rollup.json object for one chains.json entry (op-node LoadOPStackRollupConfig). */
function rollupConfigOf(chain: JsonObject, where: string): JsonObject {
  const genesis = obj(chain.genesis, `${where}.genesis`);
  const l1 = obj(genesis.l1, `${where}.genesis.l1`);
  const l2 = obj(genesis.l2, `${where}.genesis.l2`);
  const sys = obj(genesis.system_config, `${where}.genesis.system_config`);
  const hardforks = obj(chain.hardforks, `${where}.hardforks`);
  const cfg: JsonObject = {
    genesis: {
      l1: {
        hash: str(l1.hash, `${where}.genesis.l1.hash`),
        number: int(l1.number, `${where}.genesis.l1.number`),
      },
      l2: {
        hash: str(l2.hash, `${where}.genesis.l2.hash`),
        number: int(l2.number, `${where}.genesis.l2.number`),
      },
      l2_time: int(genesis.l2_time, `${where}.genesis.l2_time`),
      system_config: {
        batcherAddr: str(sys.batcherAddr, `${where}.genesis.system_config.batcherAddr`),
        overhead: str(sys.overhead, `${where}.genesis.system_config.overhead`),
        scalar: str(sys.scalar, `${where}.genesis.system_config.scalar`),
        gasLimit: int(sys.gasLimit, `${where}.genesis.system_config.gasLimit`),
      },
    },
    block_time: int(chain.block_time, `${where}.block_time`),
    max_sequencer_drift: int(chain.max_sequencer_drift, `${where}.max_sequencer_drift`),
    seq_window_size: int(chain.seq_window_size, `${where}.seq_window_size`),
    channel_timeout: chain.channel_timeout === null
      ? CHANNEL_TIMEOUT_BEDROCK
      : int(chain.channel_timeout, `${where}.channel_timeout`),
    l1_chain_id: int(chain.l1_chain_id, `${where}.l1_chain_id`),
    l2_chain_id: int(chain.chain_id, `${where}.chain_id`),
    batch_inbox_address: str(chain.batch_inbox_address, `${where}.batch_inbox_address`),
    deposit_contract_address: str(chain.deposit_contract_address, `${where}.deposit_contract_address`),
    l1_system_config_address: str(chain.l1_system_config_address, `${where}.l1_system_config_address`),
  };
  // Fork times: op-node omits unset forks (`omitempty` on *uint64).
  for (const key of FORK_KEYS) {
    const value = hardforks[key];
    if (value !== null && value !== undefined) cfg[key] = int(value, `${where}.hardforks.${key}`);
  }
  if (chain.protocol_versions_address !== null) {
    cfg.protocol_versions_address = str(
      chain.protocol_versions_address,
      `${where}.protocol_versions_address`,
    );
  }
  if (chain.alt_da !== null && chain.alt_da !== undefined) {
    const alt = obj(chain.alt_da, `${where}.alt_da`);
    cfg.alt_da = {
      da_challenge_contract_address: str(
        alt.da_challenge_contract_address,
        `${where}.alt_da.da_challenge_contract_address`,
      ),
      da_commitment_type: str(alt.da_commitment_type, `${where}.alt_da.da_commitment_type`),
      da_challenge_window: int(alt.da_challenge_window, `${where}.alt_da.da_challenge_window`),
      da_resolve_window: int(alt.da_resolve_window, `${where}.alt_da.da_resolve_window`),
    };
  }
  const op = obj(chain.optimism, `${where}.optimism`);
  cfg.chain_op_config = {
    eip1559Elasticity: int(op.eip1559_elasticity, `${where}.optimism.eip1559_elasticity`),
    eip1559Denominator: int(op.eip1559_denominator, `${where}.optimism.eip1559_denominator`),
    eip1559DenominatorCanyon: int(
      op.eip1559_denominator_canyon,
      `${where}.optimism.eip1559_denominator_canyon`,
    ),
  };
  return cfg;
}

/** One preset file's content for a chains.json entry. */
function presetOf(
  chain: JsonObject,
  superchain: JsonObject,
  aliases: string[],
  meta: JsonObject,
): JsonObject {
  const name = str(chain.name, "chain.name");
  const where = `chains.json[${name}]`;
  const optStr = (value: Json | undefined, field: string): Json =>
    value === null || value === undefined || value === "" ? null : str(value, `${where}.${field}`);
  return {
    name,
    display_name: str(chain.display_name, `${where}.display_name`),
    short_name: str(chain.short_name, `${where}.short_name`),
    identifier: str(chain.identifier, `${where}.identifier`),
    aliases,
    chain_id: int(chain.chain_id, `${where}.chain_id`),
    l1_chain_id: int(chain.l1_chain_id, `${where}.l1_chain_id`),
    block_time: int(chain.block_time, `${where}.block_time`),
    superchain: str(chain.superchain, `${where}.superchain`),
    superchain_display_name: str(
      superchain.display_name,
      `superchains.json[${chain.superchain}].display_name`,
    ),
    superchain_level: int(chain.superchain_level, `${where}.superchain_level`),
    superchain_time: chain.superchain_time === null
      ? null
      : int(chain.superchain_time, `${where}.superchain_time`),
    governed_by_optimism: chain.governed_by_optimism === true,
    data_availability_type: str(chain.data_availability_type, `${where}.data_availability_type`),
    public_rpc: optStr(chain.public_rpc, "public_rpc"),
    sequencer_rpc: optStr(chain.sequencer_rpc, "sequencer_rpc"),
    explorer: optStr(chain.explorer, "explorer"),
    l1_public_rpc: optStr(superchain.l1_public_rpc, "l1_public_rpc"),
    l1_explorer: optStr(superchain.l1_explorer, "l1_explorer"),
    superchain_config_address: optStr(chain.superchain_config_address, "superchain_config_address"),
    gas_paying_token: optStr(chain.gas_paying_token, "gas_paying_token"),
    interop: chain.interop ?? null,
    addresses: obj(chain.addresses, `${where}.addresses`),
    roles: obj(chain.roles, `${where}.roles`),
    rollup_config: rollupConfigOf(chain, where),
    source: { ...meta, file: str(chain.source_file, `${where}.source_file`) },
  };
}

/** A TypeScript identifier for a network name (`arena-z-mainnet` -> `arena_z_mainnet`). */
function identOf(name: string): string {
  const id = name.replace(/[^A-Za-z0-9_]/g, "_");
  return /^[0-9]/.test(id) ? `n_${id}` : id;
}

/** Every generated file, by file name, with its exact content. Pure: no I/O. */
export function generateNetworkFiles(data: SourceData): Map<string, string> {
  const networkMap = obj(data.networks.networks, "networks.json networks");
  const legacy = obj(data.networks.legacy_aliases ?? {}, "networks.json legacy_aliases");
  const names = Object.keys(networkMap).sort();
  const byName = new Map<string, JsonObject>();
  for (const chain of data.chains) byName.set(str(chain.name, "chains.json[].name"), chain);
  const superchains = new Map<string, JsonObject>();
  for (const sc of data.superchains) superchains.set(str(sc.superchain, "superchains.json[].superchain"), sc);
  if (byName.size !== names.length) {
    fail(`chains.json has ${byName.size} chains, networks.json ${names.length}`);
  }
  const meta: JsonObject = {
    registry: str(data.networks.registry, "networks.json registry"),
    commit: str(data.networks.registry_commit, "networks.json registry_commit"),
  };

  const files = new Map<string, string>();
  for (const name of names) {
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) {
      fail(`network name ${JSON.stringify(name)} is not a plain file name`);
    }
    const chain = byName.get(name) ?? fail(`network ${name} is in networks.json but not in chains.json`);
    if (chain.chain_id !== networkMap[name]) fail(`chain id of ${name} differs between the two files`);
    const sc = superchains.get(str(chain.superchain, `chains.json[${name}].superchain`)) ??
      fail(`superchain ${chain.superchain} of ${name} is not in superchains.json`);
    const aliases = Object.keys(legacy).filter((alias) => legacy[alias] === name).sort();
    const preset = sortKeys(presetOf(chain, sc, aliases, meta));
    files.set(`${name}.json`, JSON.stringify(preset, null, 2) + "\n");
  }

  const lines = [
    "// Generated by scripts/gen_networks.ts from ../shared/superchain: do not edit.",
    "// Static JSON imports embed every preset in the compiled binary.",
    ...names.map((name) => `import ${identOf(name)} from "./${name}.json" with { type: "json" };`),
    "",
    "/** Every network preset as generated JSON, by network name, sorted. */",
    "export const PRESET_JSON: Readonly<Record<string, unknown>> = {",
    ...names.map((name) => `  "${name}": ${identOf(name)},`),
    "};",
    "",
    "/** Legacy names op-node accepts for a network (networks.json `legacy_aliases`). */",
    "export const LEGACY_ALIASES: Readonly<Record<string, string>> = {",
    ...Object.keys(legacy).sort().map((alias) => `  "${alias}": "${str(legacy[alias], `alias ${alias}`)}",`),
    "};",
    "",
  ];
  files.set("index.ts", lines.join("\n"));
  return files;
}

/** Reads the three source files from `sourceDir`. */
export async function readSourceData(sourceDir: string): Promise<SourceData> {
  const read = async (file: string): Promise<Json> =>
    JSON.parse(await Deno.readTextFile(`${sourceDir}/${file}`));
  const chains = await read("chains.json");
  const superchains = await read("superchains.json");
  if (!Array.isArray(chains) || !Array.isArray(superchains)) {
    fail("chains.json and superchains.json must be arrays");
  }
  return {
    chains: chains.map((c, i) => obj(c, `chains.json[${i}]`)),
    networks: obj(await read("networks.json"), "networks.json"),
    superchains: superchains.map((s, i) => obj(s, `superchains.json[${i}]`)),
  };
}

/**
 * Writes the generated files into `outDir` and removes preset JSON files that are no longer
 * generated (a network dropped from the source). Other files (mod.ts) are left alone.
 */
export async function writeNetworks(sourceDir: string, outDir: string): Promise<string[]> {
  const files = generateNetworkFiles(await readSourceData(sourceDir));
  await Deno.mkdir(outDir, { recursive: true });
  for await (const entry of Deno.readDir(outDir)) {
    if (entry.isFile && entry.name.endsWith(".json") && !files.has(entry.name)) {
      await Deno.remove(`${outDir}/${entry.name}`);
    }
  }
  for (const [file, content] of files) await Deno.writeTextFile(`${outDir}/${file}`, content);
  return [...files.keys()];
}

function parseArgs(args: string[]): { source: string; out: string } {
  const opts = { source: "../shared/superchain", out: "networks" };
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split(/=(.*)/s, 2);
    if (flag !== "--source" && flag !== "--out") {
      fail(`unknown argument ${args[i]} (use --source DIR, --out DIR)`);
    }
    const value = inline ?? args[++i];
    if (value === undefined || value === "") fail(`${flag} needs a directory`);
    opts[flag === "--source" ? "source" : "out"] = value;
  }
  return opts;
}

if (import.meta.main) {
  const { source, out } = parseArgs(Deno.args);
  const written = await writeNetworks(source, out);
  console.log(`Wrote ${written.length - 1} network presets and index.ts to ${out}/`);
}
