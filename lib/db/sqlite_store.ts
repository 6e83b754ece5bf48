/**
 * KvStore over the built-in `node:sqlite` (`DatabaseSync`): one file per data dir
 * (`<datadir>/keel.sqlite`), one `kv` table of BLOB keys and values, prepared statements cached.
 *
 * Durability: WAL journal with `synchronous=NORMAL` by default. In WAL mode a commit is in the
 * WAL file once COMMIT returns, so it survives the process being killed (kill -9, a crash), which
 * is what keel promises; only an OS crash or power loss can lose the last commits (never corrupt
 * the file). `synchronous: "FULL"` fsyncs the WAL on every commit to survive power loss too, at
 * a large cost per block.
 *
 * The schema version lives in the kv table under PREFIXES.meta; a file written by a newer keel
 * is refused with DB_SCHEMA_TOO_NEW rather than misread.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { BaseError } from "../common/errors.ts";
import { BaseKvStore } from "./kv_store.ts";
import { prefixedKey, PREFIXES } from "./prefixes.ts";

/** File name of the database inside a data dir. */
export const DB_FILE_NAME = "keel.sqlite";
/** Version of the key layout (lib/db/prefixes.ts and the value encodings of its users). */
export const SCHEMA_VERSION = 1;
const SCHEMA_KEY = prefixedKey(PREFIXES.meta, new TextEncoder().encode("schema_version"));

export interface SqliteStoreOptions {
  /** Open without write access (a second process may read while one writes). */
  readOnly: boolean;
  /** NORMAL survives a process kill; FULL also survives power loss (slower). */
  synchronous: "NORMAL" | "FULL";
  /** sqlite page cache in KiB. */
  cacheSizeKiB: number;
  /** How long to wait for another connection's lock, in ms. */
  busyTimeoutMs: number;
  /**
   * WAL pages after which a commit copies the WAL into the database file (sqlite's wal_autocheckpoint).
   * Each checkpoint also syncs the file, a cost of its own: sqlite's default of 1,000 pages checkpointed
   * after nearly every block of 1,000 transfers (a block's write group is ~1,000 pages).
   */
  walCheckpointPages: number;
}

export const DEFAULT_SQLITE_STORE_OPTIONS: SqliteStoreOptions = {
  readOnly: false,
  // WAL + NORMAL: commits survive kill -9 (issue 3, part 5); see the file comment.
  synchronous: "NORMAL",
  // 64 MiB: the trie's hot nodes stay in memory (PLATFORM.md read rates are with a warm cache).
  cacheSizeKiB: 65536,
  busyTimeoutMs: 5000,
  // Measured (scripts/bench_block.ts, 1,000 transfers a block): a commit took 15-26 ms with a checkpoint
  // nearly every block at 1,000 pages; at 10,000 pages (~40 MiB of WAL) 4-6 ms, and 40 ms for the
  // checkpoint every ~20 blocks.
  walCheckpointPages: 10_000,
};

/** The lock file of the database at `path` (a writer's file grants name it with the database). */
export function lockFileOf(path: string): string {
  return `${path}.lock`;
}

/**
 * One writer per database file (geth's datadir LOCK): an exclusive flock on `<path>.lock`, held while
 * the store is open and released by the operating system when the process ends however it ends, so a
 * second node on the same data dir (in this process or another) stops with a clear error instead of
 * writing the same chain at once. Read-only opens (the state-root worker) take no lock.
 */
function lockDatabase(path: string): Deno.FsFile {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(lockFileOf(path), { write: true, create: true });
  } catch (cause) {
    throw new BaseError("DB_OPEN_FAILED", `Cannot open database ${path}: ${(cause as Error).message}`, {
      cause,
      meta: { path },
    });
  }
  if (!file.tryLockSync(true)) {
    file.close();
    throw new BaseError(
      "DB_IN_USE",
      `Cannot open database ${path}: it is in use by another keel (one node per data dir; stop the other first)`,
      { meta: { path } },
    );
  }
  return file;
}

