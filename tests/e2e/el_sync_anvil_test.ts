/**
 * --syncmode=execution-layer between two real `keel node` processes with anvil as L1 and nothing
 * batched: the verifier hands the first gossiped block to its engine, which (keel's own, without devp2p)
 * gets the blocks below from the sequencer over payload_by_number; the block reached becomes its safe
 * and finalized block, as op-node's EL sync makes it (with consensus-layer sync both stay at genesis
 * until L1 carries the batches: p2p_anvil_test.ts). Restarted, the verifier skips EL sync.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  anvilForTest,
  freePort,
  type KeelProcess,
  p2pSequencerOnAnvil,
  p2pVerifierArgs,
  type RpcAnswer,
  rpcCall,
  spawnKeel,
  startAnvil,
  until,
} from "./helpers/mod.ts";

const tool = await anvilForTest("el_sync_anvil_test");

Deno.test({
  name:
    "EL sync: a fresh verifier takes the sequencer's chain from its peer and trusts the block reached as finalized",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-elsync-" });
    let sequencer: KeelProcess | undefined;
    let verifier: KeelProcess | undefined;
    const out = () => `${sequencer?.output()}\n--- verifier ---\n${verifier?.output()}`;
    try {
      const seq = await p2pSequencerOnAnvil(anvil.url, dir);
      sequencer = seq.process;
      const running = seq.process;
      const seqUrl = seq.url;
      const call = async (url: string, method: string, params: unknown[] = []) =>
        (await rpcCall(url, method, params)) as RpcAnswer;
      const status = async (url: string) => (await call(url, "rollupnode_syncStatus")).result;
      await until(
        async () => ((await status(seqUrl))?.unsafe_l2?.number ?? 0) >= 4 ? true : undefined,
        "four sequenced blocks",
        out,
      );
      const verPort = freePort();
      const verArgs = [...await p2pVerifierArgs(anvil.url, dir, verPort, seq), "--syncmode=execution-layer"];
      verifier = spawnKeel("node", verArgs);
      const verUrl = `http://127.0.0.1:${verPort}`;
      const synced = await until(
        async () => {
          const n = (await status(verUrl))?.finalized_l2?.number ?? 0;
          return n >= 4 ? n : undefined;
        },
        "the verifier's finalized head from EL sync",
        out,
        90_000,
      );
      const v = await status(verUrl);
      assert(v.safe_l2.number >= synced, JSON.stringify(v));
      assert(v.unsafe_l2.number >= synced, JSON.stringify(v));
      // The same chain as the sequencer's, and the engine's labels moved with it.
      const block = async (url: string, tag: string) =>
        (await call(url, "eth_getBlockByNumber", [tag, false])).result;
      const fin = await block(verUrl, "finalized");
      assertEquals(Number(fin.number), synced);
      assertEquals(fin.hash, (await block(seqUrl, `0x${synced.toString(16)}`)).hash);
      assertEquals((await block(verUrl, "0x1")).hash, (await block(seqUrl, "0x1")).hash);
      const log = verifier.output();
      assert(log.includes("Starting EL sync"), out());
      assert(log.includes("Finished EL sync"), out());
      assert(log.includes("EL sync: blocks from peers inserted"), out());
      // It follows the sequencer on after that, as any verifier.
      await until(
        async () => ((await status(verUrl))?.unsafe_l2?.number ?? 0) > synced + 1 ? true : undefined,
        "gossiped blocks after EL sync",
        out,
        30_000,
      );

      // Restarted with a finalized block: straight to consensus-layer sync.
      assertEquals(await verifier.stop(), 0, out());
      verifier = spawnKeel("node", verArgs);
      await until(
        () => Promise.resolve(verifier?.output().includes("Skipping EL sync") ? true : undefined),
        "EL sync skipped after the restart",
        out,
        60_000,
      );
      assertEquals((await status(verUrl)).finalized_l2.number >= synced, true);
      assertEquals(await verifier.stop(), 0, out());
      verifier = undefined;
      assertEquals(await running.stop(), 0, out());
      sequencer = undefined;
    } finally {
      if (verifier !== undefined) await verifier.stop();
      if (sequencer !== undefined) await sequencer.stop();
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
