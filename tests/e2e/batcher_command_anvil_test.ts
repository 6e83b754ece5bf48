/**
 * `keel batcher` as a real process beside a sequencing `keel node` process, with anvil as L1 (as
 * op-batcher runs beside op-node): it reads the rollup config and the safe head from the node's
 * rollup RPC and the blocks (a user transfer among them) from its eth RPC, and posts batcher
 * transactions to the inbox; the node derives them back, so its safe head moves past the transfer's
 * block. SIGTERM stops it with exit code 0.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex } from "../../lib/common/bytes.ts";
import { ACCOUNTS, GWEI } from "../unit/execution/engine/helpers.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
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

const tool = await anvilForTest("batcher_command_anvil_test");

type Answer = RpcAnswer;

for (const batchType of [0, 1]) {
  Deno.test({
    name: `keel batcher submits a sequencing keel node's blocks to L1 (${
      batchType === 0 ? "singular batches" : "span batches"
    }) and the node's safe head follows`,
    ignore: !tool.ok,
    sanitizeResources: false,
    async fn() {
      const anvil = await startAnvil(tool.ok ? tool.binary : "", [
        "--hardfork",
        "prague",
        "--block-time",
        "1",
      ]);
      const dir = await Deno.makeTempDir({ prefix: "keel-batcher-" });
      let node: KeelProcess | undefined;
      let batcher: KeelProcess | undefined;
      try {
        const port = freePort();
        node = spawnKeel("node", await sequencerOnAnvil(anvil.url, dir, port));
        const url = `http://127.0.0.1:${port}`;
        const call = async (method: string, params: unknown[] = []) =>
          (await rpcCall(url, method, params)) as Answer;
        const status = async () => (await call("rollupnode_syncStatus")).result;
        const out = () => `${node?.output()}\n--- batcher ---\n${batcher?.output()}`;
        await until(
          async () => (await status())?.unsafe_l2?.number >= 2 ? true : undefined,
          "sequencing",
          out,
        );
        // A user transaction, so that a batch carries more than the L1-info deposit.
        const tx = createFeeMarket1559Tx({
          chainId: 901n,
          nonce: 0n,
          to: new Uint8Array(20).fill(7),
          value: 777n,
          gasLimit: 21_000n,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI,
        }, { common: new Common({ chain: { ...Mainnet, chainId: 901 }, hardfork: Hardfork.Prague }) }).sign(
          ACCOUNTS[2].privateKey,
        );
        const sent = await call("eth_sendRawTransaction", [bytesToHex(tx.serialize())]);
        assertEquals(sent.result, bytesToHex(tx.hash()), JSON.stringify(sent.error));
        const receipt = await until(
          async () => (await call("eth_getTransactionReceipt", [sent.result])).result ?? undefined,
          "the transfer's receipt",
          out,
        );
        const included = Number(receipt.blockNumber);
        assertEquals((await status()).safe_l2.number, 0, "nothing batched before the batcher runs");

        batcher = spawnKeel("batcher", [
          `--l1-eth-rpc=${anvil.url}`,
          `--l2-eth-rpc=${url}`,
          `--rollup-rpc=${url}`,
          `--private-key=${DEV_PRIVATE_KEY}`,
          "--poll-interval=500ms",
          `--batch-type=${batchType}`,
        ]);
        const safe = await until(
          async () => {
            const n = (await status())?.safe_l2?.number ?? 0;
            return n > included ? n : undefined;
          },
          `the safe head past block ${included}`,
          out,
          120_000,
        );
        assert(safe > included);
        // The derived safe block is the sequencer's own block (same hash).
        const safeHash = (await status()).safe_l2.hash;
        const block = (await call("eth_getBlockByNumber", [`0x${safe.toString(16)}`, false])).result;
        assertEquals(block.hash, safeHash);
        // Batcher transactions from the batcher key to the inbox are on L1.
        const l1 = async (method: string, params: unknown[] = []) =>
          ((await rpcCall(anvil.url, method, params)) as Answer).result;
        const l1Head = Number(await l1("eth_blockNumber"));
        let toInbox = 0;
        for (let n = 1; n <= l1Head; n++) {
          const b = await l1("eth_getBlockByNumber", [`0x${n.toString(16)}`, true]) as {
            transactions: { from: string; to: string | null }[];
          };
          toInbox += b.transactions.filter((t) =>
            t.from.toLowerCase() === bytesToHex(BATCHER) && t.to?.toLowerCase() === bytesToHex(INBOX)
          ).length;
        }
        assert(toInbox >= 1, `${toInbox} batcher transactions in ${l1Head} L1 blocks`);
        assertStringIncludes(batcher.output(), "Batch submitter started");
        // The batch's log line may be written after the safe head moved (the process is polled, not awaited).
        const kind = `batch=${batchType === 0 ? "singular" : "span"}`;
        const logged = batcher;
        await until(
          () => Promise.resolve(logged.output().includes(kind) ? true : undefined),
          `"${kind}" in the batcher's log`,
          out,
          30_000,
        );
        assertEquals(await batcher.stop(), 0, out());
        batcher = undefined;
        assertEquals(await node.stop(), 0, out());
        node = undefined;
      } finally {
        if (batcher !== undefined) {
          await batcher.stop();
        }
        if (node !== undefined) await node.stop();
        await anvil.stop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