/** The WAL file is cut back to this size after a checkpoint resets it (sqlite's journal_size_limit). */
const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

type Row = [Uint8Array, Uint8Array];

export class SqliteStore extends BaseKvStore {
  readonly path: string;
  #db: DatabaseSync;
  #get: StatementSync;
  #put: StatementSync;
  #del: StatementSync;
  #iter = new Map<string, StatementSync>();
  /** The open `<path>.lock` whose exclusive lock this writer holds (lockDatabase). */
  #lock: Deno.FsFile | undefined;

  private constructor(path: string, db: DatabaseSync) {
    super();
    this.path = path;
    this.#db = db;
    this.#get = db.prepare("SELECT v FROM kv WHERE k = ?");
    returnArrays(this.#get);
    this.#put = db.prepare("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)");
    this.#del = db.prepare("DELETE FROM kv WHERE k = ?");
  }

  /** Opens (creating if needed, unless read-only) the database file at `path`. */
  static open(path: string, options: Partial<SqliteStoreOptions> = {}): SqliteStore {
    const opts = { ...DEFAULT_SQLITE_STORE_OPTIONS, ...options };
    const lock = opts.readOnly || path === ":memory:" ? undefined : lockDatabase(path);
    let db: DatabaseSync;
    try {
      // Typed loosely on purpose: when an npm package brings its own @types/node, `deno check` of the
      // whole tree sees an older node:sqlite declaration that lacks `readOnly` and `isTransaction`.
      db = new DatabaseSync(
        path,
        { readOnly: opts.readOnly } as ConstructorParameters<typeof DatabaseSync>[1],
      );
    } catch (cause) {
      lock?.close();
      throw new BaseError("DB_OPEN_FAILED", `Cannot open database ${path}: ${(cause as Error).message}`, {
        cause,
        meta: { path },
      });
    }
    try {
      db.exec(`PRAGMA busy_timeout = ${Math.trunc(opts.busyTimeoutMs)}`);
      if (!opts.readOnly) {
        db.exec("PRAGMA journal_mode = WAL");
        db.exec(`PRAGMA synchronous = ${opts.synchronous === "FULL" ? "FULL" : "NORMAL"}`);
        db.exec(`PRAGMA wal_autocheckpoint = ${Math.trunc(opts.walCheckpointPages)}`);
        db.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
        db.exec("CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY NOT NULL, v BLOB NOT NULL) WITHOUT ROWID");
      }
      db.exec(`PRAGMA cache_size = -${Math.trunc(opts.cacheSizeKiB)}`);
      const store = new SqliteStore(path, db);
      store.#lock = lock;
      store.#checkSchema(opts.readOnly);
      return store;
    } catch (err) {
      db.close();
      lock?.close();
      if (err instanceof BaseError) throw err;
      throw new BaseError("DB_OPEN_FAILED", `Cannot open database ${path}: ${(err as Error).message}`, {
        cause: err,
        meta: { path },
      });
    }
  }

  /** Opens `<datadir>/keel.sqlite`, creating the directory when writable. */
  static openDataDir(datadir: string, options: Partial<SqliteStoreOptions> = {}): SqliteStore {
    if (options.readOnly !== true) Deno.mkdirSync(datadir, { recursive: true });
    return SqliteStore.open(`${datadir.replace(/\/+$/, "")}/${DB_FILE_NAME}`, options);
  }

  #checkSchema(readOnly: boolean): void {
    const raw = this.rawGet(SCHEMA_KEY);
    if (raw === undefined) {
      if (readOnly) {
        throw new BaseError(
          "DB_SCHEMA_MISSING",
          `Cannot open database ${this.path}: it has no schema version`,
        );
      }
      this.rawPut(SCHEMA_KEY, encodeVersion(SCHEMA_VERSION));
      return;
    }
    const version = decodeVersion(raw);
    if (version > SCHEMA_VERSION) {
      throw new BaseError(
        "DB_SCHEMA_TOO_NEW",
        `Cannot open database ${this.path}: schema version ${version} is newer than this keel supports (${SCHEMA_VERSION})`,
        { meta: { path: this.path, version, supported: SCHEMA_VERSION } },
      );
    }
  }

