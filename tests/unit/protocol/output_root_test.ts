import { keccak_256 as nobleKeccak } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes } from "../../../lib/common/bytes.ts";
import { outputRootV0 } from "../../../lib/protocol/output_root.ts";
import { assertEquals, assertThrows } from "../../assert.ts";

Deno.test("output root: keccak256 of version 0, state root, message passer storage root, block hash", () => {
  const state = new Uint8Array(32).fill(1);
  const mp = new Uint8Array(32).fill(2);
  const hash = new Uint8Array(32).fill(3);
  // The preimage written out as the spec's concatenation, hashed by another keccak implementation.
  const preimage = hexToBytes(`0x${"00".repeat(32)}${"01".repeat(32)}${"02".repeat(32)}${"03".repeat(32)}`);
  assertEquals(bytesToHex(outputRootV0(state, mp, hash)), bytesToHex(nobleKeccak(preimage)));
  assertThrows(() => outputRootV0(state.subarray(1), mp, hash), Error, "stateRoot is 31 bytes");
});
