/**
 * The dev chain's option rules (`keel execution --dev`), as anvil checks its own: the state files
 * (--load-state, --dump-state, --state), fork mode (--dev.fork-url), the code size limits and
 * --dev.no-mining against --dev.period.
 */
import { ConfigError, quote } from "./errors.ts";
import { type AnyOption, envName, flagOf, label } from "./option.ts";
import { EXECUTION_OPTION_TABLE } from "./options/mod.ts";
import type { Resolution } from "./parse.ts";

/** Every dev-chain rule of the `execution` command's resolved options. */
export function checkDevOptions(r: Resolution<typeof EXECUTION_OPTION_TABLE>): void {
  checkDevState(r);
  checkDevFork(r);
  checkDevEvm(r);
}

/** anvil's rules for its state files: dev mode only; `--state` is both of the others. */
function checkDevState(r: Resolution<typeof EXECUTION_OPTION_TABLE>): void {
  const t = EXECUTION_OPTION_TABLE;
  const v = r.values;
  for (const key of ["loadState", "dumpState", "state"] as const) {
    if (v[key] === undefined) continue;
    const spec = t[key];
    if (!v.dev) {
      throw new ConfigError(
        "CONFIG_CONFLICT",
        `${label(spec)} = ${quote(r.given[key])} needs ${label(t.dev)}: state dumps are a dev chain's`,
        {
          flag: flagOf(spec),
          env: envName(spec),
          value: r.given[key],
          form: "with --dev",
          other: flagOf(t.dev),
        },
      );
    }
    if (key !== "state" && v.state !== undefined) {
      throw new ConfigError(
        "CONFIG_CONFLICT",
        `${label(spec)} = ${quote(r.given[key])} and ${label(t.state)} = ${quote(r.given.state)} exclude ` +
          `each other: --state is --load-state and --dump-state with one file`,
        {
          flag: flagOf(spec),
          env: envName(spec),
          value: r.given[key],
          form: "only one",
          other: flagOf(t.state),
        },
      );
    }
  }
}

/** anvil's code size options (dev mode only, one or the other) and --no-mining against --block-time. */
function checkDevEvm(r: Resolution<typeof EXECUTION_OPTION_TABLE>): void {
  const t = EXECUTION_OPTION_TABLE;
  const v = r.values;
  // anvil: --disable-code-size-limit conflicts_with --code-size-limit; both change the EVM of a dev chain.
  for (const key of ["devCodeSizeLimit", "devDisableCodeSizeLimit"] as const) {
    if (v[key] === undefined || v[key] === false || v.dev) continue;
    throw new ConfigError(
      "CONFIG_CONFLICT",
      `${label(t[key])} = ${quote(r.given[key])} needs ${
        label(t.dev)
      }: a chain that changes the EVM's size limits ` +
        `leaves the protocol, which only a dev chain may`,
      {
        flag: flagOf(t[key]),
        env: envName(t[key]),
        value: r.given[key],
        form: "with --dev",
        other: flagOf(t.dev),
      },
    );
  }
  if (v.devCodeSizeLimit !== undefined && v.devDisableCodeSizeLimit) {
    throw new ConfigError(
      "CONFIG_CONFLICT",
      `${label(t.devCodeSizeLimit)} = ${quote(r.given.devCodeSizeLimit)} and ${
        label(t.devDisableCodeSizeLimit)
      } ` +
        `exclude each other: one limit, or none`,
      {
        flag: flagOf(t.devDisableCodeSizeLimit),
        env: envName(t.devDisableCodeSizeLimit),
        value: "true",
        form: "only one",
        other: flagOf(t.devCodeSizeLimit),
      },
    );
  }
  // anvil refuses --no-mining with --block-time likewise: one mines on a timer, the other never.
  if (v.devNoMining && v.devPeriod > 0) {
    throw new ConfigError(
      "CONFIG_CONFLICT",
      `${label(t.devNoMining)} and ${label(t.devPeriod)} = ${v.devPeriod} exclude each other: ` +
        `no block on its own, or one every ${v.devPeriod} seconds`,
      {
        flag: flagOf(t.devNoMining),
        env: envName(t.devNoMining),
        value: "true",
        form: "only one",
        other: flagOf(t.devPeriod),
      },
    );
  }
}

/**
 * Fork mode (anvil's --fork-url): dev mode only; the chain is in memory (nothing of another node's
 * chain is kept on disk) and starts at the remote's block, so the options that make a new genesis
 * cannot be given with it.
 */
function checkDevFork(r: Resolution<typeof EXECUTION_OPTION_TABLE>): void {
  const t = EXECUTION_OPTION_TABLE;
  const v = r.values;
  const given = (key: string) => r.sources[key] === "flag" || r.sources[key] === "env";
  const conflict = (spec: AnyOption, value: string, why: string, other: AnyOption, form = "only one") =>
    new ConfigError("CONFIG_CONFLICT", why, {
      flag: flagOf(spec),
      env: envName(spec),
      value,
      form,
      other: flagOf(other),
    });
  if (v.devForkBlockNumber !== undefined && v.devForkUrl === undefined) {
    throw conflict(
      t.devForkBlockNumber,
      r.given.devForkBlockNumber,
      `${label(t.devForkBlockNumber)} = ${quote(r.given.devForkBlockNumber)} needs ${
        label(t.devForkUrl)
      }: the block of which chain?`,
      t.devForkUrl,
      "with --dev.fork-url",
    );
  }
  if (v.devForkUrl === undefined) return;
  const url = "<redacted>";
  if (!v.dev) {
    throw conflict(
      t.devForkUrl,
      url,
      `${label(t.devForkUrl)} needs ${label(t.dev)}: a fork is a dev chain`,
      t.dev,
      "with --dev",
    );
  }
  for (const key of ["datadir", "genesis", "devTimestamp", "devBaseFee", "devGasLimit"] as const) {
    if (!given(key)) continue;
    throw conflict(
      t[key],
      r.given[key],
      `${label(t.devForkUrl)} and ${label(t[key])} exclude each other: ` +
        (key === "datadir" ? "a forked chain is kept in memory" : "the forked block sets the chain's start"),
      t.devForkUrl,
    );
  }
  try {
    const u = new URL(v.devForkUrl);
    if (!["http:", "https:", "ws:", "wss:"].includes(u.protocol)) throw new Error(u.protocol);
  } catch {
    throw new ConfigError(
      "CONFIG_INVALID_VALUE",
      `invalid value for ${label(t.devForkUrl)}: expected an http(s):// or ws(s):// URL`,
      { flag: flagOf(t.devForkUrl), env: envName(t.devForkUrl), value: url, form: "an http(s) or ws(s) URL" },
    );
  }
}
