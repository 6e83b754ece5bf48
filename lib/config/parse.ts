/**
 * argv + environment -> a typed command. Pure: the environment arrives as a record, nothing is
 * read from the process. Precedence per option: flag, then environment (`KEEL_<suffix>`), then
 * the preset layer, then the table's default (issue 2, part 2).
 */
import { ConfigError, quote } from "./errors.ts";
import {
  type AnyOption,
  ENV_PREFIX,
  envName,
  flagOf,
  label,
  type OptionsOf,
  type OptionTable,
} from "./option.ts";
import { checkDevOptions } from "./dev_checks.ts";
import {
  BATCHER_OPTION_TABLE,
  type BatcherOptions,
  DA_SERVER_OPTION_TABLE,
  type DaServerOptions,
  DEVNET_OPTION_TABLE,
  type DevnetOptions,
  EXECUTION_OPTION_TABLE,
  type ExecutionOptions,
  type NodeOptions,
  ROLLUP_OPTION_TABLE,
} from "./options/mod.ts";
import { nearest } from "./suggest.ts";
import { ValueError } from "./values.ts";

/** Where a resolved value came from. */
export type ValueSource = "flag" | "env" | "preset" | "default";

/**
 * Whether `keel execution --dev` keeps its chain in memory: when no `--datadir` (or KEEL_DATADIR) was
 * given, as geth --dev and anvil do (nothing written to disk, a new chain each start).
 */
export function devChainInMemory(options: ExecutionOptions, sources: Record<string, ValueSource>): boolean {
  return options.dev && !givenBy(sources, "datadir");
}

/** Whether option `key` was given by flag or environment variable (not a default or preset). */
export function givenBy(sources: Record<string, ValueSource>, key: string): boolean {
  return sources[key] === "flag" || sources[key] === "env";
}

/** The commands of the CLI. */
export const COMMANDS = ["node", "execution", "devnet", "batcher", "da-server", "networks", "help"] as const;
export type CommandName = typeof COMMANDS[number];

/** Every option `keel node` takes: the rollup node's and the embedded execution client's. */
export const NODE_COMMAND_TABLE = { ...ROLLUP_OPTION_TABLE, ...EXECUTION_OPTION_TABLE };

/** Values a network preset supplies, keyed by field; they rank below flags and environment. */
export type PresetValues = Partial<NodeOptions & ExecutionOptions>;

export interface ParsedNode {
  command: "node";
  options: NodeOptions;
  execution: ExecutionOptions;
  /** Where each field of `options` and `execution` came from, keyed by field name. */
  sources: Record<string, ValueSource>;
}

export interface ParsedExecution {
  command: "execution";
  options: ExecutionOptions;
  sources: Record<string, ValueSource>;
}

export interface ParsedExecutionInit {
  command: "execution-init";
  options: ExecutionOptions;
  datadir: string;
  genesisPath: string;
}

/** `keel execution export [--datadir DIR] FILE [FIRST [LAST]]` (geth export). */
export interface ParsedExecutionExport {
  command: "execution-export";
  options: ExecutionOptions;
  datadir: string;
  file: string;
  first?: bigint;
  last?: bigint;
}

/** `keel execution import [--datadir DIR] FILE...` (geth import). */
export interface ParsedExecutionImport {
  command: "execution-import";
  options: ExecutionOptions;
  datadir: string;
  files: string[];
}

/** `keel execution prune [--datadir DIR] [RECENT]` (geth snapshot prune-state): states of the last RECENT blocks kept. */
export interface ParsedExecutionPrune {
  command: "execution-prune";
  options: ExecutionOptions;
  datadir: string;
  recent: number;
}

export interface ParsedHelp {
  command: "help";
  /** Which help page: the overview or one command's. */
  topic: HelpTopic;
}

export type HelpTopic = "main" | "node" | "execution" | "networks" | "devnet" | "batcher" | "da-server";

export interface ParsedVersion {
  command: "version";
}

export interface ParsedNetworks {
  command: "networks";
}

export interface ParsedDevnet {
  command: "devnet";
  options: DevnetOptions;
}

export interface ParsedBatcher {
  command: "batcher";
  /** l2EthRpc, rollupRpc and privateKey are checked present. */
  options: BatcherOptions & { l2EthRpc: string; rollupRpc: string; privateKey: string };
}

export interface ParsedDaServer {
  command: "da-server";
  /** filePath is checked present. */
  options: DaServerOptions & { filePath: string };
}

