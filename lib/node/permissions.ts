/**
 * keel's permission model.
 *
 * The process runs under one fixed set, kept in deno.json `"permissions": {"keel": ...}` (used by
 * `deno task node` through `-P=keel`, and baked into the binary by scripts/compile.ts, which reads
 * it from there). Flags are fixed at compile time, but op-node's file options (`--datadir`,
 * `p2p.priv.path`, `safedb.path`, `l2.jwt-secret`, `pprof.path`, ...) are chosen at run time, so
 * the process-wide file grant stays broad and the node runs in a Worker whose file access is
 * exactly the resolved paths of its options (`nodeWorkerPermissions`). The main thread parses
 * options and starts the Worker; the Worker can write nowhere else.
 *
 * Facts measured on Deno 2.9.6 (PLATFORM.md, "Permissions"):
 * - a process cannot narrow its own grants, but a Worker can get a subset (`--unstable-worker-options`);
 * - grants are lexical: a symlink inside a granted folder is followed, so paths are realpath'd here;
 * - `node:inspector` (CPU and sampling heap profiles) needs unscoped `--allow-sys`;
 * - `debug` and `supports-color` enumerate the environment at import: `--ignore-env` makes the
 *   variables outside `KEEL_*` read as absent instead of throwing.
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import { BaseError } from "../common/errors.ts";
import { ensureDir } from "./files.ts";

/** One permission as deno.json's permission sets write it. */
export type PermissionValue =
  | boolean
  | string[]
  | { allow?: boolean | string[]; deny?: boolean | string[]; ignore?: boolean | string[] };

/** A permission set from deno.json `"permissions"`. */
export interface PermissionSet {
  read?: PermissionValue;
  write?: PermissionValue;
  net?: PermissionValue;
  env?: PermissionValue;
  sys?: PermissionValue;
  run?: PermissionValue;
  ffi?: PermissionValue;
  import?: PermissionValue;
}

/** The name of keel's set in deno.json. */
export const KEEL_PERMISSION_SET = "keel";

/**
 * V8 heap tuning, as geth tunes Go's GC for its cache: a 4 MiB young-generation semi-space and
 * an old generation that grows by 25% over the live heap after a full GC (V8 otherwise lets it
 * grow up to 4x when the mutator is fast). `keel execution --dev` after 100,000 mined transfers:
 * peak RSS 688 -> 477 MiB at the same rate (1,146 vs 1,106 tx/s); after 30,000: 480 -> 345 MiB
 * (measured). The live heap stays under 100 MiB; this only collects garbage sooner.
 */
export const KEEL_V8_FLAGS = "--v8-flags=--max-semi-space-size=4,--heap-growing-percent=25";

/**
 * Flags the binary is compiled with besides the permission set (narrower Worker permissions, the
 * heap tuning); the deno.json tasks that run keel pass the same (tests/unit/node/permissions_test.ts).
 */
export const KEEL_RUNTIME_FLAGS = ["--unstable-worker-options", KEEL_V8_FLAGS] as const;

const PERMISSION_ORDER = ["read", "write", "net", "env", "sys", "run", "ffi", "import"] as const;

function flag(
  kind: string,
  prefix: "allow" | "deny" | "ignore",
  value: boolean | string[] | undefined,
): string[] {
  if (value === undefined) return [];
  if (value === true) return [`--${prefix}-${kind}`];
  if (value === false) return prefix === "allow" ? [`--deny-${kind}`] : [];
  if (value.length === 0) return prefix === "allow" ? [`--deny-${kind}`] : [];
  return [`--${prefix}-${kind}=${value.join(",")}`];
}

/**
 * The `deno run` / `deno compile` flags of a deno.json permission set: `true` → `--allow-x`,
 * `false` → `--deny-x`, a list → `--allow-x=a,b`, and the `{allow, deny, ignore}` form.
 */
export function permissionSetToFlags(set: PermissionSet): string[] {
  const flags: string[] = [];
  for (const kind of PERMISSION_ORDER) {
    const value = set[kind];
    if (value === undefined) continue;
    if (typeof value === "boolean" || Array.isArray(value)) {
      flags.push(...flag(kind, "allow", value));
      continue;
    }
    flags.push(...flag(kind, "allow", value.allow));
    flags.push(...flag(kind, "deny", value.deny));
    flags.push(...flag(kind, "ignore", value.ignore));
  }
  return flags;
}

/** Reads the named permission set out of a parsed deno.json. */
export function permissionSetFromConfig(config: unknown, name = KEEL_PERMISSION_SET): PermissionSet {
  const sets = (config as { permissions?: Record<string, unknown> } | null)?.permissions;
  const set = sets?.[name];
  if (set === undefined || set === null || typeof set !== "object") {
    throw new BaseError(
      "PERMISSION_SET_MISSING",
      `Cannot find permission set "${name}" in deno.json "permissions"`,
    );
  }
  return set as PermissionSet;
}

/** File paths the node reads or writes, from its options; absent entries are ignored. */
export interface NodeFilePaths {
  /** The data directory: read and write, created if missing (none for a role without state: the batcher). */
  dataDir?: string;
  /** Further files or folders written at run time (p2p key, peerstore, safedb, JWT secret to generate, pprof.path). */
  write?: (string | undefined)[];
  /** Files only read (rollup.config, an existing JWT secret, dependency set). */
  read?: (string | undefined)[];
}

