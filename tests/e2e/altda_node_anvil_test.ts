/**
 * Alt-DA with real processes (interfaces.md 4.5 `altda.*`): a sequencing `keel node` of an Alt-DA chain
 * (rollup config `alt_da`) and `keel batcher --altda.enabled` beside it, anvil as L1 and a DA server on
 * 127.0.0.1. The batcher stores frames on the DA server and posts commitments; the node resolves them
 * and its safe head follows. Without --altda.enabled the node refuses the chain; restarted, it walks its
 * safe head back over the DA windows and derives the same blocks again.
 */
import { bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { fakeDaServer } from "../unit/rollup/altda/fake_da_server.ts";
import {
  anvilForTest,
  BATCHER,
  DEV_PRIVATE_KEY,
  freePort,
  INBOX,
  type KeelProcess,
  type RpcAnswer,
  rpcCall,
  sequencerOnAnvil,
  spawnKeel,
  startAnvil,
  until,
} from "./helpers/mod.ts";

const tool = await anvilForTest("altda_node_anvil_test");

Deno.test({
  name: "keel node and keel batcher on an Alt-DA chain: batches go through the DA server and come back safe",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague", "--block-time", "1"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-altda-" });
    const da = fakeDaServer();
    let node: KeelProcess | undefined;
    let batcher: KeelProcess | undefined;
    try {
      const port = freePort();
      const args = await sequencerOnAnvil(anvil.url, dir, port, {
        altDA: {
          commitmentType: "KeccakCommitment",
          daChallengeAddress: hexToBytes("0x" + "da".repeat(20)),
          daChallengeWindow: 6n,
          daResolveWindow: 6n,
        },
      });
      // The chain is an Alt-DA chain: without --altda.enabled the node would derive another chain.
      const refused = spawnKeel("node", args);
      assert((await refused.exited) !== 0, refused.output());
      assertStringIncludes(refused.output(), "start with --altda.enabled");

      const altda = ["--altda.enabled", `--altda.da-server=${da.url}`];
      node = spawnKeel("node", [...args, ...altda]);
      const url = `http://127.0.0.1:${port}`;
      const status = async () => ((await rpcCall(url, "rollupnode_syncStatus")) as RpcAnswer).result;
      const out = () => `${node?.output()}\n--- batcher ---\n${batcher?.output()}`;
      await until(async () => (await status())?.unsafe_l2?.number >= 4 ? true : undefined, "sequencing", out);
      batcher = spawnKeel("batcher", [
        `--l1-eth-rpc=${anvil.url}`,
        `--l2-eth-rpc=${url}`,
        `--rollup-rpc=${url}`,
        `--private-key=${DEV_PRIVATE_KEY}`,
        "--poll-interval=500ms",
        ...altda,
      ]);
      const safe = await until(
        async () => {
          const n = (await status())?.safe_l2?.number ?? 0;
          return n >= 4 ? n : undefined;
        },
        "the safe head past block 4",
        out,
        120_000,
      );
      // Number and hash from one answer: the safe head may move on between two.
      const { number: safeNumber, hash: safeHash } = (await status()).safe_l2;
      assert(safeNumber >= safe);
      const block =
        ((await rpcCall(url, "eth_getBlockByNumber", [`0x${safeNumber.toString(16)}`, false])) as RpcAnswer)
          .result;
      assertEquals(block.hash, safeHash);
      assert(da.state.puts >= 1 && da.state.gets >= 1, JSON.stringify(da.state));
      assertStringIncludes(batcher.output(), "keccak256 commitments");
      // On L1 the batcher's transactions carry commitments (version 1), not frames.
      const l1 = async (method: string, params: unknown[] = []) =>
        ((await rpcCall(anvil.url, method, params)) as RpcAnswer).result;
      const inputs: string[] = [];
      for (let n = 1, head = Number(await l1("eth_blockNumber")); n <= head; n++) {
        const b = await l1("eth_getBlockByNumber", [`0x${n.toString(16)}`, true]) as {
          transactions: { from: string; to: string | null; input: string }[];
        };
        for (const t of b.transactions) {
          if (t.from.toLowerCase() === bytesToHex(BATCHER) && t.to?.toLowerCase() === bytesToHex(INBOX)) {
            inputs.push(t.input);
          }
        }
      }
      assert(inputs.length >= 1 && inputs.every((i) => i.startsWith("0x0100")), inputs.join(" "));
      assertEquals(await batcher.stop(), 0, out());
      batcher = undefined;
      assertEquals(await node.stop(), 0, out());

      // Restarted: the safe head walks back over the DA windows and the same blocks are derived again.
      node = spawnKeel("node", [...args, ...altda]);
      await until(
        async () => (await status())?.safe_l2?.number >= safe ? true : undefined,
        "the safe head back",
        out,
        120_000,
      );
      const again =
        ((await rpcCall(url, "eth_getBlockByNumber", [`0x${safe.toString(16)}`, false])) as RpcAnswer)
          .result;
      assertEquals(again.hash, safeHash);
      assertStringIncludes(node.output(), "safe head walked back");
      assertEquals(await node.stop(), 0, out());
      node = undefined;
    } finally {
      if (batcher !== undefined) await batcher.stop();
      if (node !== undefined) await node.stop();
      await da.close();
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
