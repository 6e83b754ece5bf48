/**
 * One node per data dir (geth's datadir LOCK): a second `keel execution` on a data dir in use stops at
 * once with the reason, and starts once the first one stopped (the lock goes with its process).
 */
import { assert, assertEquals } from "../assert.ts";
import { rpcResult, startKeelExecution } from "./helpers/mod.ts";

Deno.test({
  name: "datadir lock: a second node on the same data dir is refused until the first stops",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "keel-lock-" });
    try {
      const first = await startKeelExecution({ ws: false, dataDir });
      try {
        const refused = await startKeelExecution({ ws: false, dataDir }).then(
          async (n) => {
            await n.stop();
            return "started";
          },
          (e) => (e as Error).message,
        );
        assert(refused.includes("in use by another keel"), refused.slice(-2000));
        assertEquals(await rpcResult(first.httpUrl, "eth_chainId"), "0x385");
      } finally {
        await first.stop();
      }
      const second = await startKeelExecution({ ws: false, dataDir });
      await second.stop();
    } finally {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
