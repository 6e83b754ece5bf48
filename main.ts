/**
 * The keel CLI: `keel node`, `keel execution` (and `execution init`), `keel networks`,
 * `keel --version`, `keel --help`. The only file that reads `Deno.args` and the environment;
 * everything below it gets plain options objects.
 *
 * Bad input prints one line and exits with status 2 before anything starts (issue 2, part 2).
 */
import {
  CONFIG_EXIT_CODE,
  ConfigError,
  DEVNET_OPTION_TABLE,
  envName,
  helpText,
  keelVersion,
  NODE_COMMAND_TABLE,
  parseArgs,
  type ParsedCommand,
} from "./lib/config/mod.ts";
import { listNetworks } from "./networks/mod.ts";

/**
 * The `KEEL_*` variables the option tables know. The process may only read `KEEL_*`
 * (`--allow-env=KEEL_*`), so each known name is read on its own and a refusal counts as unset.
 */
export function readKeelEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const spec of [...Object.values(NODE_COMMAND_TABLE), ...Object.values(DEVNET_OPTION_TABLE)]) {
    const name = envName(spec);
    try {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    } catch {
      // Not permitted: treated as unset.
    }
  }
  return env;
}

/** The table `keel networks` prints: name, chain id, L1 chain id, block time, aliases. */
export function networksTable(): string {
  const rows = listNetworks().map((n) => [
    n.name,
    n.chainId.toString(),
    n.l1ChainId.toString(),
    `${n.blockTime}s`,
    n.aliases.join(","),
  ]);
  const header = ["NAME", "CHAIN ID", "L1 CHAIN ID", "BLOCK TIME", "ALIASES"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

async function run(parsed: ParsedCommand): Promise<number> {
  switch (parsed.command) {
    case "help":
      console.log(helpText(parsed.topic));
      return 0;
    case "version":
      console.log(keelVersion());
      return 0;
    case "networks":
      console.log(networksTable());
      return 0;
    case "node": {
      // Loaded only when a role runs, so --help and --version stay fast.
      const { runNode } = await import("./lib/node/run.ts");
      await runNode(parsed);
      return 0;
    }
    case "execution": {
      const { runExecution } = await import("./lib/node/run.ts");
      await runExecution(parsed.options, parsed.sources);
      return 0;
    }
    case "devnet": {
      const { runDevnet } = await import("./lib/node/run.ts");
      await runDevnet(parsed.options);
      return 0;
    }
    case "batcher": {
      const { runBatcher } = await import("./lib/node/run.ts");
      await runBatcher(parsed.options);
      return 0;
    }
    case "da-server": {
      const { runDaServer } = await import("./lib/node/run.ts");
      await runDaServer(parsed.options);
      return 0;
    }
    case "execution-init": {
      const { initExecution } = await import("./lib/node/run.ts");
      await initExecution(parsed.datadir, parsed.genesisPath);
      return 0;
    }
    case "execution-export": {
      const { exportExecution } = await import("./lib/node/run.ts");
      await exportExecution(parsed.datadir, parsed.file, parsed.first, parsed.last);
      return 0;
    }
    case "execution-import": {
      const { importExecution } = await import("./lib/node/run.ts");
      await importExecution(parsed.datadir, parsed.files);
      return 0;
    }
    case "execution-prune": {
      const { pruneExecution } = await import("./lib/node/run.ts");
      await pruneExecution(parsed.datadir, parsed.recent);
      return 0;
    }
  }
}

/** Runs the CLI for `argv` and `env`; returns the exit status. */
export async function main(argv: readonly string[], env: Readonly<Record<string, string>>): Promise<number> {
  let parsed: ParsedCommand;
  try {
    parsed = parseArgs(argv, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`keel: ${err.message}`);
      return CONFIG_EXIT_CODE;
    }
    throw err;
  }
  return await run(parsed);
}

if (import.meta.main) {
  let status: number;
  try {
    status = await main(Deno.args, readKeelEnv());
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`keel: ${err.message}`);
      status = CONFIG_EXIT_CODE;
    } else {
      console.error(`keel: ${err instanceof Error ? err.message : String(err)}`);
      status = 1;
    }
  }
  Deno.exit(status);
}
