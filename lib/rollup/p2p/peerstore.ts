/**
 * The peerstore on disk (--p2p.peerstore.path, interfaces.md 4.5): libp2p keeps what it learns about
 * peers (addresses, protocols, public keys, tags such as protection, metadata) in a datastore; here the
 * datastore is one sqlite file in that directory, so a restarted node knows its peers and redials them.
 * A copy of the node's own private network key is kept there too, as op-node's peerstore does.
 */
import { BaseDatastore } from "datastore-core";
import { Key, type KeyQuery, type Pair, type Query } from "interface-datastore";
import { NotFoundError } from "interface-store";
import type { PrivateKey } from "@libp2p/interface";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { BaseError } from "../../common/errors.ts";

const FILE = "peerstore.sqlite";
/** Where the copy of the node's key lives (outside libp2p's own /peers/ keys). */
const SELF_KEY = "/keel/self/privkey";

export class SqliteDatastore extends BaseDatastore {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #get: StatementSync;
  readonly #put: StatementSync;
  readonly #del: StatementSync;
  readonly #scan: StatementSync;

  private constructor(path: string, db: DatabaseSync) {
    super();
    this.path = path;
    this.#db = db;
    this.#get = db.prepare("SELECT v FROM kv WHERE k = ?");
    this.#put = db.prepare("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)");
    this.#del = db.prepare("DELETE FROM kv WHERE k = ?");
    this.#scan = db.prepare("SELECT k, v FROM kv WHERE k >= ? ORDER BY k");
  }

  /** Opens (creating the directory and file if needed) the peerstore in directory `dir`. */
  static async open(dir: string): Promise<SqliteDatastore> {
    try {
      await Deno.mkdir(dir, { recursive: true });
      const path = `${dir}/${FILE}`;
      const db = new DatabaseSync(path);
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = NORMAL");
      db.exec("CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY NOT NULL, v BLOB NOT NULL) WITHOUT ROWID");
      return new SqliteDatastore(path, db);
    } catch (e) {
      throw new BaseError("PEERSTORE_OPEN", `Cannot open the peerstore in ${dir}: ${(e as Error).message}`, {
        cause: e,
      });
    }
  }

  override put(key: Key, value: Uint8Array): Key {
    this.#put.run(key.toString(), value);
    return key;
  }

  override get(key: Key): Uint8Array {
    const row = this.#get.get(key.toString()) as { v: Uint8Array } | undefined;
    if (row === undefined) throw new NotFoundError();
    return new Uint8Array(row.v);
  }

  override has(key: Key): boolean {
    return this.#get.get(key.toString()) !== undefined;
  }

  override delete(key: Key): void {
    this.#del.run(key.toString());
  }

  override *_all(q: Query): Generator<Pair> {
    for (const { k, v } of this.#rows(q.prefix)) yield { key: new Key(k), value: new Uint8Array(v) };
  }

  override *_allKeys(q: KeyQuery): Generator<Key> {
    for (const { k } of this.#rows(q.prefix)) yield new Key(k);
  }

  /** Rows whose key starts with `prefix` (all rows without one), in key order. */
  #rows(prefix = ""): { k: string; v: Uint8Array }[] {
    const rows = this.#scan.all(prefix) as { k: string; v: Uint8Array }[];
    const end = rows.findIndex((r) => !r.k.startsWith(prefix));
    return end < 0 ? rows : rows.slice(0, end);
  }

  /** Keeps a copy of the node's private network key (op-node's peerstore keeps the node's key). */
  keepSelfKey(key: PrivateKey): void {
    this.put(new Key(SELF_KEY), key.raw);
  }

  close(): void {
    this.#db.close();
  }
}
