import type { L1BlockRef } from "../../../../lib/protocol/block_ref.ts";
import type { Frame } from "../../../../lib/protocol/frame.ts";
import { encodeBatcherTxData, MAX_FRAME_DATA_LENGTH } from "../../../../lib/protocol/frame.ts";
import {
  ChannelAssembler,
  ChannelBank,
  FRAME_SIZE_OVERHEAD,
  FrameQueue,
  pruneFramesHolocene,
} from "../../../../lib/rollup/derive/mod.ts";
import { rollupFixture } from "./rollup_fixture.ts";
import { assert, assertEquals } from "../../../assert.ts";

const l1 = (number: bigint): L1BlockRef => ({
  hash: new Uint8Array(32).fill(Number(number % 250n)),
  number,
  parentHash: new Uint8Array(32),
  timestamp: number * 12n,
});
const id = (n: number) => new Uint8Array(16).fill(n);
const f = (ch: number, number: number, data: number[], isLast = false): Frame => ({
  channelId: id(ch),
  number,
  data: Uint8Array.from(data),
  isLast,
});
const label = (frames: Frame[]) =>
  frames.map((x) => `${x.channelId[0]}:${x.number}${x.isLast ? "!" : ""}`).join(" ");

Deno.test("channel bank: frames in any order make a channel once closed and contiguous", () => {
  const bank = new ChannelBank(rollupFixture());
  const at = l1(10n);
  assertEquals(bank.ingest(f(1, 2, [5], true), at), undefined);
  assertEquals(bank.ingest(f(1, 0, [1, 2], false), at), undefined);
  assertEquals(bank.read(at), undefined, "frame 1 is missing");
  assertEquals(bank.ingest(f(1, 0, [9], false), at), "duplicate frame 0");
  assertEquals(bank.ingest(f(1, 3, [9], true), at), "channel already closed");
  assertEquals(bank.ingest(f(1, 3, [9], false), at), "frame 3 at or after the closing frame 2");
  assertEquals(bank.ingest(f(1, 1, [3, 4], false), at), undefined);
  assertEquals(bank.size, 5 + 3 * FRAME_SIZE_OVERHEAD);
  const ch = bank.read(at)!;
  assertEquals(ch.data, Uint8Array.of(1, 2, 3, 4, 5));
  assertEquals(ch.openBlock.number, 10n);
  assertEquals(bank.channelCount, 0);
  assertEquals(bank.read(at), undefined);
});

Deno.test("channel bank: a closing frame removes the frames numbered after it", () => {
  const bank = new ChannelBank(rollupFixture());
  const at = l1(10n);
  bank.ingest(f(1, 0, [1]), at);
  bank.ingest(f(1, 3, [7, 7, 7]), at);
  bank.ingest(f(1, 1, [2], true), at);
  assertEquals(bank.size, 2 + 2 * FRAME_SIZE_OVERHEAD);
  assertEquals(bank.read(at)!.data, Uint8Array.of(1, 2));
});

Deno.test("channel bank: channels time out after CHANNEL_TIMEOUT L1 blocks (50 from Granite)", () => {
  const bank = new ChannelBank(rollupFixture());
  bank.ingest(f(1, 0, [1]), l1(10n));
  assertEquals(bank.ingest(f(1, 1, [2], true), l1(311n)), "channel timed out");
  assertEquals(bank.read(l1(311n)), undefined);
  assertEquals(bank.channelCount, 0, "the timed-out head is removed on reading");
  // Within the timeout (10 + 300 = 310) the frame is taken.
  bank.ingest(f(2, 0, [1]), l1(10n));
  assertEquals(bank.ingest(f(2, 1, [2], true), l1(310n)), undefined);
  assertEquals(bank.read(l1(310n))!.data, Uint8Array.of(1, 2));
  // Granite: 50 blocks, by the current L1 block's time.
  const granite = new ChannelBank(rollupFixture({ granite: 0n }));
  granite.ingest(f(3, 0, [1]), l1(10n));
  assertEquals(granite.ingest(f(3, 1, [2], true), l1(61n)), "channel timed out");
});

Deno.test("channel bank: before Canyon only the first channel is read; from Canyon the first ready one", () => {
  for (const [forks, want] of [[{}, undefined], [{ canyon: 0n }, 2]] as const) {
    const bank = new ChannelBank(rollupFixture(forks));
    const at = l1(10n);
    bank.ingest(f(1, 0, [1]), at);
    bank.ingest(f(2, 0, [2], true), at);
    assertEquals(bank.read(at)?.id[0], want);
  }
});

