/**
 * The unsafe payload queue (op-node PayloadsQueue): blocks arriving out of order, with a gap, wait for
 * their parent and are inserted into a real engine once it arrives; blocks at or below the head and
 * blocks that do not build on it are dropped; duplicates are not queued twice; the memory bound drops the
 * lowest blocks first (op-node's estimate: 800 bytes a payload, 24 a transaction plus its bytes).
 */
import { equalBytes } from "../../../lib/common/bytes.ts";
import { ExecutionEngine } from "../../../lib/execution/engine/mod.ts";
import { buildDevGenesis } from "../../../lib/execution/genesis/mod.ts";
import type { L2BlockRef } from "../../../lib/protocol/block_ref.ts";
import type { GossipBlock } from "../../../lib/protocol/gossip_block.ts";
import type { RollupConfig } from "../../../lib/protocol/rollup_config.ts";
import { forksAtGenesis } from "../../../lib/protocol/hardforks.ts";
import { payloadMemSize, UnsafePayloadQueue, unsafePayloadQueue } from "../../../lib/rollup/p2p/mod.ts";
import { embeddedL2 } from "../../../lib/node/embedded_l2.ts";
import { assertEquals, assertThrows } from "../../assert.ts";
import { buildPayload, DevMiner, ExecutionEngineApi, transfer } from "../execution/engine/helpers.ts";
import { testPayload } from "./p2p_helpers.ts";

const ZERO32 = new Uint8Array(32);
const ZERO_REF: L2BlockRef = {
  hash: ZERO32,
  number: 0n,
  parentHash: ZERO32,
  timestamp: 0n,
  l1Origin: { hash: ZERO32, number: 0n },
  sequenceNumber: 0n,
};
/** Isthmus from genesis, as the dev genesis below: engine_newPayloadV4 and forkchoiceUpdatedV3. */
const CFG = { forks: forksAtGenesis("isthmus") } as unknown as RollupConfig;

Deno.test("unsafe payload queue: blocks out of order and with a gap reach a real engine in order", async () => {
  const genesis = buildDevGenesis({ upTo: "isthmus", timestamp: 1_700_000_000n });
  const seq = await ExecutionEngine.open({ genesis });
  const verifier = await ExecutionEngine.open({ genesis });
  try {
    const api = new ExecutionEngineApi({}, { engine: seq });
    const miner = new DevMiner({}, { engine: seq, now: () => 1_700_000_100 });
    const blocks: GossipBlock[] = [];
    for (let i = 0; i < 4; i++) {
      const { envelope } = await buildPayload(api, miner, (a) => {
        a.transactions = [...(a.transactions ?? []), transfer(seq, 0, BigInt(i)).serialize()];
      });
      await seq.forkchoiceUpdate(envelope.executionPayload.blockHash);
      blocks.push({
        payload: envelope.executionPayload,
        parentBeaconBlockRoot: envelope.parentBeaconBlockRoot,
        signature: new Uint8Array(65),
      });
    }
    const vApi = new ExecutionEngineApi({}, { engine: verifier });
    const queue = unsafePayloadQueue(
      CFG,
      vApi,
      embeddedL2(verifier),
      () => ({ safe: ZERO_REF, finalized: ZERO_REF }),
    );
    // 3 and 4 first: they wait for 1 and 2.
    queue.push(blocks[3]);
    queue.push(blocks[2]);
    assertEquals(queue.push(blocks[2]), false, "a duplicate is not queued twice");
    assertEquals((await queue.drain()).inserted, []);
    assertEquals([queue.size, queue.lowest], [2, 3n]);
    assertEquals(verifier.head().header.number, 0n);
    // 1 arrives: only it goes in, 3 and 4 still wait for 2.
    queue.push(blocks[0]);
    assertEquals((await queue.drain()).inserted.map((b) => b.payload.blockNumber), [1n]);
    assertEquals(queue.size, 2);
    // 2 arrives: the whole run goes in.
    queue.push(blocks[1]);
    const run = await queue.drain();
    assertEquals(run.inserted.map((b) => b.payload.blockNumber), [2n, 3n, 4n]);
    assertEquals(queue.size, 0);
    assertEquals(queue.bytes, 0);
    assertEquals(verifier.head().header.number, 4n);
    assertEquals(equalBytes(verifier.head().hash, blocks[3].payload.blockHash), true);
    // A block at or below the head is dropped.
    queue.push(blocks[1]);
    assertEquals((await queue.drain()).dropped.map((d) => d.why), ["at or below the unsafe head"]);
  } finally {
    await seq.close();
    await verifier.close();
  }
});

function fake(number: bigint, parent: number, hash: number, txs = 1): GossipBlock {
  const payload = testPayload(number, 1000n + number);
  payload.parentHash = new Uint8Array(32).fill(parent);
  payload.blockHash = new Uint8Array(32).fill(hash);
  payload.transactions = Array.from({ length: txs }, () => new Uint8Array(100));
  return { payload, signature: new Uint8Array(65) };
}

Deno.test("unsafe payload queue: a block not on the head is dropped; the bound drops the lowest", async () => {
  let head: { number: bigint; hash: Uint8Array } = { number: 5n, hash: new Uint8Array(32).fill(5) };
  const inserted: bigint[] = [];
  const queue = new UnsafePayloadQueue({
    head: () => Promise.resolve(head),
    insert: (b) => {
      inserted.push(b.payload.blockNumber);
      head = { number: b.payload.blockNumber, hash: b.payload.blockHash };
      return Promise.resolve("inserted");
    },
  }, 3 * (800 + 24 + 100));
  assertEquals(payloadMemSize(fake(6n, 5, 6)), 800 + 24 + 100);
  // Two blocks at 6: the one on another parent is dropped, the one on the head goes in, then 7.
  queue.push(fake(6n, 9, 66));
  queue.push(fake(6n, 5, 6));
  queue.push(fake(7n, 6, 7));
  const r = await queue.drain();
  assertEquals(r.dropped.map((d) => [d.block.payload.blockNumber, d.why]), [[
    6n,
    "does not build on the unsafe head",
  ]]);
  assertEquals(inserted, [6n, 7n]);
  // Over the bound (three payloads): the lowest goes.
  queue.push(fake(10n, 9, 10));
  queue.push(fake(11n, 10, 11));
  queue.push(fake(12n, 11, 12));
  queue.push(fake(13n, 12, 13));
  assertEquals([queue.size, queue.lowest], [3, 11n]);
  assertThrows(() => queue.push(fake(20n, 19, 20, 20)), Error, "over the queue's");
});

Deno.test("unsafe payload queue: each push heard, and the size, bytes and lowest block after each change", async () => {
  const pushed: bigint[] = [];
  const seen: [number, number, bigint | undefined][] = [];
  let head: { number: bigint; hash: Uint8Array } = { number: 5n, hash: new Uint8Array(32).fill(5) };
  const queue = new UnsafePayloadQueue({
    head: () => Promise.resolve(head),
    insert: (b) => {
      head = { number: b.payload.blockNumber, hash: b.payload.blockHash };
      return Promise.resolve("inserted");
    },
    onPush: (b) => pushed.push(b.payload.blockNumber),
    onChange: (q) => seen.push([q.size, q.bytes, q.peek()?.payload.blockNumber]),
  });
  const size = payloadMemSize(fake(7n, 6, 7));
  queue.push(fake(7n, 6, 7));
  queue.push(fake(6n, 5, 6));
  await queue.drain();
  assertEquals(pushed, [7n, 6n]);
  assertEquals(seen, [[1, size, 7n], [2, 2 * size, 6n], [1, size, 7n], [0, 0, undefined]]);
});
