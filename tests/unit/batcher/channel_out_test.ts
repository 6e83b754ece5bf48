import { concatBytes } from "../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import {
  blocksToSpanBatch,
  blockToSingularBatch,
  buildChannel,
  buildChannelFromBatches,
  channelFrames,
} from "../../../lib/batcher/mod.ts";
import { spanBatchToSingular } from "../../../lib/protocol/span_batch_singular.ts";
import { decodeBatch } from "../../../lib/protocol/batch.ts";
import { decompressChannel, readChannelBatches } from "../../../lib/protocol/channel.ts";
import { encodeDepositTx } from "../../../lib/protocol/deposit_tx.ts";
import {
  encodeBatcherTxData,
  encodeFrame,
  FRAME_OVERHEAD,
  parseBatcherTxData,
} from "../../../lib/protocol/frame.ts";
import { DEV_L1_BLOCK_INFO, encodeL1InfoCalldata } from "../../../lib/protocol/l1_block_info.ts";
import { L1_ATTRIBUTES_DEPOSITOR_ADDRESS, L1_BLOCK_ADDRESS } from "../../../lib/protocol/predeploys.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";

const epochHash = new Uint8Array(32).fill(0x42);
const l1Info = encodeDepositTx({
  sourceHash: new Uint8Array(32),
  from: L1_ATTRIBUTES_DEPOSITOR_ADDRESS,
  to: L1_BLOCK_ADDRESS,
  mint: 0n,
  value: 0n,
  gas: 1_000_000n,
  isSystemTx: false,
  data: encodeL1InfoCalldata("isthmus", { ...DEV_L1_BLOCK_INFO, number: 77n, blockHash: epochHash }),
});
const userDeposit = encodeDepositTx({
  sourceHash: new Uint8Array(32).fill(1),
  from: new Uint8Array(20).fill(1),
  to: null,
  mint: 1n,
  value: 0n,
  gas: 100_000n,
  isSystemTx: false,
  data: new Uint8Array(),
});
const userTx = Uint8Array.of(2, 0xc1, 0x80);

Deno.test("batcher: an L2 block's singular batch takes its epoch from the L1-info deposit, drops deposits", () => {
  const block = {
    number: 5n,
    parentHash: new Uint8Array(32).fill(9),
    timestamp: 1234n,
    transactions: [l1Info, userDeposit, userTx],
  };
  assertEquals(blockToSingularBatch(block), {
    parentHash: block.parentHash,
    epochNumber: 77n,
    epochHash,
    timestamp: 1234n,
    transactions: [userTx],
  });
  const e = assertThrows(() => blockToSingularBatch({ ...block, transactions: [userTx] }));
  assert(isErrorCode(e, "BATCH_NO_L1_INFO"));
});

Deno.test("batcher: a channel cut into frames that fit, read back whole", async () => {
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16 & 0xff;
  const batches = Array.from({ length: 20 }, (_, i) => ({
    parentHash: new Uint8Array(32).fill(i),
    epochNumber: 77n,
    epochHash,
    timestamp: 1000n + 2n * BigInt(i),
    transactions: [Uint8Array.from({ length: 200 }, rand)],
  }));
  const id = new Uint8Array(16).fill(3);
  const frames = buildChannel(id, batches, { compression: "zlib", maxFrameSize: 600 });
  assert(frames.length > 3, `${frames.length} frames`);
  for (const f of frames) assert(encodeFrame(f).length <= 600);
  assertEquals(frames.map((f) => f.number), frames.map((_, i) => i));
  assertEquals(frames.map((f) => f.isLast), frames.map((_, i) => i === frames.length - 1));
  // One batcher transaction per frame, parsed back, joined, decompressed, decoded.
  const parsed = frames.map((f) => parseBatcherTxData(encodeBatcherTxData([f]))[0]);
  const data = concatBytes(...parsed.map((f) => f.data));
  const raw = readChannelBatches((await decompressChannel(data, { fjord: false })).data);
  assertEquals(raw.batches.map((b) => decodeBatch(b)), batches.map((batch) => ({ kind: "singular", batch })));
});