export type ParsedCommand =
  | ParsedDaServer
  | ParsedNode
  | ParsedExecution
  | ParsedExecutionInit
  | ParsedExecutionExport
  | ParsedExecutionImport
  | ParsedExecutionPrune
  | ParsedHelp
  | ParsedVersion
  | ParsedNetworks
  | ParsedDevnet
  | ParsedBatcher;

interface Scan {
  /** Raw texts given on the command line, per field, in order. */
  flags: Map<string, string[]>;
  positionals: string[];
  help: boolean;
  version: boolean;
}

function shown(spec: AnyOption, value: string): string {
  return spec.secret ? '"<redacted>"' : quote(value);
}

function indexByName(table: OptionTable): Map<string, string> {
  const byName = new Map<string, string>();
  for (const [field, spec] of Object.entries(table)) {
    byName.set(spec.name, field);
    for (const alias of spec.aliases ?? []) byName.set(alias, field);
  }
  return byName;
}

/** Splits argv into option texts and positionals; rejects unknown flags with a suggestion. */
function scan(argv: readonly string[], table: OptionTable, command: string): Scan {
  const byName = indexByName(table);
  const result: Scan = { flags: new Map(), positionals: [], help: false, version: false };
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (token === "--") {
      result.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith("-") || token === "-") {
      result.positionals.push(token);
      continue;
    }
    const doubleDash = token.startsWith("--");
    const body = token.slice(doubleDash ? 2 : 1);
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    const inline = eq < 0 ? undefined : body.slice(eq + 1);
    // Spec 4.5: --help/-h and --version/-v (op-node's only single-dash aliases).
    if ((doubleDash && name === "help") || (!doubleDash && name === "h")) {
      result.help = true;
      continue;
    }
    if ((doubleDash && name === "version") || (!doubleDash && name === "v")) {
      result.version = true;
      continue;
    }
    const field = byName.get(name);
    const spec = field === undefined ? undefined : table[field];
    const isAlias = spec !== undefined && spec.name !== name;
    if (spec === undefined || (!doubleDash && !isAlias)) {
      throw unknownFlag(token, name, inline, table, command);
    }
    let raw: string;
    if (inline !== undefined) {
      raw = inline;
    } else if (spec.kind.bool) {
      raw = "true";
    } else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--")) {
        throw new ConfigError(
          "CONFIG_MISSING_VALUE",
          `missing value for ${label(spec)}: expected ${spec.kind.form}`,
          { flag: flagOf(spec), env: envName(spec), value: "", form: spec.kind.form },
        );
      }
      raw = next;
      i++;
    }
    const list = result.flags.get(field!) ?? [];
    list.push(raw);
    result.flags.set(field!, list);
  }
  return result;
}

function unknownFlag(
  token: string,
  name: string,
  inline: string | undefined,
  table: OptionTable,
  command: string,
): ConfigError {
  const names = Object.values(table).map((s) => s.name);
  const suggestion = nearest(name, [...names, "help", "version"]);
  const spec = Object.values(table).find((s) => s.name === suggestion);
  const elsewhere = command === "execution" && name in indexObject(ROLLUP_OPTION_TABLE)
    ? ` (--${name} is an option of keel node)`
    : "";
  const hint = suggestion === undefined || elsewhere !== ""
    ? ""
    : spec === undefined
    ? `; did you mean --${suggestion}?`
    : `; did you mean ${label(spec)}, ${spec.kind.form}?`;
  const given = inline === undefined ? "" : ` with value ${quote(inline)}`;
  return new ConfigError(
    "CONFIG_UNKNOWN_FLAG",
    `unknown flag ${token.split("=")[0]}${given} for keel ${command}${elsewhere}${hint}`,
    {
      flag: token.split("=")[0],
      value: inline ?? "",
      suggestion: suggestion === undefined ? undefined : `--${suggestion}`,
    },
  );
}

function indexObject(table: OptionTable): Record<string, true> {
  return Object.fromEntries(Object.values(table).map((s) => [s.name, true]));
}

function parseText(spec: AnyOption, text: string, from: "flag" | "env"): unknown {
  // `--l2.jwt-secret=` on an option without a default means "unset", as in Go.
  if (text.trim() === "" && spec.default === undefined) return undefined;
  try {
    return spec.kind.parse(text);
  } catch (err) {
    if (!(err instanceof ValueError)) throw err;
    const where = from === "flag"
      ? `for ${flagOf(spec)} (env ${envName(spec)})`
      : `in ${envName(spec)} (flag ${flagOf(spec)})`;
    const hint = err.suggestion === undefined ? "" : `; did you mean ${err.suggestion}?`;
    throw new ConfigError(
      "CONFIG_INVALID_VALUE",
      `invalid value ${shown(spec, text)} ${where}: expected ${spec.kind.form}${hint}`,
      {
        flag: flagOf(spec),
        env: envName(spec),
        value: spec.secret ? "<redacted>" : text,
        form: spec.kind.form,
        suggestion: err.suggestion,
      },
    );
  }
}

