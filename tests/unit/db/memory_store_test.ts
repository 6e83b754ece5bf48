import { assertEquals } from "../../assert.ts";
import { bytesToHex } from "../../../lib/common/bytes.ts";
import { MemoryStore, SqliteStore } from "../../../lib/db/mod.ts";

Deno.test("MemoryStore: values are copied in and out; rollback restores overwritten and deleted keys", () => {
  const s = new MemoryStore();
  const v = new Uint8Array([1, 2]);
  s.put(new Uint8Array([1]), v);
  v[0] = 9;
  const got = s.get(new Uint8Array([1]))!;
  assertEquals(got, new Uint8Array([1, 2]));
  got[1] = 9;
  assertEquals(s.get(new Uint8Array([1])), new Uint8Array([1, 2]));
  s.put(new Uint8Array([2]), new Uint8Array([2]));
  try {
    s.transaction(() => {
      s.put(new Uint8Array([1]), new Uint8Array([7]));
      s.put(new Uint8Array([1]), new Uint8Array([8]));
      s.del(new Uint8Array([2]));
      s.put(new Uint8Array([3]), new Uint8Array([3]));
      throw new Error("rollback");
    });
  } catch { /* expected */ }
  assertEquals(s.get(new Uint8Array([1])), new Uint8Array([1, 2]));
  assertEquals(s.get(new Uint8Array([2])), new Uint8Array([2]));
  assertEquals(s.size, 2);
  s.close();
});

Deno.test("MemoryStore scans as SqliteStore does: random writes, deletes, rolled-back groups and ranges", () => {
  // A seeded generator: the same run every time.
  let seed = 12345;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const key = () => {
    // Few first bytes (the prefixes), short tails: many shared prefixes and neighbours.
    const k = new Uint8Array(1 + rand(4));
    // Not 0x00: SqliteStore keeps its schema version under that prefix.
    k[0] = [1, 2, 0x7f, 0xfe, 0xff][rand(5)];
    for (let i = 1; i < k.length; i++) k[i] = [0, 1, 0x7f, 0xff][rand(4)];
    return k;
  };
  const mem = new MemoryStore();
  const sql = SqliteStore.open(":memory:");
  try {
    for (let step = 0; step < 3000; step++) {
      const op = rand(10);
      if (op < 5) {
        const [k, v] = [key(), new Uint8Array([rand(256)])];
        mem.put(k, v);
        sql.put(k, v);
      } else if (op < 7) {
        const k = key();
        mem.del(k);
        sql.del(k);
      } else if (op < 8) {
        // A write group that fails: both stores keep nothing of it.
        const writes = Array.from(
          { length: 1 + rand(5) },
          () => [key(), new Uint8Array([rand(256)])] as const,
        );
        for (const store of [mem, sql]) {
          try {
            store.transaction(() => {
              for (const [k, v] of writes) rand(3) === 0 ? store.del(k) : store.put(k, v);
              throw new Error("abort");
            });
          } catch { /* rolled back */ }
        }
      } else {
        const prefix = key().subarray(0, rand(3));
        const options = {
          reverse: rand(2) === 0,
          limit: rand(3) === 0 ? rand(6) : undefined,
          start: rand(3) === 0 ? Uint8Array.of(...prefix, ...key().subarray(1)) : undefined,
          end: rand(4) === 0 ? key() : undefined,
        };
        const a = [...mem.iterate(prefix, options)].map(([k, v]) => [bytesToHex(k), bytesToHex(v)]);
        const b = [...sql.iterate(prefix, options)].filter(([k]) => k[0] !== 0)
          .map(([k, v]) => [bytesToHex(k), bytesToHex(v)]);
        assertEquals(a, b, `step ${step}`);
      }
    }
    assertEquals(mem.size, [...sql.iterate(new Uint8Array())].filter(([k]) => k[0] !== 0).length);
  } finally {
    sql.close();
  }
});
