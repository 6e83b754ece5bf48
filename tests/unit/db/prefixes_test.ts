import { assertEquals } from "../../assert.ts";
import { prefixedKey, PREFIXES, prefixUpperBound, readU64, u64Key } from "../../../lib/db/mod.ts";

Deno.test("prefixes: every prefix number is unique and one byte", () => {
  const values = Object.values(PREFIXES);
  assertEquals(new Set(values).size, values.length);
  for (const v of values) assertEquals(v >= 0 && v <= 0xff, true);
});

Deno.test("prefixes: keys, bounds and u64 order", () => {
  assertEquals(prefixedKey(5, new Uint8Array([1]), new Uint8Array([2, 3])), new Uint8Array([5, 1, 2, 3]));
  assertEquals(prefixUpperBound(new Uint8Array([1, 0xff])), new Uint8Array([2]));
  assertEquals(prefixUpperBound(new Uint8Array([0xff, 0xff])), undefined);
  assertEquals(readU64(u64Key(0x0102030405060708n)), 0x0102030405060708n);
  assertEquals(u64Key(256), new Uint8Array([0, 0, 0, 0, 0, 0, 1, 0]));
});
