import zlib from "node:zlib";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { rlpEncode } from "../../../lib/common/rlp.ts";
import {
  channelCompression,
  channelData,
  compressChannel,
  decompressChannel,
  readChannelBatches,
} from "../../../lib/protocol/channel.ts";
import type { Frame } from "../../../lib/protocol/frame.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../../assert.ts";

/** Batches of distinct sizes (one byte, short, long RLP strings), with a version byte each. */
const batches = [
  Uint8Array.of(0),
  Uint8Array.from({ length: 40 }, (_, i) => (i === 0 ? 0 : i)),
  Uint8Array.from({ length: 3000 }, (_, i) => (i === 0 ? 1 : (i * 7) & 0xff)),
];

Deno.test("channel: zlib and Brotli channels give their batches back (derivation.md Channel Format, Fjord)", async () => {
  for (const kind of ["zlib", "brotli"] as const) {
    const data = compressChannel(batches, kind);
    assertEquals(channelCompression(data, true), kind);
    if (kind === "brotli") assertEquals(data[0], 1);
    else assertEquals(data[0] & 0x0f, 8);
    const out = await decompressChannel(data, { fjord: true });
    assertEquals(out.truncated, false);
    assertEquals(out.error, undefined);
    assertEquals(readChannelBatches(out.data), { batches });
  }
});

Deno.test("channel: the version byte decides; Brotli only from Fjord; other versions are invalid", async () => {
  const br = compressChannel(batches, "brotli");
  const e = assertThrows(() => channelCompression(br, false));
  assert(isErrorCode(e, "CHANNEL_INVALID") && (e as Error).message.includes("before Fjord"));
  await assertRejects(() => decompressChannel(br, { fjord: false }));
  for (const v of [0, 2, 0x10, 0x7e]) {
    const e2 = assertThrows(() => channelCompression(Uint8Array.of(v, 1, 2), true));
    assert((e2 as Error).message.includes(`unknown channel version ${v}`));
  }
  // Low nibble 8 or 15: the zlib header byte (RFC 1950), in the legacy format before and after Fjord.
  assertEquals(channelCompression(Uint8Array.of(0x78), false), "zlib");
  assertEquals(channelCompression(Uint8Array.of(0x0f), true), "zlib");
  assertThrows(() => channelCompression(new Uint8Array(), true));
});

Deno.test("channel: decompression stops at the limit; the batches wholly inside it stand", async () => {
  // 30 batches of 1,000 bytes (1,003 with their RLP header); a limit of 10,500 keeps 10.
  const many = Array.from(
    { length: 30 },
    (_, i) => new Uint8Array(1000).fill(i + 1).map((b, j) => j === 0 ? 0 : b),
  );
  const data = compressChannel(many, "zlib");
  const out = await decompressChannel(data, { fjord: false, limit: 10_500 });
  assertEquals(out.data.length, 10_500);
  assert(out.truncated);
  const read = readChannelBatches(out.data);
  assertEquals(read.batches, many.slice(0, 10));
  assert(read.error !== undefined && read.error.includes("runs past"), read.error);
});

Deno.test("channel: a zip bomb is cut at the limit without inflating the rest", async () => {
  const bomb = new Uint8Array(zlib.deflateSync(new Uint8Array(50_000_000)));
  assert(bomb.length < 100_000);
  const out = await decompressChannel(bomb, { fjord: false, limit: 1_000_000 });
  assertEquals(out.data.length, 1_000_000);
  assert(out.truncated);
});

Deno.test("channel: a corrupt or cut compressed stream yields what came before the error", async () => {
  const many = Array.from(
    { length: 50 },
    (_, i) => Uint8Array.from({ length: 500 }, (_, j) => (j === 0 ? 0 : (i * 31 + j * 17) & 0xff)),
  );
  const data = compressChannel(many, "zlib");
  const cut = await decompressChannel(data.subarray(0, Math.floor(data.length / 2)), { fjord: false });
  assert(cut.error !== undefined, "a cut stream reports an error");
  const read = readChannelBatches(cut.data);
  assert(read.batches.length > 0 && read.batches.length < 50, `${read.batches.length} batches`);
  assertEquals(read.batches, many.slice(0, read.batches.length));
});

Deno.test("channel: batch elements must be RLP byte strings, canonical", () => {
  const list = rlpEncode([Uint8Array.of(1)]);
  const r1 = readChannelBatches(new Uint8Array([...rlpEncode(Uint8Array.of(0, 1)), ...list]));
  assertEquals(r1.batches, [Uint8Array.of(0, 1)]);
  assert(r1.error!.includes("a list"));
  assert(readChannelBatches(Uint8Array.of(0x81, 0x05)).error!.includes("non-canonical"));
  assert(readChannelBatches(Uint8Array.of(0xb8, 0x02, 1, 2)).error!.includes("non-canonical"));
  assert(readChannelBatches(Uint8Array.of(0xb9, 0x01)).error!.includes("truncated"));
  assertEquals(readChannelBatches(new Uint8Array()), { batches: [] });
});

function frame(number: number, data: number[], isLast: boolean): Frame {
  return { channelId: new Uint8Array(16).fill(1), number, data: Uint8Array.from(data), isLast };
}

Deno.test("channel: frames in any order make the channel; gaps, duplicates and open channels do not", () => {
  assertEquals(
    channelData([frame(2, [5, 6], true), frame(0, [1], false), frame(1, [2, 3, 4], false)]),
    Uint8Array.of(1, 2, 3, 4, 5, 6),
  );
  assertEquals(channelData([frame(0, [], true)]), new Uint8Array());
  const msg = (frames: Frame[]) => (assertThrows(() => channelData(frames)) as Error).message;
  assert(msg([frame(0, [1], false), frame(2, [2], true)]).includes("frame 1 is missing"));
  assert(msg([frame(0, [1], false)]).includes("not closed"));
  assert(msg([frame(0, [1], false), frame(0, [1], true)]).includes("appears twice"));
  assert(msg([frame(0, [1], true), frame(1, [1], false)]).includes("after the closing frame"));
  assert(msg([frame(0, [1], true), frame(1, [1], true)]).includes("closed twice"));
});
