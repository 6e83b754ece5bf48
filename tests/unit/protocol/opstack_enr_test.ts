import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { bytesToHex, hexToBytes } from "../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { decodeOpStackEnr, encodeOpStackEnr, isOpStackPeer } from "../../../lib/protocol/opstack_enr.ts";

Deno.test("opstack record entry: varint chain id and version in one RLP byte string", () => {
  // OP Mainnet (10): 0x0a 0x00; Base (8453 = 0x2105): 0x85 0x42 0x00; a chain id of 2^63.
  assertEquals(bytesToHex(encodeOpStackEnr(10n)), "0x820a00");
  assertEquals(bytesToHex(encodeOpStackEnr(8453n)), "0x83854200");
  assertEquals(bytesToHex(encodeOpStackEnr(1n << 63n)), "0x8b8080808080808080800100");
  assertEquals(bytesToHex(encodeOpStackEnr((1n << 64n) - 1n)), "0x8bffffffffffffffffff0100");
  for (const id of [0n, 10n, 901n, 8453n, 11155420n, (1n << 64n) - 1n]) {
    assertEquals(decodeOpStackEnr(encodeOpStackEnr(id)), { chainId: id, version: 0n });
  }
  assert(isOpStackPeer(encodeOpStackEnr(901n), 901n));
  assert(!isOpStackPeer(encodeOpStackEnr(902n), 901n));
  assert(!isOpStackPeer(encodeOpStackEnr(901n, 1n), 901n));
  assert(!isOpStackPeer(undefined, 901n));
});

Deno.test("opstack record entry: malformed values are refused", () => {
  for (
    const hex of [
      "0x", // no RLP item
      "0xc20a00", // a list
      "0x810a", // one varint only
      "0x830a0000", // trailing byte
      "0x82ff00", // truncated varint (continuation bit at the end)
      "0x8bffffffffffffffffff0200", // above 64 bits
    ]
  ) {
    const e = assertThrows(() => decodeOpStackEnr(hexToBytes(hex)));
    assert(isErrorCode(e, "OPSTACK_ENR_INVALID"), hex);
  }
  assert(!isOpStackPeer(hexToBytes("0xc20a00"), 10n));
});
