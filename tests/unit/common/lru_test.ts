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

Deno.test("lru: matches a plain model of recency and weight over random operations", () => {
  const lru = new Lru<number, number>(50, (v) => v);
  // The model: keys from least to most recently used, and their weights.
  let order: number[] = [];
  const weights = new Map<number, number>();
  const touch = (k: number) => (order = [...order.filter((x) => x !== k), k]);
  let seed = 5;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let step = 0; step < 5000; step++) {
    const k = rand(30);
    const op = rand(10);
    if (op < 4) {
      const w = 1 + rand(12);
      lru.set(k, w);
      order = order.filter((x) => x !== k);
      weights.delete(k);
      order.push(k);
      weights.set(k, w);
      let total = [...weights.values()].reduce((a, b) => a + b, 0);
      while (total > 50) {
        const old = order.shift()!;
        total -= weights.get(old)!;
        weights.delete(old);
      }
    } else if (op < 8) {
      assertEquals(lru.get(k), weights.get(k), `step ${step}`);
      if (weights.has(k)) touch(k);
    } else if (op < 9) {
      assertEquals(lru.delete(k), weights.delete(k));
      order = order.filter((x) => x !== k);
    } else assertEquals(lru.has(k), weights.has(k));
    assertEquals(lru.size, weights.size);
    assertEquals(lru.weight, [...weights.values()].reduce((a, b) => a + b, 0));
  }
});
