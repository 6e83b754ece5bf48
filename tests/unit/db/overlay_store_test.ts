/** OverlayStore: reads through to the base, writes stay above it, iteration merges both in order. */
import { assertEquals, assertThrows } from "../../assert.ts";
import { MemoryStore, OverlayStore } from "../../../lib/db/mod.ts";

const k = (...b: number[]) => new Uint8Array(b);

Deno.test("OverlayStore: reads the base, keeps its writes to itself", () => {
  const base = new MemoryStore();
  base.put(k(1, 1), k(10));
  base.put(k(1, 3), k(30));
  const top = new OverlayStore(base);
  assertEquals(top.get(k(1, 1)), k(10));
  top.put(k(1, 1), k(11));
  top.put(k(1, 2), k(20));
  assertEquals(top.get(k(1, 1)), k(11));
  assertEquals(top.has(k(1, 2)), true);
  // The base is unchanged.
  assertEquals(base.get(k(1, 1)), k(10));
  assertEquals(base.get(k(1, 2)), undefined);
  // A write group rolled back leaves the overlay as it was.
  try {
    top.transaction(() => {
      top.put(k(1, 4), k(40));
      throw new Error("boom");
    });
  } catch { /* rolled back */ }
  assertEquals(top.get(k(1, 4)), undefined);
  assertThrows(() => top.del(k(1, 3)), Error, "Cannot delete from an overlay store");
});

Deno.test("OverlayStore: iterate merges both sides in key order, the overlay winning", () => {
  const base = new MemoryStore();
  for (const i of [1, 3, 5, 7]) base.put(k(2, i), k(i));
  base.put(k(3, 0), k(99));
  const top = new OverlayStore(base);
  top.put(k(2, 3), k(33));
  top.put(k(2, 4), k(44));
  top.put(k(2, 9), k(99));
  const all = [...top.iterate(k(2))].map(([key, v]) => [key[1], v[0]]);
  assertEquals(all, [[1, 1], [3, 33], [4, 44], [5, 5], [7, 7], [9, 99]]);
  const rev = [...top.iterate(k(2), { reverse: true, limit: 3 })].map(([key, v]) => [key[1], v[0]]);
  assertEquals(rev, [[9, 99], [7, 7], [5, 5]]);
  const from = [...top.iterate(k(2), { start: k(2, 4), end: k(2, 7) })].map(([key]) => key[1]);
  assertEquals(from, [4, 5]);
});