/** The resolved values of a table, where each came from, and the raw text given for each. */
export interface Resolution<T extends OptionTable> {
  values: OptionsOf<T>;
  sources: Record<string, ValueSource>;
  given: Record<string, string>;
}

function copyDefault(value: unknown): unknown {
  return Array.isArray(value) ? [...value] : value;
}

/**
 * Resolves every option of `table`: flag texts (already split per field), then
 * `env[KEEL_<suffix>]` (empty counts as unset), then `preset[field]`, then the default.
 */
export function resolveOptions<T extends OptionTable>(
  table: T,
  flags: ReadonlyMap<string, readonly string[]>,
  env: Readonly<Record<string, string>>,
  preset: Readonly<Record<string, unknown>> = {},
): Resolution<T> {
  const values: Record<string, unknown> = {};
  const sources: Record<string, ValueSource> = {};
  const given: Record<string, string> = {};
  for (const [field, spec] of Object.entries(table)) {
    const texts = flags.get(field);
    const envText = env[`${ENV_PREFIX}${spec.env}`];
    if (texts !== undefined && texts.length > 0) {
      const parsed = texts.map((t) => parseText(spec, t, "flag"));
      // A list flag given twice appends; any other flag given twice keeps the last (Go's flag).
      values[field] = spec.kind.list ? (parsed as unknown[][]).flat() : parsed[parsed.length - 1];
      sources[field] = "flag";
      given[field] = texts.join(",");
    } else if (envText !== undefined && envText !== "") {
      values[field] = parseText(spec, envText, "env");
      sources[field] = "env";
      given[field] = envText;
    } else if (preset[field] !== undefined) {
      values[field] = copyDefault(preset[field]);
      sources[field] = "preset";
    } else {
      values[field] = copyDefault(spec.default);
      sources[field] = "default";
    }
  }
  return { values: values as OptionsOf<T>, sources, given };
}

function noPositionals(positionals: string[], command: string): void {
  if (positionals.length > 0) {
    throw new ConfigError(
      "CONFIG_UNEXPECTED_ARGUMENT",
      `unexpected argument ${quote(positionals[0])} for keel ${command}: options take the form --name=value`,
      { value: positionals[0], form: "--name=value or --name value" },
    );
  }
}

/** Cross-option rules of `keel node` (spec 4.5 and issue 2: network XOR rollup.config). */
function checkNode(r: Resolution<typeof NODE_COMMAND_TABLE>): void {
  const t = NODE_COMMAND_TABLE;
  const v = r.values;
  const net = t.network;
  const cfg = t.rollupConfig;
  if (v.network !== undefined && v.rollupConfig !== undefined) {
    throw new ConfigError(
      "CONFIG_CONFLICT",
      `${label(net)} = ${quote(r.given.network)} and ${label(cfg)} = ${quote(r.given.rollupConfig)} ` +
        `exclude each other: give a preset network or a rollup config file, not both`,
      {
        flag: flagOf(net),
        env: envName(net),
        value: r.given.network,
        form: "only one of the two",
        other: flagOf(cfg),
      },
    );
  }
  if (v.network === undefined && v.rollupConfig === undefined) {
    throw new ConfigError(
      "CONFIG_MISSING_REQUIRED",
      `missing required option: ${label(net)} or ${label(cfg)}, none given: expected ${net.kind.form}, ` +
        `or the path of a rollup.json`,
      { flag: flagOf(net), env: envName(net), value: "", form: net.kind.form, other: flagOf(cfg) },
    );
  }
  if (v.p2pPeersLo > v.p2pPeersHi) {
    const lo = t.p2pPeersLo;
    throw new ConfigError(
      "CONFIG_CONFLICT",
      `${label(lo)} = ${v.p2pPeersLo} exceeds ${label(t.p2pPeersHi)} = ${v.p2pPeersHi}: ` +
        `expected the low tide at most the high tide`,
      { flag: flagOf(lo), env: envName(lo), value: String(v.p2pPeersLo), form: "at most p2p.peers.hi" },
    );
  }
  checkDaServer(v, t.altdaDaServer);
  // op-service signer CLIConfig.Check: a remote signer endpoint needs the address it signs for.
  if (v.signerEndpoint !== undefined && v.signerAddress === undefined) {
    throw missingWhen(t.signerAddress, "when --signer.endpoint is given");
  }
}

