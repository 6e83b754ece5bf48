/** packStorage / slotOf / unpackWord: Solidity storage packing from a forge `storageLayout`. */
import { assertEquals, assertThrows } from "../../../assert.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import { bigIntToBytes, bytesToHex } from "../../../../lib/common/bytes.ts";
import { ARTIFACTS, packStorage, slotOf, unpackWord } from "../../../../lib/execution/genesis/mod.ts";

const slotHex = (n: bigint) => bytesToHex(bigIntToBytes(n, 32));
const wordHex = (n: bigint) => bytesToHex(bigIntToBytes(n, 32));

Deno.test("packStorage: packs by the artifact layout, rejects unknown labels and oversize values", () => {
  const words = packStorage(ARTIFACTS.GasPriceOracle, { isEcotone: true, isFjord: true });
  assertEquals(bytesToHex(words.get(slotHex(0n))!), wordHex(0x0101n));
  const l1 = packStorage(ARTIFACTS.L1Block, { number: 7n, timestamp: 9n, baseFeeScalar: 1368n });
  assertEquals(bytesToHex(l1.get(slotHex(0n))!), wordHex((9n << 64n) | 7n));
  assertEquals(bytesToHex(l1.get(slotHex(3n))!), wordHex(1368n << 96n));
  assertThrows(() => packStorage(ARTIFACTS.L1Block, { nope: 1n }, "L1Block"), BaseError, "nope in L1Block");
  assertThrows(() => packStorage(ARTIFACTS.L1Block, { number: 1n << 64n }), BaseError, "exceeds 8 bytes");
  const word = l1.get(slotHex(0n))!;
  assertEquals(unpackWord(word, slotOf(ARTIFACTS.L1Block, "timestamp")), 9n);
  assertEquals(slotOf(ARTIFACTS.L1Block, "baseFeeScalar"), { slot: 3n, offset: 12, size: 4 });
});
