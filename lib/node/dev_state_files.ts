/**
 * anvil's state files for `keel execution --dev`: `--load-state FILE` applies a state dump at start,
 * `--dump-state FILE` writes the state as anvil's JSON when the node stops, `--state FILE` does both with
 * one file (loading only when it exists). The file is anvil's `--dump-state` JSON (or anvil_dumpState's
 * gzip-compressed form): a dump of either node loads into the other.
 */
import type { Logger } from "@logtape/logtape";
import { BaseError } from "../common/errors.ts";
import { pathExists } from "../common/files.ts";
import type { ExecutionOptions } from "../config/mod.ts";
import { type DevChain, type DevMining, dumpState, loadState } from "../execution/rpc/mod.ts";
import { tempFileOf } from "./permissions.ts";

/** The file to load at start, if any (`--load-state`, or `--state` when its file exists). */
export async function stateFileToLoad(options: ExecutionOptions): Promise<string | undefined> {
  if (options.loadState !== undefined) return options.loadState;
  if (options.state !== undefined && await pathExists(options.state)) return options.state;
  return undefined;
}

/** Applies the dump in `path` to the dev chain's head; a missing or bad file stops the start. */
export async function loadStateFile(
  chain: DevChain,
  miner: Pick<DevMining, "exclusive">,
  path: string,
  log: Logger,
): Promise<void> {
  try {
    const accounts = await loadState(chain, miner, await Deno.readFile(path));
    log.info("Loaded a state dump", { path, accounts });
  } catch (cause) {
    throw new BaseError("DEV_STATE_FILE", `Cannot load state from ${path}: ${(cause as Error).message}`, {
      cause,
      meta: { path },
    });
  }
}

/**
 * Writes the dev chain's state to `path` as anvil's JSON dump: into a file beside it first, renamed over
 * `path` once complete, so that a stop cut short never leaves half a dump in place of the last one.
 */
export async function dumpStateFile(chain: DevChain, path: string, log: Logger): Promise<void> {
  const state = await dumpState(chain);
  const tmp = tempFileOf(path);
  await Deno.writeTextFile(tmp, JSON.stringify(state));
  await Deno.rename(tmp, path);
  log.info("Wrote a state dump", { path, accounts: Object.keys(state.accounts).length });
}
