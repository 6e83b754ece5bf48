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
