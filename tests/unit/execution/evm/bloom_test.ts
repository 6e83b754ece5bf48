import { Bloom } from "@ethereumjs/vm";
import { assertEquals, assertNotEquals } from "../../../assert.ts";
import { logsBloom, orBlooms } from "../../../../lib/execution/evm/mod.ts";

Deno.test("logsBloom equals @ethereumjs/vm's Bloom over addresses and topics", () => {
  const logs = [
    {
      address: new Uint8Array(20).fill(1),
      topics: [new Uint8Array(32).fill(2), new Uint8Array(32).fill(3)],
      data: new Uint8Array(),
    },
    { address: new Uint8Array(20).fill(4), topics: [], data: new Uint8Array([5]) },
  ];
  const ref = new Bloom();
  for (const l of logs) {
    ref.add(l.address);
    for (const t of l.topics) ref.add(t);
  }
  assertEquals(logsBloom(logs), ref.bitvector);
  assertNotEquals(logsBloom(logs), new Uint8Array(256));
  assertEquals(logsBloom([]), new Uint8Array(256));
});

Deno.test("orBlooms is the bitwise OR", () => {
  const a = new Uint8Array(256);
  const b = new Uint8Array(256);
  a[0] = 1;
  b[0] = 2;
  b[255] = 0x80;
  const out = orBlooms([a, b]);
  assertEquals(out[0], 3);
  assertEquals(out[255], 0x80);
});

Deno.test("logsBloom: values that recur (kept bits) and values changed after use give @ethereumjs's bloom", () => {
  // More distinct values than the kept ring, interleaved with ones that recur in every log.
  const token = new Uint8Array(20).fill(0xaa);
  const topic0 = new Uint8Array(32).fill(0xdd);
  const logs = Array.from({ length: 40 }, (_, i) => ({
    address: token,
    topics: [topic0, new Uint8Array(32).fill(i), new Uint8Array(32).fill(i * 7 % 40)],
    data: new Uint8Array(),
  }));
  for (const [n, ls] of [[1, logs.slice(0, 1)], [40, logs]] as const) {
    const ref = new Bloom();
    for (const l of ls) {
      ref.add(l.address);
      for (const t of l.topics) ref.add(t);
    }
    assertEquals(logsBloom(ls), ref.bitvector, `${n} logs`);
  }
  // An array refilled after its bloom was taken is another value.
  const reused = new Uint8Array(32).fill(1);
  const first = logsBloom([{ address: token, topics: [reused], data: new Uint8Array() }]);
  reused.fill(2);
  const second = logsBloom([{ address: token, topics: [reused], data: new Uint8Array() }]);
  const ref = new Bloom();
  ref.add(token);
  ref.add(new Uint8Array(32).fill(2));
  assertEquals(second, ref.bitvector);
  assertNotEquals(first, second);
});
