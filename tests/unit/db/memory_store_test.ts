import { assertEquals } from "../../assert.ts";
import { MemoryStore } from "../../../lib/db/mod.ts";

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
