/**
 * FastLZ length vectors from op-geth core/types/rollup_cost_test.go `TestFlzCompressLen`
 * (https://github.com/ethereum-optimism/op-geth/blob/optimism/core/types/rollup_cost_test.go).
 */
import { hexToBytes } from "../../../lib/common/bytes.ts";
import { flzCompressLen } from "../../../lib/protocol/fastlz.ts";
import { assertEquals } from "../../assert.ts";

/** op-geth transaction_test.go `emptyTx`: unsigned legacy tx to 0x095e7b…2d87, all other fields zero. */
export const EMPTY_TX = hexToBytes("0xdd80808094095e7baea6a6c7c4c2dfeb977efac326af552d878080808080");

/** https://optimistic.etherscan.io/tx/0x8eb9dd4eb6d33f4dc25fb015919e4b1e9f7542f9b0322bf6622e268cd116b594 */
export const CONTRACT_CALL_TX = hexToBytes(
  "02f901550a758302df1483be21b88304743f94f8" +
    "0e51afb613d764fa61751affd3313c190a86bb870151bd62fd12adb8" +
    "e41ef24f3f0000000000000000000000000000000000000000000000" +
    "00000000000000006e000000000000000000000000af88d065e77c8c" +
    "c2239327c5edb3a432268e5831000000000000000000000000000000" +
    "000000000000000000000000000003c1e50000000000000000000000" +
    "00000000000000000000000000000000000000000000000000000000" +
    "000000000000000000000000000000000000000000000000a0000000" +
    "00000000000000000000000000000000000000000000000000000000" +
    "148c89ed219d02f1a5be012c689b4f5b731827bebe00000000000000" +
    "0000000000c001a033fd89cb37c31b2cba46b6466e040c61fc9b2a36" +
    "75a7f5f493ebd5ad77c497f8a07cdf65680e238392693019b4092f61" +
    "0222e71b7cec06449cb922b93b6a12744e",
);

Deno.test("fastlz: op-geth TestFlzCompressLen vectors", () => {
  assertEquals(flzCompressLen(new Uint8Array()), 0);
  assertEquals(flzCompressLen(new Uint8Array(1000).fill(1)), 21);
  assertEquals(flzCompressLen(new Uint8Array(1000)), 21);
  assertEquals(flzCompressLen(EMPTY_TX), 31);
  assertEquals(flzCompressLen(CONTRACT_CALL_TX), 202);
});

Deno.test("fastlz: short inputs are all literals (one control byte per 32)", () => {
  assertEquals(flzCompressLen(new Uint8Array(12)), 13);
  assertEquals(flzCompressLen(new Uint8Array([1])), 2);
});

Deno.test("fastlz: incompressible input costs 33 bytes per 32", () => {
  // 0, 1, ..., 255: no 3-byte window repeats, so nothing matches.
  const data = new Uint8Array(256).map((_, i) => i);
  assertEquals(flzCompressLen(data), 256 + 8);
});

Deno.test("fastlz: the shared table leaves no trace between calls", () => {
  // A long repetitive input fills the table; a following input must compress as on a fresh table.
  const fresh = flzCompressLen(CONTRACT_CALL_TX);
  const noisy = new Uint8Array(5000);
  for (let i = 0; i < noisy.length; i++) noisy[i] = (i * 7919) % 251;
  flzCompressLen(noisy);
  flzCompressLen(new Uint8Array(3000).fill(9));
  assertEquals(flzCompressLen(CONTRACT_CALL_TX), fresh);
  assertEquals(flzCompressLen(EMPTY_TX), 31);
  // A prefix of the previous input: on a stale table its hashes find matches at the old positions.
  const prefix = CONTRACT_CALL_TX.subarray(0, 120);
  const alone = flzCompressLen(prefix.slice());
  flzCompressLen(CONTRACT_CALL_TX);
  assertEquals(flzCompressLen(prefix.slice()), alone);
});
