/**
 * keel's batch submitter against anvil: it reads the sequencer's 12 L2 blocks, makes one channel
 * (Brotli, Fjord being active) cut into frames of at most 1,000 bytes, and sends one EIP-1559
 * transaction per frame to the batch inbox, signed with the batcher key; a verifier that reads only
 * L1 then derives the same chain. A second step has nothing to submit; a reorganised L2 chain under
 * the batcher makes it start again from the safe head; channels an L1 reorg took away are sent again.
 */
import { bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import { JsonRpcClient } from "../../lib/common/json_rpc_client.ts";
import { Batcher, type BatcherSource } from "../../lib/batcher/mod.ts";
import type { ExecutionEngine } from "../../lib/execution/engine/mod.ts";
import { hashHeader } from "../../lib/protocol/block.ts";
import { decodeBlobData } from "../../lib/protocol/blob_data.ts";
import { parseBatcherTxData } from "../../lib/protocol/frame.ts";
import { loadKzg } from "../../lib/execution/evm/mod.ts";
import { L1Client } from "../../lib/rollup/l1/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import { anvilForTest, DEV_PRIVATE_KEY, opChainOnAnvil, startAnvil, verifyFromL1 } from "./helpers/mod.ts";

const tool = await anvilForTest("batcher_anvil_test");

/** Runs `fn` on an OP chain of `blocks` L2 blocks over a fresh anvil at Prague, then stops both. */
async function onAnvilChain(
  blocks: number,
  fn: (
    c: { rpc: JsonRpcClient; l1: L1Client; chain: Awaited<ReturnType<typeof opChainOnAnvil>> },
  ) => Promise<void>,
): Promise<void> {
  const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
  try {
    const rpc = new JsonRpcClient(anvil.url);
    const l1 = new L1Client(rpc);
    const chain = await opChainOnAnvil(rpc, l1, blocks, "none");
    await fn({ rpc, l1, chain });
    await chain.sequencer.close();
  } finally {
    await anvil.stop();
  }
}

/** The sequencer engine as the batcher reads it. */
function engineSource(engine: ExecutionEngine, safe = 0n): BatcherSource {
  return {
    blockByNumber(number) {
      const b = engine.chain.getBlockByNumber(number);
      if (b === undefined) return Promise.resolve(undefined);
      const h = b.header;
      return Promise.resolve({
        number: h.number,
        parentHash: h.parentHash,
        timestamp: h.timestamp,
        transactions: b.transactions,
        hash: hashHeader(h),
      });
    },
    headNumber: () => Promise.resolve(engine.chain.headNumber()),
    safeNumber: () => Promise.resolve(safe),
  };
}

Deno.test({
  name: "batcher: the sequencer's blocks posted as calldata frames are derived back by a verifier",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    await onAnvilChain(12, async ({ rpc, l1, chain }) => {
      const batcher = new Batcher(chain.cfg, {
        source: engineSource(chain.sequencer),
        l1: rpc,
        key: hexToBytes(DEV_PRIVATE_KEY),
      }, { maxFrameSize: 1_000 });
      assertEquals(await batcher.step(), 12);
      assert(batcher.sent >= 2, `${batcher.sent} transactions`);
      const sent = batcher.sent;
      assertEquals(await batcher.step(), 0, "nothing new to submit");
      assertEquals(batcher.sent, sent);
      await verifyFromL1(l1, chain);
      // The block it submitted last disappears (a reorg): it starts again from the safe head (5 here).
      let reorged = false;
      const shortened: BatcherSource = {
        ...engineSource(chain.sequencer, 5n),
        blockByNumber: async (n) => {
          const b = await engineSource(chain.sequencer).blockByNumber(n);
          return reorged && n === 12n && b !== undefined ? { ...b, hash: new Uint8Array(32) } : b;
        },
      };
      const again = new Batcher(chain.cfg, { source: shortened, l1: rpc, key: hexToBytes(DEV_PRIVATE_KEY) }, {
        maxFrameSize: 100_000,
      });
      assertEquals(await again.step(), 7, "blocks 6-12 from the safe head 5");
      assertEquals(await again.step(), 0);
      reorged = true;
      assertEquals(await again.step(), 7, "block 12 changed under it: from the safe head again");
    });
  },
});

