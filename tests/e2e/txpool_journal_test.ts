/**
 * `--txpool.journal` across restarts of a real `keel execution --dev` process on one data dir (blocks only
 * every hour, so transactions stay in the pool): the transactions sent through RPC, pending and queued,
 * are written to `transactions.rlp` at shutdown (and every `--txpool.rejournal`) and are back in the pool
 * after the restart; with `--txpool.nolocals` nothing is put back.
 */
import { assert, assertEquals } from "../assert.ts";
import { decodeJournal } from "../../lib/execution/txpool/mod.ts";
import { DEV_ADDRESS, rpcResult, startKeelExecution } from "./helpers/mod.ts";

const OTHER = "0x00000000000000000000000000000000000000aa";

async function journalTxs(path: string): Promise<number> {
  return decodeJournal(await Deno.readFile(path)).txs.length;
}

Deno.test({
  name: "txpool journal: local transactions survive a restart",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "keel-journal-" });
    const journal = `${dataDir}/transactions.rlp`;
    const args = ["--dev.period=3600", "--txpool.rejournal=1s"];
    try {
      let node = await startKeelExecution({ ws: false, dataDir, args });
      let pending: string, queued: string;
      try {
        pending = await rpcResult(node.httpUrl, "eth_sendTransaction", [{
          from: DEV_ADDRESS,
          to: OTHER,
          value: "0x1",
        }]);
        // Nonce 5 while the account is at 0: queued behind the gap.
        queued = await rpcResult(node.httpUrl, "eth_sendTransaction", [
          { from: DEV_ADDRESS, to: OTHER, value: "0x2", nonce: "0x5" },
        ]);
        assertEquals(await rpcResult(node.httpUrl, "txpool_status"), { pending: "0x1", queued: "0x1" });
        // --txpool.rejournal=1s: the running node rewrites the journal.
        let written = 0;
        for (let i = 0; i < 40 && written < 2; i++) {
          await new Promise((r) => setTimeout(r, 100));
          written = await journalTxs(journal).catch(() => 0);
        }
        assertEquals(written, 2);
      } finally {
        await node.stop();
      }
      assertEquals(await journalTxs(journal), 2);

      node = await startKeelExecution({ ws: false, dataDir, args });
      try {
        assertEquals(await rpcResult(node.httpUrl, "txpool_status"), { pending: "0x1", queued: "0x1" });
        assertEquals((await rpcResult(node.httpUrl, "eth_getTransactionByHash", [pending])).hash, pending);
        assertEquals((await rpcResult(node.httpUrl, "eth_getTransactionByHash", [queued])).nonce, "0x5");
        assert(node.output().includes("Loaded local transaction journal"), node.output().slice(-2000));
      } finally {
        await node.stop();
      }

      // --txpool.nolocals: no journal is read (nor written).
      node = await startKeelExecution({ ws: false, dataDir, args: [...args, "--txpool.nolocals"] });
      try {
        assertEquals(await rpcResult(node.httpUrl, "txpool_status"), { pending: "0x0", queued: "0x0" });
      } finally {
        await node.stop();
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
