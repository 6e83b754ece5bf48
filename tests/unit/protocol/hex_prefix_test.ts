/**
 * Hex-prefix encoding (yellow paper appendix C), with the examples of the Ethereum wiki's
 * "Patricia Tree" page (ethereum.org docs, "Merkle Patricia Trie": specification, hex-prefix examples).
 */
import { assertEquals } from "../../assert.ts";
import { rlpEncode } from "../../../lib/common/rlp.ts";
import {
  hexPrefixLength,
  hexPrefixRlpLength,
  writeHexPrefix,
  writeHexPrefixRlp,
} from "../../../lib/protocol/hex_prefix.ts";

function hp(nibbles: number[], leaf: boolean): number[] {
  const n = Uint8Array.from(nibbles);
  const out = new Uint8Array(hexPrefixLength(n.length));
  assertEquals(writeHexPrefix(n, 0, n.length, leaf, out, 0), out.length);
  return [...out];
}

Deno.test("hex prefix: the specification's examples (odd and even paths, extension and leaf flags)", () => {
  assertEquals(hp([1, 2, 3, 4, 5], false), [0x11, 0x23, 0x45]);
  assertEquals(hp([0, 1, 2, 3, 4, 5], false), [0x00, 0x01, 0x23, 0x45]);
  assertEquals(hp([0, 0xf, 1, 0xc, 0xb, 8], true), [0x20, 0x0f, 0x1c, 0xb8]);
  assertEquals(hp([0xf, 1, 0xc, 0xb, 8], true), [0x3f, 0x1c, 0xb8]);
  assertEquals(hp([], true), [0x20]);
  assertEquals(hp([], false), [0x00]);
});

Deno.test("hex prefix: a slice of a longer path, and its RLP string as rlpEncode writes it", () => {
  const path = Uint8Array.from({ length: 64 }, (_, i) => (i * 7) & 15);
  for (const [from, to] of [[0, 64], [1, 64], [5, 6], [10, 10], [63, 64], [0, 1]]) {
    for (const leaf of [true, false]) {
      const plain = new Uint8Array(hexPrefixLength(to - from));
      writeHexPrefix(path, from, to, leaf, plain, 0);
      // Against the slice copied out and encoded on its own.
      const copy = Uint8Array.from(path.subarray(from, to));
      const alone = new Uint8Array(plain.length);
      writeHexPrefix(copy, 0, copy.length, leaf, alone, 0);
      assertEquals(plain, alone);
      const expected = rlpEncode(plain);
      assertEquals(hexPrefixRlpLength(to - from), expected.length);
      const out = new Uint8Array(expected.length + 1);
      assertEquals(writeHexPrefixRlp(path, from, to, leaf, out, 1), out.length);
      assertEquals(out.subarray(1), expected);
    }
  }
});
