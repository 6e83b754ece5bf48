import { assertEquals, assertThrows } from "../../../assert.ts";
import {
  packDelta,
  packReceipts,
  unpackDelta,
  unpackReceipts,
} from "../../../../lib/execution/state/delta_codec.ts";
import type { StateDelta } from "../../../../lib/execution/state/state_manager.ts";

const addr = (n: number) => n.toString(16).padStart(40, "0");
const slot = (n: number) => n.toString(16).padStart(64, "0");
const fill = (length: number, b: number) => new Uint8Array(length).fill(b);

Deno.test("delta codec: every account form, slot values and resets survive the round trip", () => {
  const delta: StateDelta = {
    resets: [addr(1), addr(2)],
    accounts: [
      [addr(3)],
      [addr(4), null],
      [addr(5), 0n, 0n, fill(32, 0x56), fill(32, 0xc5)],
      // The largest values the fields hold: nonce 2^64-1 (EIP-2681), balance 2^256-1.
      [addr(6), (1n << 64n) - 1n, (1n << 256n) - 1n, fill(32, 1), fill(32, 2)],
      [addr(7), 12345n, 10n ** 21n + 7n, fill(32, 3), fill(32, 4)],
    ],
    slots: [
      [addr(5), slot(0), fill(1, 0x01)],
      [addr(5), slot(0xdeadbeef), null],
      [addr(6), slot(1), fill(33, 0xa0)],
      [addr(6), slot(2), new Uint8Array(0)],
    ],
  };
  assertEquals(unpackDelta(packDelta(delta)), delta);
  assertEquals(unpackDelta(packDelta({ resets: [], accounts: [], slots: [] })), {
    resets: [],
    accounts: [],
    slots: [],
  });
});

Deno.test("delta codec: values out of range and damaged bytes are refused, not mangled", () => {
  const over = (nonce: bigint, balance: bigint): StateDelta => ({
    resets: [],
    accounts: [[addr(1), nonce, balance, fill(32, 0), fill(32, 0)]],
    slots: [],
  });
  assertThrows(() => packDelta(over(1n << 64n, 0n)), Error, "nonce");
  assertThrows(() => packDelta(over(0n, 1n << 256n)), Error, "balance");
  assertThrows(
    () => packDelta({ resets: [], accounts: [[addr(1), 0n, 0n, fill(31, 0), fill(32, 0)]], slots: [] }),
    Error,
    "31-byte",
  );
  const packed = packDelta(over(1n, 2n));
  assertThrows(() => unpackDelta(packed.subarray(0, packed.length - 1)), Error, "truncated");
  assertThrows(() => unpackDelta(new Uint8Array([...packed, 0])), Error, "left over");
  assertThrows(() => unpackDelta(new Uint8Array(5)), Error, "5 bytes");
  const badTag = packed.slice();
  badTag[12 + 41] = 9; // the tag after the 40-character address
  assertThrows(() => unpackDelta(badTag), Error, "account tag 9");
});

Deno.test("receipts codec: the receipts and the index of the first survive the round trip", () => {
  const receipts = [fill(300, 0x02), new Uint8Array(0), fill(1, 0xc0), fill(70_000, 0x7e)];
  const out = unpackReceipts(packReceipts(129, receipts));
  assertEquals(out.first, 129);
  assertEquals(out.receipts, receipts);
  assertEquals(unpackReceipts(packReceipts(0, [])), { first: 0, receipts: [] });
});

Deno.test("receipts codec: bytes it did not write are refused", () => {
  const packed = packReceipts(3, [fill(10, 1), fill(5, 2)]);
  for (const bad of [packed.subarray(0, 7), packed.subarray(0, packed.length - 1)]) {
    assertThrows(() => unpackReceipts(bad), Error, "Cannot unpack receipts");
  }
  const longer = new Uint8Array(packed.length + 1);
  longer.set(packed);
  assertThrows(() => unpackReceipts(longer), Error, "1 bytes left over");
});
