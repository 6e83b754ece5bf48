import { assertEquals, assertThrows } from "../../assert.ts";
import {
  bigIntToBytes,
  bytesToBigInt,
  bytesToHex,
  bytesToUnprefixedHex,
  fromQuantity,
  hexToBytes,
  toQuantity,
} from "../../../lib/common/mod.ts";

Deno.test("hex round trip", () => {
  const bytes = new Uint8Array([0, 1, 0xab, 0xff]);
  assertEquals(bytesToHex(bytes), "0x0001abff");
  assertEquals(hexToBytes("0x0001ABff"), bytes);
  assertEquals(hexToBytes("0001abff"), bytes);
});

Deno.test("hex rejects odd length and bad characters", () => {
  assertThrows(() => hexToBytes("0x123"), Error, "odd length");
  assertThrows(() => hexToBytes("0xzz"), Error, "invalid character");
});

Deno.test("quantities are strict", () => {
  assertEquals(toQuantity(0n), "0x0");
  assertEquals(toQuantity(255), "0xff");
  assertEquals(fromQuantity("0x400"), 1024n);
  assertThrows(() => fromQuantity("0x0400"), Error, "Cannot decode quantity");
  assertThrows(() => fromQuantity("0x"), Error, "Cannot decode quantity");
  assertThrows(() => toQuantity(-1n), Error, "negative");
});

Deno.test("bigint bytes", () => {
  assertEquals(bigIntToBytes(0n), new Uint8Array());
  assertEquals(bigIntToBytes(258n, 4), new Uint8Array([0, 0, 1, 2]));
  assertEquals(bytesToBigInt(new Uint8Array([1, 2])), 258n);
  assertThrows(() => bigIntToBytes(1n << 40n, 2), Error, "Cannot fit");
});

Deno.test("bytesToUnprefixedHex: lower-case hex without the prefix, as bytesToHex less 0x", () => {
  for (
    const b of [
      new Uint8Array(),
      new Uint8Array([0]),
      new Uint8Array([0xab, 0x0c, 0xff]),
      new Uint8Array(32).fill(0x7e),
    ]
  ) {
    assertEquals(bytesToUnprefixedHex(b), bytesToHex(b).slice(2));
  }
});

Deno.test("bigIntToBytes: minimal and padded forms agree with the hex form around every byte boundary", () => {
  const viaHex = (v: bigint, length?: number) => {
    let hex = v.toString(16);
    if (hex.length % 2) hex = "0" + hex;
    const raw = v === 0n ? new Uint8Array() : hexToBytes(`0x${hex}`);
    if (length === undefined) return raw;
    const out = new Uint8Array(length);
    out.set(raw, length - raw.length);
    return out;
  };
  for (let bits = 0n; bits <= 80n; bits++) {
    for (const v of [(1n << bits) - 1n, 1n << bits, (1n << bits) + 1n]) {
      if (v < 0n) continue;
      assertEquals(bigIntToBytes(v), viaHex(v), `${v}`);
      assertEquals(bigIntToBytes(v, 32), viaHex(v, 32), `${v} in 32`);
    }
  }
  assertThrows(() => bigIntToBytes(256n, 1), Error, "Cannot fit 2 bytes into 1");
  assertThrows(() => bigIntToBytes(1n << 70n, 8), Error, "Cannot fit 9 bytes into 8");
  assertThrows(() => bigIntToBytes(-1n), Error, "negative");
});
