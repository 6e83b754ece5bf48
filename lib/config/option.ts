/**
 * The shape of one option-table entry (DESIGN.md style rule 5): name, env suffix, default (and
 * where it comes from), description, group, value kind. `--help`, the environment names,
 * parsing and validation are all derived from these entries.
 */
import type { ValueKind } from "./values.ts";

/** Prefix of every environment variable: `KEEL_<suffix>`. */
export const ENV_PREFIX = "KEEL_";

/** The areas of spec section 4.5, plus the execution client's (spec 4.1 and op-geth's flags). */
export const GROUPS = [
  "L1 and L2 connections",
  "Network and rollup",
  "Fork overrides",
  "Logging",
  "RPC",
  "Metrics and profiling",
  "Peer-to-peer",
  "Sequencer and verifier",
  "Conductor, persistence, signer",
  "Alternative data availability (experimental, beta)",
  "Interop (highly experimental) and miscellaneous",
  "Execution client: HTTP and WebSocket RPC",
  "Execution client: Engine API",
  "Execution client: RPC limits",
  "Execution client: chain and data",
  "Execution client: transaction pool",
  "Devnet",
  "Batcher",
  "DA server",
] as const;
export type Group = typeof GROUPS[number];

/** Where a default comes from. */
export const SPEC_4_5 = "spec 4.5 (op-node v1.10.2)";
export const SPEC_4_1 = "spec 4.1";
export const OP_GETH = "op-geth default";
export const KEEL = "keel";

export interface OptionSpec<T> {
  /** Flag name without dashes, e.g. `l1.epoch-poll-interval`. */
  readonly name: string;
  /** Environment suffix: the variable is `KEEL_<env>`. */
  readonly env: string;
  /** Kind of value: parser, printer, accepted form. */
  readonly kind: ValueKind<NonNullable<T>>;
  /** The value when neither flag, environment nor preset gives one; undefined: none. */
  readonly default: T;
  /** Where the default comes from (spec section, op-node, op-geth, keel). */
  readonly origin: string;
  readonly description: string;
  readonly group: Group;
  /** Single-dash aliases (only where op-node has them). */
  readonly aliases?: readonly string[];
  /** Never print the value (private keys). */
  readonly secret?: boolean;
}

// deno-lint-ignore no-explicit-any
export type AnyOption = OptionSpec<any>;
export type OptionTable = Record<string, AnyOption>;

/** The typed options object an option table produces: one field per entry. */
export type OptionsOf<T extends OptionTable> = {
  -readonly [K in keyof T]: T[K]["default"];
};

/** An entry with a default; the value type comes from the kind, the default must be of it. */
export function option<T>(
  spec: Omit<OptionSpec<T>, "default" | "kind"> & { kind: ValueKind<T>; default: NoInfer<T> },
): OptionSpec<T> {
  return spec as OptionSpec<T>;
}

/** An entry without a default: the field is undefined unless given. */
export function optional<T>(
  spec: Omit<OptionSpec<T>, "default" | "kind"> & { kind: ValueKind<T> },
): OptionSpec<T | undefined> {
  return { ...spec, default: undefined } as OptionSpec<T | undefined>;
}

/** `KEEL_` + upper-cased name with `.` and `-` as `_` (the execution client's scheme). */
export function envSuffixOf(name: string): string {
  return name.toUpperCase().replace(/[.-]/g, "_");
}

/** Full environment variable name of an entry. */
export function envName(spec: AnyOption): string {
  return `${ENV_PREFIX}${spec.env}`;
}

/** The default printed the way the flag accepts it ("" when there is none). */
export function formatDefault(spec: AnyOption): string {
  return spec.default === undefined ? "" : spec.kind.format(spec.default);
}

/** The flag of an option: `--name`. */
export function flagOf(spec: AnyOption): string {
  return `--${spec.name}`;
}

/** `--flag (env KEEL_X)` */
export function label(spec: AnyOption): string {
  return `${flagOf(spec)} (env ${envName(spec)})`;
}
