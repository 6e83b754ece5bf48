/**
 * What `main.ts` calls for `keel node`, `keel execution` and `keel execution init`. Kept apart from
 * the role modules so the supervising main thread loads only the launcher: the roles themselves
 * load inside the node Worker (each copy of the code costs memory).
 */
import {
  devChainInMemory,
  type DevnetOptions,
  type ExecutionOptions,
  type ParsedBatcher,
  type ParsedDaServer,
  type ParsedExecution,
  type ParsedNode,
} from "../config/mod.ts";
import { dirname } from "node:path";
import { type LaunchHooks, launchRole } from "./launcher.ts";
import { tempFileOf } from "./permissions.ts";
import { ensureDir, readJsonFile } from "./files.ts";
import { lockFileOf } from "../db/sqlite_store.ts";

function executionWrites(o: ExecutionOptions): (string | undefined)[] {
  // A state dump is written beside its file first, then renamed over it (dev_state_files.ts).
  const dumps = [o.dumpState, o.state].flatMap((p) => p === undefined ? [] : [p, tempFileOf(p)]);
  return [o.authrpcJwtSecret, o.pprofPath, ...dumps];
}

/** `keel node`: the rollup node with its embedded (or an external) execution engine. */
export async function runNode(parsed: ParsedNode, hooks?: LaunchHooks): Promise<void> {
  const { options, execution, sources } = parsed;
  await launchRole({ role: "node", options, execution, sources }, {
    dataDir: execution.datadir,
    write: [
      ...executionWrites(execution),
      options.l2JwtSecret,
      options.pprofPath,
      options.rpcAdminState,
      options.safedbPath,
      // Its writer's lock beside it (sqlite's own -wal and -shm are opened by sqlite, not checked).
      options.safedbPath === undefined ? undefined : lockFileOf(options.safedbPath),
      options.snapshotLogFile,
      options.p2pPrivPath,
      options.p2pPeerstorePath === "memory" ? undefined : options.p2pPeerstorePath,
      options.p2pDiscoveryPath === "memory" ? undefined : options.p2pDiscoveryPath,
    ],
    read: [
      options.rollupConfig,
      execution.genesis,
      execution.loadState,
      options.interopDependencySet,
      // The remote signer's TLS files, and their folders (watched for rotated certificates).
      ...signerTlsReads(options),
    ],
  }, hooks);
}

function signerTlsReads(o: ParsedNode["options"]): string[] {
  if (o.signerEndpoint === undefined || !o.signerTlsEnabled) return [];
  const files = [o.signerTlsCa, o.signerTlsCert, o.signerTlsKey];
  return [...files, ...files.map((f) => dirname(f))];
}

/** `keel execution`: the execution client alone. */
export async function runExecution(
  options: ExecutionOptions,
  sources: ParsedExecution["sources"] = {},
  hooks?: LaunchHooks,
): Promise<void> {
  await launchRole({ role: "execution", options, sources }, {
    // An in-memory dev chain writes nothing there: the folder is not even made.
    dataDir: devChainInMemory(options, sources) ? undefined : options.datadir,
    write: executionWrites(options),
    read: [options.genesis, options.loadState],
  }, hooks);
}

/** `keel devnet`: the L1 dev chain, the L2 sequencer with its batcher and the L2 verifier, in one Worker. */
export async function runDevnet(options: DevnetOptions, hooks?: LaunchHooks): Promise<void> {
  await ensureDir(options.datadir, "the devnet's data dir (--datadir)");
  await launchRole({ role: "devnet", options }, { dataDir: options.datadir, write: [], read: [] }, hooks);
}

/** `keel da-server`: an Alt-DA server; its inputs are kept in --file.path. */
export async function runDaServer(options: ParsedDaServer["options"], hooks?: LaunchHooks): Promise<void> {
  await ensureDir(options.filePath, "the DA server's folder (--file.path)");
  await launchRole({ role: "da-server", options }, { dataDir: options.filePath }, hooks);
}

/** `keel batcher`: the batch submitter alone; it keeps no files. */
export async function runBatcher(options: ParsedBatcher["options"], hooks?: LaunchHooks): Promise<void> {
  await launchRole({ role: "batcher", options }, {}, hooks);
}

