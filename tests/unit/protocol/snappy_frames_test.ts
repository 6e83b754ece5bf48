import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import {
  crc32c,
  decodeSnappyFrames,
  encodeSnappyFrames,
  maskedCrc,
} from "../../../lib/protocol/snappy_frames.ts";

Deno.test("snappy frames: CRC-32C check value and the framing format's mask", () => {
  // The standard check value of CRC-32C over "123456789".
  assertEquals(crc32c(new TextEncoder().encode("123456789")), 0xe3069283);
  const c = crc32c(new Uint8Array());
  assertEquals(maskedCrc(new Uint8Array()), ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0);
});

Deno.test("snappy frames: stream identifier, chunks of 64 KiB, round trip; uncompressed chunks read", () => {
  const data = Uint8Array.from({ length: 150_000 }, (_, i) => (i * 7) % 251);
  const framed = encodeSnappyFrames(data);
  assertEquals([...framed.subarray(0, 10)], [0xff, 6, 0, 0, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]);
  assertEquals(decodeSnappyFrames(framed, 1 << 20), data);
  assertEquals(decodeSnappyFrames(encodeSnappyFrames(new Uint8Array()), 10), new Uint8Array());
  // A hand-made uncompressed chunk (type 1): length 4 + 3, masked CRC, the bytes.
  const body = Uint8Array.of(1, 2, 3);
  const chunk = new Uint8Array(4 + 4 + 3);
  chunk.set([0x01, 7, 0, 0]);
  new DataView(chunk.buffer).setUint32(4, maskedCrc(body), true);
  chunk.set(body, 8);
  const stream = new Uint8Array([...framed.subarray(0, 10), ...chunk]);
  assertEquals(decodeSnappyFrames(stream, 10), body);
});

Deno.test("snappy frames: bad checksums, missing identifier, reserved chunks and the size limit are refused", () => {
  const framed = encodeSnappyFrames(new TextEncoder().encode("hello hello hello"));
  const reject = (b: Uint8Array, max = 100) => {
    const e = assertThrows(() => decodeSnappyFrames(b, max));
    assert(isErrorCode(e, "SNAPPY_FRAMES_INVALID"), String(e));
  };
  const badCrc = framed.slice();
  badCrc[14] ^= 1;
  reject(badCrc);
  reject(framed.subarray(10));
  reject(framed.subarray(0, framed.length - 1));
  reject(framed, 5);
  reject(new Uint8Array([...framed.subarray(0, 10), 0x02, 0, 0, 0]));
  // Skippable chunks (0x80-0xfe) are skipped.
  assertEquals(
    decodeSnappyFrames(new Uint8Array([...framed, 0xfe, 1, 0, 0, 9]), 100),
    new TextEncoder().encode("hello hello hello"),
  );
});
