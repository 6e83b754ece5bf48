import { assertEquals, assertStringIncludes } from "../assert.ts";
import { checkEdge } from "../../scripts/check_imports.ts";

Deno.test("layers import only downward", () => {
  assertEquals(checkEdge("lib/execution/evm/x.ts", "lib/common/mod.ts"), null);
  assertEquals(checkEdge("lib/config/x.ts", "lib/protocol/mod.ts"), null);
  assertStringIncludes(checkEdge("lib/common/x.ts", "lib/rpc/mod.ts")!, "common may not import rpc");
  assertStringIncludes(checkEdge("lib/protocol/x.ts", "lib/db/mod.ts")!, "protocol may not import db");
});

Deno.test("execution and rollup never meet directly", () => {
  assertStringIncludes(checkEdge("lib/rollup/engine/x.ts", "lib/execution/mod.ts")!, "only through protocol");
});

Deno.test("siblings go through mod.ts", () => {
  assertEquals(checkEdge("lib/execution/chain/x.ts", "lib/execution/evm/mod.ts"), null);
  assertStringIncludes(checkEdge("lib/execution/chain/x.ts", "lib/execution/evm/runner.ts")!, "mod.ts");
});
