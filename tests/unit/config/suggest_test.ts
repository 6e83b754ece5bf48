import { assertEquals } from "../../assert.ts";
import { nearest } from "../../../lib/config/mod.ts";
import { editDistance } from "../../../lib/config/suggest.ts";

Deno.test("edit distance", () => {
  assertEquals(editDistance("", ""), 0);
  assertEquals(editDistance("kitten", "sitting"), 3);
  assertEquals(editDistance("l1.rpckind", "l1.rpckindd"), 1);
  assertEquals(editDistance("abc", ""), 3);
});

Deno.test("nearest name, case-insensitive, first on ties", () => {
  assertEquals(nearest("P2P.PEERS.HIGH", ["p2p.peers.lo", "p2p.peers.hi"]), "p2p.peers.hi");
  assertEquals(nearest("ab", ["ax", "ay"]), "ax");
  assertEquals(nearest("x", []), undefined);
});
