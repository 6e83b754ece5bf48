import { assert, assertEquals } from "../../../assert.ts";
import { Bloom } from "@ethereumjs/vm";
import { bloomAdd, bloomBits, bloomHas, logsBloom } from "../../../../lib/execution/chain/mod.ts";
import { addr, TOKEN, transferLog } from "./block_fixtures.ts";

Deno.test("bloom: logsBloom equals @ethereumjs/vm's Bloom", () => {
  const logs = [transferLog(TOKEN, addr(1), addr(2), 5n), transferLog(addr(77), addr(3), addr(4), 1n)];
  const ref = new Bloom();
  for (const l of logs) {
    ref.add(l.address);
    for (const t of l.topics) ref.add(t);
  }
  assertEquals(logsBloom(logs), ref.bitvector);
});

Deno.test("bloom: membership of added values, absence of others", () => {
  const bloom = new Uint8Array(256);
  bloomAdd(bloom, TOKEN);
  assert(bloomHas(bloom, bloomBits(TOKEN)));
  assert(!bloomHas(bloom, bloomBits(addr(5))));
  assertEquals(bloomBits(TOKEN).length, 3);
});
