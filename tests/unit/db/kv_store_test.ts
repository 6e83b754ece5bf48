import { assert, assertEquals, assertRejects, assertThrows } from "../../assert.ts";
import type { BaseError } from "../../../lib/common/errors.ts";
import { type KvStore, MemoryStore, SqliteStore } from "../../../lib/db/mod.ts";

const b = (...xs: number[]) => new Uint8Array(xs);

async function withStores(fn: (store: KvStore, name: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  const stores: [KvStore, string][] = [[new MemoryStore(), "memory"], [
    SqliteStore.open(`${dir}/keel.sqlite`),
    "sqlite",
  ]];
  try {
    for (const [store, name] of stores) await fn(store, name);
  } finally {
    for (const [store] of stores) store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("KvStore: get/put/del/has round trip on both backends", async () => {
  await withStores((s, name) => {
    assertEquals(s.get(b(1, 2)), undefined, name);
    s.put(b(1, 2), b(9));
    assertEquals(s.get(b(1, 2)), b(9), name);
    assert(s.has(b(1, 2)), name);
    s.put(b(1, 2), b(8, 8));
    assertEquals(s.get(b(1, 2)), b(8, 8), name);
    s.del(b(1, 2));
    assert(!s.has(b(1, 2)), name);
    s.put(b(3), new Uint8Array());
    assertEquals(s.get(b(3)), new Uint8Array(), `${name}: empty value is present`);
  });
});

Deno.test("KvStore: iterate walks a prefix in key order with start, end, reverse and limit", async () => {
  await withStores((s, name) => {
    s.batch([
      { type: "put", key: b(2, 0xff), value: b(4) },
      { type: "put", key: b(2, 1), value: b(2) },
      { type: "put", key: b(2, 0, 5), value: b(1) },
      { type: "put", key: b(2, 1, 0), value: b(3) },
      { type: "put", key: b(3), value: b(5) },
      { type: "put", key: b(1, 0xff), value: b(0) },
    ]);
    const vals = (it: Iterable<[Uint8Array, Uint8Array]>) => [...it].map(([, v]) => v[0]);
    assertEquals(vals(s.iterate(b(2))), [1, 2, 3, 4], name);
    assertEquals(vals(s.iterate(b(2), { reverse: true })), [4, 3, 2, 1], name);
    assertEquals(vals(s.iterate(b(2), { start: b(2, 1) })), [2, 3, 4], name);
    assertEquals(vals(s.iterate(b(2), { start: b(2, 1), end: b(2, 0xff) })), [2, 3], name);
    assertEquals(vals(s.iterate(b(2), { limit: 2 })), [1, 2], name);
    assertEquals(vals(s.iterate(b(2), { reverse: true, limit: 1 })), [4], name);
    assertEquals(vals(s.iterate(b(0xff))), [], name);
    assertEquals([...s.iterate(b(2), { limit: 1 })][0][0], b(2, 0, 5), name);
  });
});

Deno.test("KvStore: a failing write group leaves nothing behind; nested groups join the outer one", async () => {
  await withStores((s, name) => {
    s.put(b(1), b(1));
    assertThrows(() =>
      s.transaction(() => {
        s.put(b(1), b(2));
        s.put(b(2), b(2));
        s.del(b(1));
        throw new Error("boom");
      })
    );
    assertEquals(s.get(b(1)), b(1), name);
    assertEquals(s.get(b(2)), undefined, name);

    const r = s.transaction(() => {
      s.put(b(5), b(5));
      s.transaction(() => s.put(b(6), b(6)));
      assert(s.inTransaction());
      return 42;
    });
    assertEquals(r, 42);
    assertEquals(s.get(b(6)), b(6), name);
    assert(!s.inTransaction());

    // An error escaping a nested group dooms the outer group even if caught.
    const err = assertThrows(() =>
      s.transaction(() => {
        s.put(b(7), b(7));
        try {
          s.transaction(() => {
            throw new Error("inner");
          });
        } catch { /* swallowed on purpose */ }
      })
    );
    assertEquals((err as BaseError).code, "DB_TRANSACTION_ABORTED", name);
    assertEquals(s.get(b(7)), undefined, name);
  });
});

Deno.test("KvStore: commit and rollback hooks", async () => {
  await withStores((s, name) => {
    const seen: string[] = [];
    s.transaction(() => {
      s.onCommit(() => seen.push("commit1"));
      s.onRollback(() => seen.push("rollback1"));
      assertEquals(seen, [], name);
    });
    assertThrows(() =>
      s.transaction(() => {
        s.onCommit(() => seen.push("commit2"));
        s.onRollback(() => seen.push("rollback2"));
        throw new Error("x");
      })
    );
    s.onCommit(() => seen.push("now"));
    assertEquals(seen, ["commit1", "rollback2", "now"], name);
  });
});

Deno.test("KvStore: async groups span awaits, serialize, and fence off foreign writes", async () => {
  await withStores(async (s, name) => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = s.transactionAsync(async () => {
      s.put(b(1), b(1));
      order.push("a-start");
      await gate;
      s.transaction(() => s.put(b(2), b(2)));
      await s.transactionAsync(() => Promise.resolve(s.put(b(3), b(3))));
      order.push("a-end");
    });
    const second = s.transactionAsync(() => {
      order.push("b");
      assertEquals(s.get(b(3)), b(3), name);
      return Promise.resolve();
    });
    await Promise.resolve();
    // A plain write from outside the open group is refused rather than swept into it.
    const busy = assertThrows(() => s.put(b(9), b(9)));
    assertEquals((busy as BaseError).code, "DB_BUSY", name);
    release();
    await first;
    await second;
    assertEquals(order, ["a-start", "a-end", "b"], name);
    assertEquals([...s.iterate(b())].length >= 3, true, name);

    await assertRejects(() =>
      s.transactionAsync(async () => {
        s.put(b(4), b(4));
        await Promise.resolve();
        throw new Error("late");
      })
    );
    assertEquals(s.get(b(4)), undefined, name);
    const wrong = assertThrows(() => s.transaction(() => Promise.resolve(1)));
    assertEquals((wrong as BaseError).code, "DB_ASYNC_IN_SYNC_GROUP", name);
  });
});

Deno.test("KvStore: closed store refuses use", async () => {
  await withStores((s, name) => {
    s.close();
    const err = assertThrows(() => s.get(b(1)));
    assertEquals((err as BaseError).code, "DB_CLOSED", name);
    s.close();
  });
});
