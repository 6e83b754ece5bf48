import { isErrorCode } from "../../../lib/common/errors.ts";
import {
  decodeFrame,
  encodeBatcherTxData,
  encodeFrame,
  type Frame,
  FRAME_OVERHEAD,
  MAX_FRAME_DATA_LENGTH,
  parseBatcherTxData,
} from "../../../lib/protocol/frame.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";

const idA = Uint8Array.from({ length: 16 }, (_, i) => i + 1);
const idB = new Uint8Array(16).fill(0xee);

function frame(channelId: Uint8Array, number: number, data: number[], isLast: boolean): Frame {
  return { channelId, number, data: Uint8Array.from(data), isLast };
}

function rejects(fn: () => unknown, part: string): void {
  const e = assertThrows(fn);
  assert(isErrorCode(e, "FRAME_INVALID"), `code of ${e}`);
  assert((e as Error).message.includes(part), `"${(e as Error).message}" should say "${part}"`);
}

Deno.test("frame: the wire layout of derivation.md Frame Format (big-endian u16 and u32, is_last byte)", () => {
  const enc = encodeFrame(frame(idA, 0x0102, [0xaa, 0xbb, 0xcc], true));
  assertEquals(enc.length, FRAME_OVERHEAD + 3);
  assertEquals(enc.subarray(0, 16), idA);
  assertEquals([...enc.subarray(16, 18)], [0x01, 0x02]);
  assertEquals([...enc.subarray(18, 22)], [0, 0, 0, 3]);
  assertEquals([...enc.subarray(22, 25)], [0xaa, 0xbb, 0xcc]);
  assertEquals(enc[25], 1);
  const [back, next] = decodeFrame(enc);
  assertEquals(next, enc.length);
  assertEquals(back, frame(idA, 0x0102, [0xaa, 0xbb, 0xcc], true));
});

Deno.test("frame: a batcher transaction carries frames of several channels; all parse or none", () => {
  const frames = [frame(idA, 0, [1, 2, 3], false), frame(idB, 5, [], true), frame(idA, 1, [4], true)];
  const data = encodeBatcherTxData(frames);
  assertEquals(data[0], 0);
  assertEquals(parseBatcherTxData(data), frames);
  // A truncated last frame rejects the whole transaction.
  rejects(() => parseBatcherTxData(data.subarray(0, data.length - 1)), "only");
  rejects(() => parseBatcherTxData(data.subarray(0, data.length - 5)), "");
});

Deno.test("frame: bad batcher transactions and frames are refused with the reason", () => {
  rejects(() => parseBatcherTxData(new Uint8Array()), "no data");
  rejects(() => parseBatcherTxData(Uint8Array.of(0)), "no frames");
  const one = encodeBatcherTxData([frame(idA, 0, [9], true)]);
  const v1 = one.slice();
  v1[0] = 1;
  rejects(() => parseBatcherTxData(v1), "unknown version 1");
  const last2 = one.slice();
  last2[last2.length - 1] = 2;
  rejects(() => parseBatcherTxData(last2), "is_last is 2");
  // A length above 1,000,000 is refused before looking for the data.
  const huge = encodeFrame(frame(idA, 0, [], false));
  new DataView(huge.buffer).setUint32(18, MAX_FRAME_DATA_LENGTH + 1);
  rejects(() => decodeFrame(huge), "above 1000000");
  rejects(() => decodeFrame(new Uint8Array(21)), "21 bytes left");
});

Deno.test("frame: encoding refuses what cannot be a frame", () => {
  const e1 = assertThrows(() => encodeFrame(frame(new Uint8Array(15), 0, [], false)));
  assert((e1 as Error).message.includes("15 bytes"));
  const e2 = assertThrows(() => encodeFrame(frame(idA, 65536, [], false)));
  assert((e2 as Error).message.includes("uint16"));
  const e3 = assertThrows(() =>
    encodeFrame({ channelId: idA, number: 0, data: new Uint8Array(MAX_FRAME_DATA_LENGTH + 1), isLast: true })
  );
  assert((e3 as Error).message.includes("above"));
  // The largest frame is accepted and round-trips.
  const max = {
    channelId: idA,
    number: 65535,
    data: new Uint8Array(MAX_FRAME_DATA_LENGTH).fill(3),
    isLast: false,
  };
  assertEquals(decodeFrame(encodeFrame(max))[0], max);
});