  /** The schema version recorded in the file. */
  schemaVersion(): number {
    const raw = this.get(SCHEMA_KEY);
    return raw === undefined ? 0 : decodeVersion(raw);
  }

  /**
   * Rewrites the file without its free pages (sqlite VACUUM): the space deletes freed goes back to the
   * disk. False when sqlite cannot here: VACUUM builds the copy in an attached database, and Deno allows
   * none under a permission set narrower than --allow-all (the free pages are then reused by new writes).
   */
  vacuum(): boolean {
    try {
      this.#db.exec("VACUUM");
      return true;
    } catch (e) {
      if (/attached databases/.test((e as Error).message)) return false;
      throw e;
    }
  }

  /** Bytes of free pages inside the file (freed by deletes, reused by later writes). */
  freeBytes(): number {
    const free = this.#db.prepare("PRAGMA freelist_count").get() as { freelist_count: number };
    const size = this.#db.prepare("PRAGMA page_size").get() as { page_size: number };
    return free.freelist_count * size.page_size;
  }

  /** Bytes the database takes (its pages; for `:memory:`, the memory it holds). */
  sizeBytes(): number {
    const count = this.#db.prepare("PRAGMA page_count").get() as { page_count: number };
    const size = this.#db.prepare("PRAGMA page_size").get() as { page_size: number };
    return count.page_count * size.page_size;
  }

  protected rawGet(key: Uint8Array): Uint8Array | undefined {
    const row = this.#get.get(key) as unknown as [Uint8Array] | undefined;
    return row?.[0];
  }

  protected rawPut(key: Uint8Array, value: Uint8Array): void {
    this.#put.run(key, value);
  }

  protected rawDel(key: Uint8Array): void {
    this.#del.run(key);
  }

  protected *rawIterate(
    low: Uint8Array,
    high: Uint8Array | undefined,
    reverse: boolean,
    limit: number,
  ): IterableIterator<[Uint8Array, Uint8Array]> {
    const id = `${high === undefined ? "o" : "b"}${reverse ? "d" : "a"}`;
    let stmt = this.#iter.get(id);
    if (stmt === undefined) {
      const where = high === undefined ? "k >= ?" : "k >= ? AND k < ?";
      stmt = this.#db.prepare(
        `SELECT k, v FROM kv WHERE ${where} ORDER BY k ${reverse ? "DESC" : "ASC"} LIMIT ?`,
      );
      returnArrays(stmt);
      this.#iter.set(id, stmt);
    }
    const rows = (high === undefined ? stmt.all(low, limit) : stmt.all(low, high, limit)) as unknown as Row[];
    for (const row of rows) yield row;
  }

  protected rawBegin(): void {
    this.#db.exec("BEGIN IMMEDIATE");
  }

  protected rawCommit(): void {
    this.#db.exec("COMMIT");
  }

  protected rawRollback(): void {
    if ((this.#db as unknown as { isTransaction: boolean }).isTransaction) this.#db.exec("ROLLBACK");
  }

  protected rawClose(): void {
    this.#db.close();
    // Closing the lock file releases the lock: another process may open the database now.
    this.#lock?.close();
    this.#lock = undefined;
  }
}

function encodeVersion(v: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, v);
  return out;
}

function decodeVersion(raw: Uint8Array): number {
  if (raw.length !== 4) {
    throw new BaseError("DB_SCHEMA_INVALID", `Cannot read schema version: length is ${raw.length}`);
  }
  return new DataView(raw.buffer, raw.byteOffset, 4).getUint32(0);
}

/** Rows as arrays instead of objects (2x faster scans); present at run time, missing from the typings. */
function returnArrays(stmt: StatementSync): void {
  (stmt as unknown as { setReturnArrays(enabled: boolean): void }).setReturnArrays(true);
}