Deno.test("batcher: frames of exactly the room, an empty channel, and impossible sizes", () => {
  const id = new Uint8Array(16);
  const data = new Uint8Array(100).fill(5);
  const frames = channelFrames(id, data, FRAME_OVERHEAD + 50);
  assertEquals(frames.map((f) => f.data.length), [50, 50]);
  assertEquals(channelFrames(id, new Uint8Array(), 100).map((f) => [f.data.length, f.isLast]), [[0, true]]);
  assert(isErrorCode(assertThrows(() => channelFrames(id, data, FRAME_OVERHEAD)), "FRAME_TOO_SMALL"));
  assert(
    isErrorCode(
      assertThrows(() => channelFrames(id, new Uint8Array(70_000), FRAME_OVERHEAD + 1)),
      "CHANNEL_TOO_LARGE",
    ),
  );
});

Deno.test("batcher: consecutive blocks as one span batch, read back by derivation into the same blocks", async () => {
  const common = new Common({ chain: { ...Mainnet, chainId: 901 }, hardfork: Hardfork.Prague });
  const key = new Uint8Array(32).fill(7);
  const signed = (nonce: bigint) =>
    createFeeMarket1559Tx({
      chainId: 901n,
      nonce,
      to: new Uint8Array(20).fill(3),
      value: 5n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
    }, { common }).sign(key).serialize();
  const info = (number: bigint, sequenceNumber: bigint) =>
    encodeDepositTx({
      sourceHash: new Uint8Array(32),
      from: L1_ATTRIBUTES_DEPOSITOR_ADDRESS,
      to: L1_BLOCK_ADDRESS,
      mint: 0n,
      value: 0n,
      gas: 1_000_000n,
      isSystemTx: false,
      data: encodeL1InfoCalldata("isthmus", {
        ...DEV_L1_BLOCK_INFO,
        number,
        blockHash: new Uint8Array(32).fill(Number(number)),
        sequenceNumber,
      }),
    });
  const genesisTime = 1000n;
  // Blocks 11-13: the second block of epoch 77, then epoch 78 opens (sequence number 0).
  const blocks = [
    {
      number: 11n,
      parentHash: new Uint8Array(32).fill(11),
      timestamp: 1022n,
      transactions: [info(77n, 1n), signed(0n)],
    },
    {
      number: 12n,
      parentHash: new Uint8Array(32).fill(12),
      timestamp: 1024n,
      transactions: [info(78n, 0n), userDeposit],
    },
    {
      number: 13n,
      parentHash: new Uint8Array(32).fill(13),
      timestamp: 1026n,
      transactions: [info(78n, 1n), signed(1n), signed(2n)],
    },
  ];
  const frames = buildChannelFromBatches(new Uint8Array(16).fill(4), [
    blocksToSpanBatch(blocks, genesisTime, 901n),
  ], {
    compression: "brotli",
    maxFrameSize: 300,
  });
  const data = concatBytes(...frames.map((f) => f.data));
  const raw = readChannelBatches((await decompressChannel(data, { fjord: true })).data);
  assertEquals(raw.batches.length, 1);
  const decoded = decodeBatch(raw.batches[0]);
  assert(decoded.kind === "span");
  assertEquals(decoded.batch.parentCheck, blocks[0].parentHash.slice(0, 20));
  assertEquals(decoded.batch.originBits, [false, true, false]);
  const origins = [77n, 78n].map((n) => ({ number: n, hash: new Uint8Array(32).fill(Number(n)) }));
  const back = spanBatchToSingular(decoded.batch, genesisTime, 2n, 901n, origins);
  assertEquals(
    back.map((b) => [b.epochNumber, b.epochHash, b.timestamp, b.transactions]),
    blocks.map((b) => {
      const s = blockToSingularBatch(b);
      return [s.epochNumber, s.epochHash, s.timestamp, s.transactions];
    }),
  );
});