/** Resolved, symlink-free file grants for the node Worker. */
export interface NodeFileGrants {
  read: string[];
  write: string[];
}

/**
 * The realpath of `path` when it exists; otherwise the realpath of its nearest existing parent
 * joined with the rest, so a file created later is granted by the name it will have.
 */
export async function resolveGrantPath(path: string, cwd = Deno.cwd()): Promise<string> {
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  const rest: string[] = [];
  let current = absolute;
  while (true) {
    try {
      const real = await Deno.realPath(current);
      return rest.length === 0 ? real : join(real, ...rest.reverse());
    } catch (err) {
      if (err instanceof Deno.errors.NotADirectory) {
        throw new BaseError(
          "NOT_A_DIRECTORY",
          `Cannot use ${path}: a folder on its path is a file and not a directory`,
          { cause: err, meta: { path } },
        );
      }
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      const parent = dirname(current);
      if (parent === current) return absolute;
      rest.push(current.slice(parent.length).replace(/^\/+/, ""));
      current = parent;
    }
  }
}

/**
 * Where a file at `path` is written first, to be renamed over `path` once complete (a state dump:
 * dev_state_files.ts); the node Worker's grants name both.
 */
export function tempFileOf(path: string): string {
  return `${path}.tmp`;
}

/**
 * Creates the data directory and resolves every path the node will touch. Call on the main
 * thread, before starting the node Worker with `nodeWorkerPermissions(grants)`.
 */
export async function resolveNodeFileGrants(paths: NodeFilePaths, cwd = Deno.cwd()): Promise<NodeFileGrants> {
  const write: string[] = [];
  if (paths.dataDir !== undefined) {
    const dataDirAbs = isAbsolute(paths.dataDir) ? paths.dataDir : resolve(cwd, paths.dataDir);
    await ensureDir(dataDirAbs, "the data directory");
    write.push(await Deno.realPath(dataDirAbs));
  }
  for (const p of paths.write ?? []) if (p) write.push(await resolveGrantPath(p, cwd));
  const read = [...write];
  for (const p of paths.read ?? []) if (p) read.push(await resolveGrantPath(p, cwd));
  return { read: [...new Set(read)], write: [...new Set(write)] };
}

/**
 * The permissions of the node Worker: file access exactly `grants`; network unscoped (peers
 * are dialled at arbitrary addresses); system info (listening on 0.0.0.0 and node:inspector for
 * pprof); the environment as the process has it (KEEL_* only); no subprocesses, FFI or remote imports.
 */
export function nodeWorkerPermissions(grants: NodeFileGrants): Deno.PermissionOptionsObject {
  return {
    read: grants.read,
    write: grants.write,
    net: true,
    env: "inherit",
    sys: true,
    run: false,
    ffi: false,
    import: false,
  };
}

/**
 * Starts `moduleUrl` as a module Worker with the given permissions (needs
 * `--unstable-worker-options`, which the binary bakes in).
 */
export function startRestrictedWorker(
  moduleUrl: URL,
  permissions: Deno.PermissionOptionsObject,
  name = "keel-node",
): Worker {
  return new Worker(moduleUrl, { type: "module", name, deno: { permissions } } as WorkerOptions);
}

const ACCESS_VERB: Record<string, string> = {
  read: "read",
  write: "write",
  net: "connect to",
  env: "read environment variable",
  sys: "read system information",
  run: "run",
  ffi: "load native library",
  import: "import",
};

/**
 * One clear line for a permission refusal, or undefined when `err` is not one. `allowed` lists
 * the granted paths (or variables) to name in the message.
 *
 * `keel: cannot write /etc/x: outside the allowed paths (/var/lib/keel)`
 */
export function formatPermissionError(err: unknown, allowed: readonly string[] = []): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const notCapable = err instanceof Deno.errors.NotCapable;
  const denied = err instanceof Deno.errors.PermissionDenied;
  if (!notCapable && !denied) return undefined;
  const match = /Requires (\w+) access to "?([^"]*?)"?(?:,|$)/.exec(err.message);
  if (denied && !match) {
    return `keel: permission denied by the operating system: ${err.message}`;
  }
  if (!match) return `keel: not allowed: ${err.message}`;
  const [, kind, target] = match;
  const verb = ACCESS_VERB[kind] ?? `use ${kind}`;
  const list = allowed.length > 0 ? ` (${allowed.join(", ")})` : "";
  switch (kind) {
    case "read":
    case "write":
      return `keel: cannot ${verb} ${target}: outside the allowed paths${list}`;
    case "env":
      return `keel: cannot ${verb} ${target}: only KEEL_* variables are readable`;
    case "run":
      return `keel: cannot ${verb} ${target}: keel never starts subprocesses`;
    case "ffi":
      return `keel: cannot ${verb} ${target}: keel never loads native libraries`;
    default:
      return `keel: cannot ${verb} ${target}: not in keel's permission set${list}`;
  }
}
