/**
 * Pinned vectors for the rollup configuration: EIP-55's own checksum test vectors
 * (https://eips.ethereum.org/EIPS/eip-55, "Test Cases") and the protocol constants of
 * specs/protocol/granite/derivation.md and specs/protocol/fjord/derivation.md.
 */
import { assertEquals } from "../assert.ts";
import { hexToBytes } from "../../lib/common/bytes.ts";
import {
  CHANNEL_TIMEOUT_GRANITE,
  MAX_CHANNEL_BANK_SIZE_FJORD,
  MAX_RLP_BYTES_PER_CHANNEL_FJORD,
  MAX_SEQUENCER_DRIFT_FJORD,
  toChecksumAddress,
} from "../../lib/protocol/rollup_config.ts";

const EIP55_VECTORS = [
  // All caps
  "0x52908400098527886E0F7030069857D2E4169EE7",
  "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
  // All lower
  "0xde709f2102306220921060314715629080e2fb77",
  "0x27b1fdb04752bbc536007a920d24acb045561c26",
  // Normal
  "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
  "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
];

Deno.test("spec: EIP-55 test vectors", () => {
  for (const want of EIP55_VECTORS) {
    assertEquals(toChecksumAddress(hexToBytes(want.toLowerCase())), want);
    assertEquals(toChecksumAddress(hexToBytes(want.toUpperCase().replace("0X", "0x"))), want);
  }
});

Deno.test("spec: Granite and Fjord derivation constants", () => {
  // granite/derivation.md: CHANNEL_TIMEOUT is reduced from 300 to 50 L1 blocks.
  assertEquals(CHANNEL_TIMEOUT_GRANITE, 50n);
  // fjord/derivation.md: MAX_SEQUENCER_DRIFT becomes the constant 1800 seconds,
  // MAX_RLP_BYTES_PER_CHANNEL 100,000,000 and MAX_CHANNEL_BANK_SIZE 1,000,000,000.
  assertEquals(MAX_SEQUENCER_DRIFT_FJORD, 1800n);
  assertEquals(MAX_RLP_BYTES_PER_CHANNEL_FJORD, 100_000_000n);
  assertEquals(MAX_CHANNEL_BANK_SIZE_FJORD, 1_000_000_000n);
});