function pick<T extends OptionTable>(table: T, values: Record<string, unknown>): OptionsOf<T> {
  return Object.fromEntries(Object.keys(table).map((k) => [k, values[k]])) as OptionsOf<T>;
}

function parseNode(
  argv: string[],
  env: Readonly<Record<string, string>>,
  preset: PresetValues,
): ParsedCommand {
  const s = scan(argv, NODE_COMMAND_TABLE, "node");
  if (s.help) return { command: "help", topic: "node" };
  if (s.version) return { command: "version" };
  noPositionals(s.positionals, "node");
  const r = resolveOptions(NODE_COMMAND_TABLE, s.flags, env, preset as Record<string, unknown>);
  checkNode(r);
  return {
    command: "node",
    options: pick(ROLLUP_OPTION_TABLE, r.values),
    execution: pick(EXECUTION_OPTION_TABLE, r.values),
    sources: r.sources,
  };
}

/** States kept by `keel execution prune` by default: the last 128 blocks', as geth keeps in memory (TriesInMemory). */
export const DEFAULT_PRUNE_RECENT = 128;

function parseExecution(
  argv: string[],
  env: Readonly<Record<string, string>>,
  preset: PresetValues,
): ParsedCommand {
  const s = scan(argv, EXECUTION_OPTION_TABLE, "execution");
  if (s.help) return { command: "help", topic: "execution" };
  if (s.version) return { command: "version" };
  const r = resolveOptions(EXECUTION_OPTION_TABLE, s.flags, env, preset as Record<string, unknown>);
  if (s.positionals[0] === "init") {
    const rest = s.positionals.slice(1);
    const genesisPath = rest[0] ?? r.values.genesis;
    if (genesisPath === undefined) {
      const g = EXECUTION_OPTION_TABLE.genesis;
      throw new ConfigError(
        "CONFIG_MISSING_REQUIRED",
        `missing required argument: keel execution init needs a genesis file, none given: ` +
          `expected keel execution init --datadir DIR genesis.json (or ${label(g)})`,
        {
          flag: flagOf(g),
          env: envName(g),
          value: "",
          form: "keel execution init --datadir DIR genesis.json",
        },
      );
    }
    noPositionals(rest.slice(1), "execution init");
    return { command: "execution-init", options: r.values, datadir: r.values.datadir, genesisPath };
  }
  if (s.positionals[0] === "export") {
    const [file, first, last, ...more] = s.positionals.slice(1);
    const form = "keel execution export --datadir DIR FILE [FIRST [LAST]]";
    if (file === undefined) {
      throw new ConfigError("CONFIG_MISSING_REQUIRED", `missing required argument: expected ${form}`, {
        value: "",
        form,
      });
    }
    noPositionals(more, "execution export");
    const number = (text: string | undefined, what: string) => {
      if (text === undefined) return undefined;
      if (!/^[0-9]+$/.test(text)) {
        throw new ConfigError(
          "CONFIG_INVALID_VALUE",
          `invalid ${what} block ${quote(text)}: expected ${form}`,
          {
            value: text,
            form: "a block number in decimal",
          },
        );
      }
      return BigInt(text);
    };
    return {
      command: "execution-export",
      options: r.values,
      datadir: r.values.datadir,
      file,
      first: number(first, "first"),
      last: number(last, "last"),
    };
  }
  if (s.positionals[0] === "import") {
    const files = s.positionals.slice(1);
    if (files.length === 0) {
      const form = "keel execution import --datadir DIR FILE...";
      throw new ConfigError("CONFIG_MISSING_REQUIRED", `missing required argument: expected ${form}`, {
        value: "",
        form,
      });
    }
    return { command: "execution-import", options: r.values, datadir: r.values.datadir, files };
  }
  if (s.positionals[0] === "prune") {
    const [recent, ...more] = s.positionals.slice(1);
    noPositionals(more, "execution prune");
    if (recent !== undefined && !/^[1-9][0-9]{0,6}$/.test(recent)) {
      throw new ConfigError(
        "CONFIG_INVALID_VALUE",
        `invalid number of recent blocks ${
          quote(recent)
        }: expected keel execution prune --datadir DIR [RECENT]`,
        { value: recent, form: "a whole number from 1 to 9999999" },
      );
    }
    return {
      command: "execution-prune",
      options: r.values,
      datadir: r.values.datadir,
      recent: recent === undefined ? DEFAULT_PRUNE_RECENT : Number(recent),
    };
  }
  noPositionals(s.positionals, "execution");
  checkDevOptions(r);
  return { command: "execution", options: r.values, sources: r.sources };
}