Deno.test({
  name: "batcher: the channels an L1 reorg takes away are sent again, from the oldest of them",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    await onAnvilChain(8, async ({ rpc, l1, chain }) => {
      let safe = 0n;
      const batcher = new Batcher(chain.cfg, {
        source: { ...engineSource(chain.sequencer), safeNumber: () => Promise.resolve(safe) },
        l1: rpc,
        key: hexToBytes(DEV_PRIVATE_KEY),
      }, { maxFrameSize: 100_000, maxBlocksPerChannel: 4 });
      const beforeAll = await rpc.call<string>("evm_snapshot");
      assertEquals(await batcher.step(), 4, "channel of blocks 1-4");
      const beforeSecond = await rpc.call<string>("evm_snapshot");
      assertEquals(await batcher.step(), 4, "channel of blocks 5-8");
      assertEquals(await batcher.step(), 0);
      // An L1 reorg takes the second channel away: blocks 5-8 again, and a verifier reading only L1
      // derives the whole chain.
      assert(await rpc.call<boolean>("evm_revert", [beforeSecond]));
      assertEquals(await batcher.step(), 4, "only the channel the reorg took");
      assertEquals(await batcher.step(), 0);
      await verifyFromL1(l1, chain);
      // A deeper one takes both: from block 1 again.
      assert(await rpc.call<boolean>("evm_revert", [beforeAll]));
      assertEquals(await batcher.step(), 4, "blocks 1-4 again");
      assertEquals(await batcher.step(), 4, "blocks 5-8 again");
      await verifyFromL1(l1, chain);
      // A safe head going back (a rollup node restarting re-derives a window) is no reason to send again.
      safe = 5n;
      assertEquals(await batcher.step(), 0);
      safe = 2n;
      assertEquals(await batcher.step(), 0);
    });
  },
});

Deno.test({
  name: "batcher: waits while the node has no safe head; on from a safe head past what it sent (a restart)",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    await onAnvilChain(12, async ({ rpc, chain }) => {
      let safe: bigint | undefined = undefined;
      const batcher = new Batcher(chain.cfg, {
        source: { ...engineSource(chain.sequencer), safeNumber: () => Promise.resolve(safe) },
        l1: rpc,
        key: hexToBytes(DEV_PRIVATE_KEY),
      }, { maxFrameSize: 100_000, maxBlocksPerChannel: 4 });
      // A node just started: no safe head yet, nothing sent (it was the whole chain from block 1).
      assertEquals(await batcher.step(), 0);
      assertEquals(batcher.sent, 0);
      safe = 0n;
      assertEquals(await batcher.step(), 4, "blocks 1-4");
      // The node derived up to 9 from other channels (an earlier run's): on from 10, not 5.
      safe = 9n;
      assertEquals(await batcher.step(), 3, "blocks 10-12");
      assertEquals(await batcher.step(), 0);
      // The safe head going back (a re-derivation window) is still no reason to send again.
      safe = 2n;
      assertEquals(await batcher.step(), 0);
    });
  },
});

Deno.test({
  name: "batcher: blobs, several frames to a blob transaction (--target-num-frames), in order on L1",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    await onAnvilChain(12, async ({ rpc, l1, chain }) => {
      // Small blobs, so that 12 blocks make several frames.
      const batcher = new Batcher(chain.cfg, {
        source: engineSource(chain.sequencer),
        l1: rpc,
        key: hexToBytes(DEV_PRIVATE_KEY),
        kzg: await loadKzg(),
      }, { dataAvailability: "blobs", targetNumFrames: 2, maxBlobDataSize: 400 });
      assertEquals(await batcher.step(), 12);
      // Each batcher transaction: type 3, no calldata, at most two blobs; the frames of the one channel
      // in order across them, the last one closing it.
      const frames = [];
      const perTx = [];
      const inbox = bytesToHex(chain.cfg.batchInboxAddress).toLowerCase();
      for (let n = 1, head = Number(await rpc.call<string>("eth_blockNumber")); n <= head; n++) {
        const b = await rpc.call<
          { transactions: { to: string | null; type: string; input: string; hash: string }[] }
        >(
          "eth_getBlockByNumber",
          [`0x${n.toString(16)}`, true],
        );
        for (const t of b.transactions) {
          if (t.to?.toLowerCase() !== inbox) continue;
          assertEquals([t.type, t.input], ["0x3", "0x"]);
          const blobs = await rpc.call<string[]>("anvil_getBlobsByTransactionHash", [t.hash]);
          perTx.push(blobs.length);
          for (const blob of blobs) frames.push(...parseBatcherTxData(decodeBlobData(hexToBytes(blob))));
        }
      }
      assert(frames.length >= 3, `${frames.length} frames`);
      assertEquals(perTx.length, batcher.sent);
      assertEquals(perTx, perTx.map((_, i) => Math.min(2, frames.length - 2 * i)));
      assertEquals(frames.map((f) => f.number), frames.map((_, i) => i));
      assertEquals(frames.map((f) => f.isLast), frames.map((_, i) => i === frames.length - 1));
    });
  },
});

Deno.test({
  name:
    "batcher: --data-availability-type=auto sends blobs while they cost less per byte (anvil's blob base fee)",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    await onAnvilChain(8, async ({ rpc, l1, chain }) => {
      const batcher = new Batcher(chain.cfg, {
        source: engineSource(chain.sequencer),
        l1: rpc,
        key: hexToBytes(DEV_PRIVATE_KEY),
        kzg: await loadKzg(),
      }, { dataAvailability: "auto" });
      assertEquals(await batcher.step(), 8);
      const head = await rpc.call<{ transactions: { type: string; input: string }[] }>(
        "eth_getBlockByNumber",
        [
          "latest",
          true,
        ],
      );
      assertEquals(head.transactions.map((t) => [t.type, t.input]), [["0x3", "0x"]]);
    });
  },
});
