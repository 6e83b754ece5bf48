import { isErrorCode } from "../../../lib/common/errors.ts";
import {
  BLOB_SIZE,
  decodeBlobData,
  encodeBlobData,
  MAX_BLOB_DATA_SIZE,
} from "../../../lib/protocol/blob_data.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";

function refused(blob: Uint8Array, part: string): void {
  const e = assertThrows(() => decodeBlobData(blob));
  assert(isErrorCode(e, "BLOB_INVALID"), String(e));
  assert((e as Error).message.includes(part), `"${(e as Error).message}" should say "${part}"`);
}

Deno.test("blob data: the layout of ecotone/derivation.md Blob Encoding, byte by byte", () => {
  // 127 stream bytes per round: version 0, length 3 bytes, then data. Put marked bytes where x, y, z go.
  const data = new Uint8Array(200);
  data[31 - 4] = 0b1110_0101; // x (stream byte 31)
  data[63 - 4] = 0b1010_0110; // y (stream byte 63)
  data[95 - 4] = 0b0111_1111; // z (stream byte 95)
  data[0] = 0xaa; // stream byte 4
  const blob = encodeBlobData(data);
  assertEquals(blob.length, BLOB_SIZE);
  assertEquals([...blob.subarray(0, 6)], [0b0010_0101, 0, 0, 0, 200, 0xaa]); // A = x & 0x3f, version, length
  assertEquals(blob[32], (0b0110) | (0b11 << 4)); // B = y low nibble | x top bits >> 2
  assertEquals(blob[64], 0b0011_1111); // C = z & 0x3f
  assertEquals(blob[96], (0b01 << 4) | 0b1010); // D = z top bits >> 2 | y high nibble >> 4
  for (let e = 0; e < 4096; e++) assertEquals(blob[32 * e] & 0xc0, 0);
  assertEquals(decodeBlobData(blob), data);
});

Deno.test("blob data: round trips from empty to the largest data", () => {
  for (const n of [0, 1, 27, 28, 127, 128, 4000, 130_043, MAX_BLOB_DATA_SIZE]) {
    const data = Uint8Array.from({ length: n }, (_, i) => (i * 131 + 7) & 0xff);
    assertEquals(decodeBlobData(encodeBlobData(data)), data, `${n} bytes`);
  }
  assertEquals(MAX_BLOB_DATA_SIZE, 130_044);
  assertThrows(() => encodeBlobData(new Uint8Array(MAX_BLOB_DATA_SIZE + 1)));
});

Deno.test("blob data: invalid encodings are refused", () => {
  const good = encodeBlobData(Uint8Array.of(1, 2, 3));
  const top = good.slice();
  top[32 * 777] |= 0x80;
  refused(top, "field element 777 has its top bits set");
  const version = good.slice();
  version[1] = 1;
  refused(version, "unknown encoding version 1");
  const long = encodeBlobData(new Uint8Array());
  long[2] = 0x01;
  long[3] = 0xfc;
  long[4] = 0xfd; // length 130,301
  refused(long, "above 130044");
  const trailing = good.slice();
  trailing[32 * 4095 + 31] = 1;
  refused(trailing, "non-zero byte after the data");
  // A trailing bit hidden in a first byte (the spread x/y/z bits) counts too.
  const hidden = good.slice();
  hidden[32 * 100] = 0x01;
  refused(hidden, "non-zero byte after the data");
  refused(new Uint8Array(100), "a blob is 131072");
});
