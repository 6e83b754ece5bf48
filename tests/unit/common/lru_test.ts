import { assertEquals } from "../../assert.ts";
import { Lru } from "../../../lib/common/lru.ts";

Deno.test("lru: forgets the least recently used entry past its capacity", () => {
  const lru = new Lru<string, number>(2);
  lru.set("a", 1);
  lru.set("b", 2);
  assertEquals(lru.get("a"), 1); // a is now the most recent
  lru.set("c", 3);
  assertEquals([lru.get("a"), lru.get("b"), lru.get("c")], [1, undefined, 3]);
  lru.set("a", 10); // replacing keeps the size
  assertEquals(lru.size, 2);
  assertEquals(lru.get("a"), 10);
});

Deno.test("lru: weighs entries and refuses one heavier than its capacity", () => {
  const lru = new Lru<string, Uint8Array>(100, (v) => v.length);
  lru.set("a", new Uint8Array(40));
  lru.set("b", new Uint8Array(40));
  assertEquals(lru.weight, 80);
  lru.set("c", new Uint8Array(40)); // 120 > 100: a goes
  assertEquals([lru.has("a"), lru.has("b"), lru.has("c")], [false, true, true]);
  assertEquals(lru.weight, 80);
  lru.set("d", new Uint8Array(101));
  assertEquals(lru.has("d"), false);
  assertEquals(lru.delete("b"), true);
  assertEquals(lru.weight, 40);
  lru.clear();
  assertEquals([lru.size, lru.weight], [0, 0]);
  const none = new Lru<string, number>(0);
  none.set("a", 1);
  assertEquals(none.get("a"), undefined);
});