/** `keel execution init --datadir D genesis.json`: like `geth init`; prints the genesis hash. */
export async function initExecution(datadir: string, genesisPath: string): Promise<Uint8Array> {
  const [{ bytesToHex }, { initGenesis, parseJsonExact }, { SqliteStore }] = await Promise.all([
    import("../common/bytes.ts"),
    import("../execution/mod.ts"),
    import("../db/mod.ts"),
  ]);
  const genesis = await readJsonFile(genesisPath, "genesis", parseJsonExact) as Parameters<
    typeof initGenesis
  >[1];
  const store = SqliteStore.openDataDir(datadir);
  try {
    const hash = await initGenesis(store, genesis);
    console.log(`keel: initialised ${datadir} with genesis ${bytesToHex(hash)}`);
    return hash;
  } finally {
    store.close();
  }
}

/** The engine of an existing data dir (export and import create nothing where there is no chain). */
async function openExisting(datadir: string) {
  const [{ ExecutionEngine }, { DB_FILE_NAME }, { BaseError }] = await Promise.all([
    import("../execution/engine/mod.ts"),
    import("../db/mod.ts"),
    import("../common/errors.ts"),
  ]);
  try {
    await Deno.stat(`${datadir.replace(/\/+$/, "")}/${DB_FILE_NAME}`);
  } catch {
    throw new BaseError(
      "NO_CHAIN",
      `Cannot open ${datadir}: it holds no chain; run \`keel execution init\` first`,
    );
  }
  return await ExecutionEngine.open({ dataDir: datadir });
}

/** `keel execution export`: the canonical blocks `first`..`last` of the data dir's chain into `file`. */
export async function exportExecution(
  datadir: string,
  file: string,
  first?: bigint,
  last?: bigint,
): Promise<number> {
  const { exportChain } = await import("../execution/engine/mod.ts");
  const engine = await openExisting(datadir);
  try {
    const n = await exportChain(engine, file, first, last);
    console.log(`keel: exported ${n} blocks to ${file}`);
    return n;
  } finally {
    await engine.close();
  }
}

/** `keel execution import`: the blocks of `files`, in order, validated and made the data dir's chain. */
export async function importExecution(datadir: string, files: string[]): Promise<void> {
  const { importChain } = await import("../execution/engine/mod.ts");
  const engine = await openExisting(datadir);
  try {
    for (const file of files) {
      const started = performance.now();
      const r = await importChain(engine, file);
      const s = ((performance.now() - started) / 1000).toFixed(1);
      console.log(
        `keel: imported ${r.imported} blocks from ${file} (${r.skipped} already known) in ${s} s; head ${r.head}`,
      );
    }
  } finally {
    await engine.close();
  }
}

/**
 * `keel execution prune`: the state of the last `recent` canonical blocks (and of the safe and finalized
 * blocks) kept, every other trie node and code row deleted, the file compacted (state/prune.ts).
 */
export async function pruneExecution(datadir: string, recent: number): Promise<void> {
  const [{ pruneState }, { SqliteStore }] = await Promise.all([
    import("../execution/state/prune.ts"),
    import("../db/mod.ts"),
  ]);
  const engine = await openExisting(datadir);
  try {
    const head = engine.head().header.number;
    const { from, roots } = engine.keptStates(recent);
    const store = engine.store;
    const before = store instanceof SqliteStore ? store.sizeBytes() : 0;
    const started = performance.now();
    const r = pruneState(store, roots);
    const mib = (b: number) => (b / 1024 / 1024).toFixed(1);
    let space = "";
    if (store instanceof SqliteStore) {
      space = store.vacuum()
        ? `; the file ${mib(before)} -> ${mib(store.sizeBytes())} MiB`
        : `; ${
          mib(store.freeBytes())
        } MiB free inside the file, reused by new blocks (sqlite cannot compact ` +
          `under keel's permission set)`;
    }
    console.log(
      `keel: pruned the state of ${datadir} to blocks ${from}..${head}: ` +
        `${r.deleted} trie nodes and ${r.codesDeleted} codes deleted, ${r.kept} nodes and ${r.codesKept} codes kept` +
        `${space} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
  } finally {
    await engine.close();
  }
}
