/**
 * 256-bit words to and from bytes (lib/execution/evm/words.ts) against a reference built from hex
 * strings: the edges of each 64-bit limb, zero, one and 2^256 - 1, and a seeded run of random words.
 */
import { bytesToHex, hexToBytes } from "../../../../lib/common/bytes.ts";
import {
  bytesWord,
  minimalBytes,
  readWord,
  wordBytes,
  writeWord,
} from "../../../../lib/execution/evm/words.ts";
import { assertEquals } from "../../../assert.ts";

const MAX = (1n << 256n) - 1n;

/** The 32-byte big-endian encoding of `w`, through a hex string. */
function reference(w: bigint): Uint8Array {
  return hexToBytes("0x" + w.toString(16).padStart(64, "0"));
}

/** A deterministic 256-bit word per index (xorshift on 64-bit limbs). */
function words(count: number): bigint[] {
  let x = 0x9e3779b97f4a7c15n;
  const next = () => {
    x ^= (x << 13n) & 0xffffffffffffffffn;
    x ^= x >> 7n;
    x ^= (x << 17n) & 0xffffffffffffffffn;
    return x;
  };
  const out: bigint[] = [];
  for (let i = 0; i < count; i++) {
    // Some words short (high limbs zero), as most stack values are.
    const limbs = (i % 4) + 1;
    let w = 0n;
    for (let l = 0; l < limbs; l++) w = (w << 64n) | next();
    out.push(w);
  }
  return out;
}

const EDGES = [
  0n,
  1n,
  0xffn,
  (1n << 64n) - 1n,
  1n << 64n,
  (1n << 128n) - 1n,
  1n << 128n,
  (1n << 192n) + 7n,
  1n << 255n,
  MAX,
];

Deno.test("words: writeWord and readWord round-trip at any offset, big-endian", () => {
  const buf = new Uint8Array(96);
  const view = new DataView(buf.buffer);
  for (const w of [...EDGES, ...words(200)]) {
    for (const offset of [0, 7, 48]) {
      buf.fill(0xaa);
      writeWord(view, offset, w);
      assertEquals(bytesToHex(buf.subarray(offset, offset + 32)), bytesToHex(reference(w)));
      // Nothing written outside the 32 bytes.
      assertEquals(offset === 0 ? 0xaa : buf[offset - 1], 0xaa);
      assertEquals(buf[offset + 32], 0xaa);
      assertEquals(readWord(view, offset), w);
    }
  }
});

Deno.test("words: wordBytes is a fresh 32-byte copy; minimalBytes drops the leading zeros (zero is empty)", () => {
  for (const w of [...EDGES, ...words(200)]) {
    const a = wordBytes(w);
    assertEquals(bytesToHex(a), bytesToHex(reference(w)));
    const hex = w.toString(16);
    assertEquals(bytesToHex(minimalBytes(w)), w === 0n ? "0x" : "0x" + (hex.length % 2 ? "0" : "") + hex);
  }
  // Fresh arrays: a caller keeping one is not overwritten by the next conversion.
  const first = wordBytes(1n);
  wordBytes(MAX);
  minimalBytes(MAX);
  assertEquals(bytesToHex(first), bytesToHex(reference(1n)));
});

Deno.test("words: bytesWord reads 32 bytes at any start, zero outside the array (left pad, right pad)", () => {
  const data = hexToBytes("0x" + "11".repeat(10) + "22".repeat(30));
  assertEquals(bytesWord(data, 0), BigInt("0x" + "11".repeat(10) + "22".repeat(22)));
  // Past the end: right-padded with zeros (CALLDATALOAD).
  assertEquals(bytesWord(data, 30), BigInt("0x" + "22".repeat(10) + "00".repeat(22)));
  assertEquals(bytesWord(data, 40), 0n);
  // A negative start left-pads a short value.
  assertEquals(bytesWord(hexToBytes("0x0102"), -30), 0x0102n);
  assertEquals(bytesWord(new Uint8Array(0), 0), 0n);
});
