import { assertEquals, assertStringIncludes, assertThrows } from "../../assert.ts";
import type { BaseError } from "../../../lib/common/errors.ts";
import { DatabaseSync } from "node:sqlite";
import { prefixedKey, PREFIXES, SCHEMA_VERSION, SqliteStore } from "../../../lib/db/mod.ts";

const b = (...xs: number[]) => new Uint8Array(xs);

Deno.test("SqliteStore: data survives close and reopen; the file is in WAL mode", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/keel.sqlite`;
    const s1 = SqliteStore.open(path);
    s1.transaction(() => {
      for (let i = 0; i < 100; i++) s1.put(b(7, i), b(i, i));
    });
    s1.close();
    const s2 = SqliteStore.open(path);
    assertEquals(s2.get(b(7, 42)), b(42, 42));
    assertEquals([...s2.iterate(b(7))].length, 100);
    assertEquals(s2.schemaVersion(), SCHEMA_VERSION);
    s2.close();
    const raw = new DatabaseSync(path);
    const mode = raw.prepare("PRAGMA journal_mode").get() as { journal_mode: string };
    raw.close();
    assertEquals(mode.journal_mode, "wal");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SqliteStore: a read-only second connection sees committed data", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/keel.sqlite`;
    const writer = SqliteStore.open(path);
    writer.put(b(1), b(2));
    const reader = SqliteStore.open(path, { readOnly: true });
    assertEquals(reader.get(b(1)), b(2));
    const err = assertThrows(() => reader.put(b(3), b(3)));
    assertStringIncludes(err.message, "readonly");
    reader.close();
    writer.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SqliteStore: refuses a file with a newer schema version", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/keel.sqlite`;
    SqliteStore.open(path).close();
    const raw = new DatabaseSync(path);
    const key = prefixedKey(PREFIXES.meta, new TextEncoder().encode("schema_version"));
    raw.prepare("UPDATE kv SET v = ? WHERE k = ?").run(b(0, 0, 0, SCHEMA_VERSION + 1), key);
    raw.close();
    const err = assertThrows(() => SqliteStore.open(path));
    assertEquals((err as BaseError).code, "DB_SCHEMA_TOO_NEW");
    assertStringIncludes(err.message, `schema version ${SCHEMA_VERSION + 1} is newer`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SqliteStore: a bad path gives a clear error", () => {
  const err = assertThrows(() => SqliteStore.open("/nonexistent-dir-keel/x/keel.sqlite"));
  assertEquals((err as BaseError).code, "DB_OPEN_FAILED");
  assertStringIncludes(err.message, "Cannot open database /nonexistent-dir-keel/x/keel.sqlite");
});

Deno.test("SqliteStore.openDataDir: creates the directory and keel.sqlite in it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const s = SqliteStore.openDataDir(`${dir}/data/`);
    s.put(b(1), b(1));
    s.close();
    assertEquals((await Deno.stat(`${dir}/data/keel.sqlite`)).isFile, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The WAL file's size in bytes (0 when absent). */
async function walSize(path: string): Promise<number> {
  try {
    return (await Deno.stat(`${path}-wal`)).size;
  } catch {
    return 0;
  }
}

Deno.test("SqliteStore: commits are not checkpointed until the WAL holds walCheckpointPages pages", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // 12 write groups of ~0.5 MB (a block's worth of trie nodes): ~6 MB, ~1,500 pages of 4 KiB.
    const fill = async (path: string, options: { walCheckpointPages?: number }) => {
      const s = SqliteStore.open(path, options);
      for (let g = 0; g < 12; g++) {
        s.transaction(() => {
          for (let i = 0; i < 100; i++) s.put(b(9, g, i), new Uint8Array(5000).fill(g + i));
        });
      }
      const size = await walSize(path);
      assertEquals(s.get(b(9, 11, 99))?.length, 5000);
      s.close();
      return size;
    };
    // The default: no checkpoint yet, the WAL holds every group.
    const kept = await fill(`${dir}/a.sqlite`, {});
    // sqlite's own default (1,000 pages): checkpointed and restarted on the way.
    const cut = await fill(`${dir}/b.sqlite`, { walCheckpointPages: 1000 });
    assertEquals(kept > 5_800_000, true, `WAL of ${kept} bytes`);
    assertEquals(cut < 5_000_000, true, `WAL of ${cut} bytes`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SqliteStore: one writer per file: a second one is refused, in this process and another", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/keel.sqlite`;
    const first = SqliteStore.open(path);
    const err = assertThrows(() => SqliteStore.open(path)) as BaseError;
    assertEquals(err.code, "DB_IN_USE");
    assertStringIncludes(err.message, "in use by another keel");
    // Readers take no lock (the state-root worker reads the file beside the node).
    SqliteStore.open(path, { readOnly: true }).close();
    // Another process is refused too (flock on keel.sqlite.lock).
    const probe = `const f = Deno.openSync(${JSON.stringify(`${path}.lock`)}, { write: true });` +
      "console.log(f.tryLockSync(true));";
    const other = async () =>
      new TextDecoder().decode(
        (await new Deno.Command(Deno.execPath(), { args: ["eval", probe], stdout: "piped" }).output()).stdout,
      ).trim();
    assertEquals(await other(), "false");
    first.close();
    assertEquals(await other(), "true");
    // Closed, the file opens again here.
    SqliteStore.open(path).close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SqliteStore: puts in a write group read back before the commit, the later of two wins, a failed group leaves none", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/keel.sqlite`;
    const s = SqliteStore.open(path);
    // 87 rows, one key twice (the later value wins), the caller reusing its array after each put.
    const reused = b(0, 0);
    s.transaction(() => {
      for (let i = 0; i < 87; i++) {
        reused[0] = i;
        reused[1] = i + 1;
        s.put(b(9, i), reused); // the caller's array changes after each put
      }
      s.put(b(9, 5), b(55));
      assertEquals(s.get(b(9, 5)), b(55));
      assertEquals(s.get(b(9, 86)), b(86, 87));
      s.put(b(9, 200), b(1));
      assertEquals([...s.iterate(b(9))].length, 88);
      s.put(b(9, 201), b(2));
      s.del(b(9, 201));
      assertEquals(s.get(b(9, 201)), undefined);
    });
    await s.transactionAsync(async () => {
      await Promise.resolve();
      s.put(b(9, 7), b(77));
      s.put(b(9, 250), b(1));
      s.onCommit(() => {});
    });
    // A group that fails leaves none of its puts, read back or not.
    assertThrows(() =>
      s.transaction(() => {
        for (let i = 0; i < 100; i++) s.put(b(8, i), b(i));
        throw new Error("boom");
      })
    );
    s.close();
    const again = SqliteStore.open(path);
    assertEquals(again.get(b(9, 0)), b(0, 1));
    assertEquals(again.get(b(9, 5)), b(55));
    assertEquals(again.get(b(9, 7)), b(77));
    assertEquals(again.get(b(9, 86)), b(86, 87));
    assertEquals([...again.iterate(b(9))].length, 89);
    assertEquals([...again.iterate(b(8))].length, 0);
    again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
