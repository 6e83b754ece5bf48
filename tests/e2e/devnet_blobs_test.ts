/**
 * `keel devnet --data-availability-type=blobs` as a real process: the batcher posts its frames as blobs
 * of EIP-4844 transactions to the batch inbox on the L1 dev chain, which keeps them, and the verifier
 * derives the chain from L1 reading the blobs through the L1's beacon API (blob_sidecars by slot) with
 * their KZG proofs checked: its safe head follows the sequencer and its blocks have the sequencer's
 * hashes.
 */
import { assert, assertEquals } from "../assert.ts";
import { freePort, type RpcAnswer, rpcCall, spawnKeel, until } from "./helpers/mod.ts";

Deno.test({
  name: "keel devnet --data-availability-type=blobs: batches as blobs, derived by the verifier",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "keel-devnet-blobs-" });
    const [l1Port, l2Port, verifierPort, p2pPort] = [freePort(), freePort(), freePort(), freePort()];
    const devnet = spawnKeel("devnet", [
      `--datadir=${dir}/devnet`,
      `--l1.port=${l1Port}`,
      `--l2.port=${l2Port}`,
      `--verifier.port=${verifierPort}`,
      `--p2p.port=${p2pPort}`,
      "--l1.block-time=1",
      "--l2.block-time=1",
      "--data-availability-type=blobs",
    ]);
    const call = async (port: number, method: string, params: unknown[] = []) =>
      ((await rpcCall(`http://127.0.0.1:${port}`, method, params)) as RpcAnswer).result;
    try {
      const safe = await until(
        async () => {
          const n = (await call(verifierPort, "rollupnode_syncStatus"))?.safe_l2?.number ?? 0;
          return n >= 4 ? n : undefined;
        },
        "the verifier's safe head",
        devnet.output,
        120_000,
      );
      // The verifier's safe block is the sequencer's.
      const at = `0x${safe.toString(16)}`;
      const ours = await call(verifierPort, "eth_getBlockByNumber", [at, false]);
      const theirs = await call(l2Port, "eth_getBlockByNumber", [at, false]);
      assertEquals(ours.hash, theirs.hash);
      // Every batcher transaction on L1 is a blob transaction without calldata.
      const rollup = await call(verifierPort, "rollupnode_rollupConfig");
      const inbox = String(rollup.batch_inbox_address).toLowerCase();
      const sent: { type: string; input: string; blobVersionedHashes: string[] }[] = [];
      for (let n = 1, head = Number(await call(l1Port, "eth_blockNumber")); n <= head; n++) {
        const b = await call(l1Port, "eth_getBlockByNumber", [`0x${n.toString(16)}`, true]);
        for (const t of b.transactions) if (t.to?.toLowerCase() === inbox) sent.push(t);
      }
      assert(sent.length >= 1, devnet.output());
      for (const t of sent) {
        assertEquals([t.type, t.input, t.blobVersionedHashes.length], ["0x3", "0x", 1]);
      }
      assert(devnet.output().includes("da=blobs"), devnet.output());
      assertEquals(await devnet.stop(), 0, devnet.output());
    } finally {
      await devnet.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