Deno.test("channel bank: pruned in FIFO order down to MAX_CHANNEL_BANK_SIZE (100 MB before Fjord)", () => {
  const bank = new ChannelBank(rollupFixture());
  const at = l1(10n);
  const big = new Uint8Array(MAX_FRAME_DATA_LENGTH);
  for (let ch = 1; ch <= 100; ch++) {
    bank.ingest({ channelId: id(ch), number: 0, data: big, isLast: false }, at);
  }
  assertEquals(bank.channelCount, 99, "100 frames of 1,000,200 bytes exceed 100,000,000");
  bank.ingest({ channelId: id(1), number: 0, data: Uint8Array.of(1), isLast: true }, at);
  // Channel 1 was pruned first; the new frame opened it again at the back of the queue.
  assertEquals(bank.channelCount, 100);
  assert(bank.size <= 100_000_000);
});

Deno.test("frame queue: Holocene keeps ordered, contiguous frames per channel", () => {
  // Same channel: gaps and frames after a close are dropped.
  assertEquals(
    label(pruneFramesHolocene([f(1, 0, []), f(1, 2, []), f(1, 1, [], true), f(1, 2, [])])),
    "1:0 1:1!",
  );
  // A first frame of another channel drops the unclosed channel before it, all its frames.
  assertEquals(
    label(pruneFramesHolocene([f(1, 0, []), f(1, 1, []), f(2, 0, []), f(2, 1, [], true)])),
    "2:0 2:1!",
  );
  // A non-first frame of another channel is dropped.
  assertEquals(label(pruneFramesHolocene([f(1, 0, [], true), f(2, 3, []), f(3, 0, [])])), "1:0! 3:0");
  assertEquals(label(pruneFramesHolocene([])), "");
});

Deno.test("frame queue: batcher transactions in, frames out; Holocene pruning by the L1 block's time", () => {
  const tx = encodeBatcherTxData([f(1, 0, [1]), f(2, 1, [2])]);
  const pre = new FrameQueue(rollupFixture());
  assertEquals(pre.push(tx, l1(5n)), undefined);
  assertEquals(pre.length, 2);
  const holo = new FrameQueue(rollupFixture({ holocene: 60n }));
  holo.push(tx, l1(5n));
  assertEquals(holo.length, 1);
  assertEquals(holo.next()?.channelId[0], 1);
  assertEquals(holo.next(), undefined);
  assert(holo.push(Uint8Array.of(1, 2), l1(5n))!.includes("unknown version 1"));
  assertEquals(holo.length, 0);
});

Deno.test("channel assembler: one staging channel, in order, size-limited, timed out", () => {
  const cfg = rollupFixture({ holocene: 0n });
  const asm = new ChannelAssembler(cfg);
  const reasons: string[] = [];
  const drop = (r: string) => reasons.push(r);
  const at = l1(10n);
  assertEquals(asm.add(f(1, 1, [1]), at, drop), undefined);
  assertEquals(reasons.pop(), "frame 1 without a channel");
  asm.add(f(1, 0, [1]), at, drop);
  assertEquals(asm.add(f(1, 2, [3]), at, drop), undefined);
  assertEquals(reasons.pop(), "frame 2 out of order, want 1");
  const done = asm.add(f(1, 1, [2], true), at, drop);
  assertEquals(done?.data, Uint8Array.of(1, 2));
  assertEquals(asm.size, 0);
  // A new first frame replaces an unfinished channel.
  asm.add(f(2, 0, [1]), at, drop);
  asm.add(f(3, 0, [7]), at, drop);
  assertEquals(reasons.pop(), "unfinished channel replaced by a new one");
  assertEquals(asm.add(f(3, 1, [8], true), at, drop)?.data, Uint8Array.of(7, 8));
  // Timeout: opened at 10, gone at 311 (300 blocks before Granite).
  asm.add(f(4, 0, [1]), at, drop);
  assertEquals(asm.add(f(4, 1, [2], true), l1(311n), drop), undefined);
  assert(reasons.includes("staging channel timed out"));
  // Above MAX_RLP_BYTES_PER_CHANNEL (10,000,000 before Fjord) the channel is dropped.
  const big = new Uint8Array(MAX_FRAME_DATA_LENGTH);
  for (let n = 0; n < 10; n++) asm.add({ channelId: id(5), number: n, data: big, isLast: false }, at, drop);
  assertEquals(asm.size, 0);
  assertEquals(reasons.pop(), "channel of 10002000 bytes is above the limit");
});
