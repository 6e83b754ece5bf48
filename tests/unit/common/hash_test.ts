import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "../../../lib/common/bytes.ts";
import { keccak256, keccakReady } from "../../../lib/common/hash.ts";
import { assertEquals } from "../../assert.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

Deno.test("keccak256: the published Keccak-256 vectors", () => {
  assertEquals(
    bytesToHex(keccak256(new Uint8Array())),
    "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
  );
  assertEquals(
    bytesToHex(keccak256(utf8("abc"))),
    "0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
  );
  // The ERC-20 Transfer event topic.
  assertEquals(
    bytesToHex(keccak256(utf8("Transfer(address,address,uint256)"))),
    "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
  );
});

Deno.test("keccak256: the WebAssembly hasher equals the independent @noble/hashes one across block boundaries", async () => {
  await keccakReady;
  // Rate is 136 bytes: cover lengths around 1-4 blocks and interleaved calls on the shared hasher.
  for (let n = 0; n <= 600; n++) {
    const data = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 255);
    assertEquals(bytesToHex(keccak256(data)), bytesToHex(keccak_256(data)), `length ${n}`);
  }
});

Deno.test("keccak256: each call returns a fresh array", () => {
  const a = keccak256(utf8("a"));
  const b = keccak256(utf8("b"));
  a.fill(0);
  assertEquals(bytesToHex(b), bytesToHex(keccak_256(utf8("b"))));
});