/** CONFIG_MISSING_REQUIRED for `spec`, required always or `when` another option is set (a phrase). */
function missingWhen(spec: AnyOption, when = ""): ConfigError {
  return new ConfigError(
    "CONFIG_MISSING_REQUIRED",
    `missing required option: ${label(spec)}${
      when === "" ? "" : ` ${when}`
    }, none given: expected ${spec.kind.form}`,
    { flag: flagOf(spec), env: envName(spec), value: "", form: spec.kind.form },
  );
}

/** op-alt-da CLIConfig.Check: a DA server URL is required when Alt-DA is enabled (node and batcher). */
function checkDaServer(v: { altdaEnabled: boolean; altdaDaServer?: string }, spec: AnyOption): void {
  if (v.altdaEnabled && v.altdaDaServer === undefined) {
    throw missingWhen(spec, "when --altda.enabled is true");
  }
}

/**
 * Parses a full command line (without the program name) against the injected environment.
 * `preset` supplies values below flags and environment. Throws `ConfigError` on bad input.
 */

export function parseArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
  preset: PresetValues = {},
): ParsedCommand {
  const [first, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h") return { command: "help", topic: "main" };
  if (first === "--version" || first === "-v") return { command: "version" };
  switch (first) {
    case "node":
      return parseNode(rest, env, preset);
    case "execution":
      return parseExecution(rest, env, preset);
    case "devnet": {
      const s = scan(rest, DEVNET_OPTION_TABLE, "devnet");
      if (s.help) return { command: "help", topic: "devnet" };
      if (s.version) return { command: "version" };
      noPositionals(s.positionals, "devnet");
      const r = resolveOptions(DEVNET_OPTION_TABLE, s.flags, env, {});
      return { command: "devnet", options: r.values as DevnetOptions };
    }
    case "batcher": {
      const s = scan(rest, BATCHER_OPTION_TABLE, "batcher");
      if (s.help) return { command: "help", topic: "batcher" };
      if (s.version) return { command: "version" };
      noPositionals(s.positionals, "batcher");
      const r = resolveOptions(BATCHER_OPTION_TABLE, s.flags, env, {});
      const v = r.values as BatcherOptions;
      // op-batcher CLIConfig.Check: the L2 and rollup endpoints and a signer are required.
      for (const key of ["l2EthRpc", "rollupRpc", "privateKey"] as const) {
        if (v[key] === undefined) throw missingWhen(BATCHER_OPTION_TABLE[key]);
      }
      checkDaServer(v, BATCHER_OPTION_TABLE.altdaDaServer);
      return { command: "batcher", options: v as ParsedBatcher["options"] };
    }
    case "da-server": {
      const s = scan(rest, DA_SERVER_OPTION_TABLE, "da-server");
      if (s.help) return { command: "help", topic: "da-server" };
      if (s.version) return { command: "version" };
      noPositionals(s.positionals, "da-server");
      const v = resolveOptions(DA_SERVER_OPTION_TABLE, s.flags, env, {}).values as DaServerOptions;
      // op-alt-da's da-server needs a storage: here the file store.
      if (v.filePath === undefined) throw missingWhen(DA_SERVER_OPTION_TABLE.filePath);
      return { command: "da-server", options: v as ParsedDaServer["options"] };
    }
    case "networks": {
      const s = scan(rest, {}, "networks");
      if (s.help) return { command: "help", topic: "networks" };
      if (s.version) return { command: "version" };
      noPositionals(s.positionals, "networks");
      return { command: "networks" };
    }
    case "help": {
      const topic = rest[0];
      if (topic === undefined) return { command: "help", topic: "main" };
      if (
        topic === "node" || topic === "execution" || topic === "networks" || topic === "devnet" ||
        topic === "batcher" || topic === "da-server"
      ) {
        return { command: "help", topic };
      }
      throw unknownCommand(topic);
    }
    default:
      throw unknownCommand(first);
  }
}

function unknownCommand(name: string): ConfigError {
  const form = `a command (${COMMANDS.join(", ")}) before any option`;
  if (name.startsWith("-")) {
    return new ConfigError(
      "CONFIG_UNKNOWN_FLAG",
      `unexpected flag ${quote(name)} before the command: expected ${form}, e.g. keel node ${name}`,
      { flag: name.split("=")[0], value: name, form, suggestion: "node" },
    );
  }
  const suggestion = nearest(name, COMMANDS);
  return new ConfigError(
    "CONFIG_UNKNOWN_COMMAND",
    `unknown command ${quote(name)}: expected ${form}; did you mean ${suggestion}?`,
    { value: name, form, suggestion },
  );
}
