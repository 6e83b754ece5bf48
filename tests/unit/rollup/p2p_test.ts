import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import type { RollupConfig } from "../../../lib/protocol/rollup_config.ts";
import {
  decodePayloadResponse,
  encodePayloadResponse,
  ipInSubnet,
  payloadByNumberProtocol,
  UNSAFE_BLOCK_SIGNER_SLOT,
} from "../../../lib/rollup/p2p/mod.ts";
import { bytesToHex } from "../../../lib/common/bytes.ts";
import { testPayload } from "./p2p_helpers.ts";

const cfg = {
  genesis: { l2Time: 1000n, l2: { number: 0n, hash: new Uint8Array(32) } },
  blockTime: 2n,
  forks: { regolith: 0n, canyon: 1010n, delta: 1010n, ecotone: 1020n, fjord: 1020n, isthmus: 1030n },
} as unknown as RollupConfig;

const payload = (number: bigint) => testPayload(number, 1000n + 2n * number);

Deno.test("payload_by_number: protocol id; responses by fork (versions 0, 1, 2) round-trip", () => {
  assertEquals(payloadByNumberProtocol(10n), "/opstack/req/payload_by_number/10/0/");
  const root = new Uint8Array(32).fill(9);
  for (const [n, version] of [[1n, 0], [6n, 0], [11n, 1], [16n, 2]] as const) {
    const block = version >= 1
      ? { payload: payload(n), parentBeaconBlockRoot: root }
      : { payload: payload(n) };
    const res = encodePayloadResponse(cfg, block);
    assertEquals(res[0], 0);
    assertEquals(new DataView(res.buffer).getUint32(1, true), version, `block ${n}`);
    assertEquals(decodePayloadResponse(cfg, res, n), block);
    const e = assertThrows(() => decodePayloadResponse(cfg, res, n + 1n));
    assert(isErrorCode(e, "PAYLOAD_BY_NUMBER_INVALID"));
  }
  for (const code of [1, 2, 3]) {
    assert(
      isErrorCode(
        assertThrows(() => decodePayloadResponse(cfg, Uint8Array.of(code), 1n)),
        "PAYLOAD_BY_NUMBER_INVALID",
      ),
    );
  }
  assertThrows(
    () => encodePayloadResponse(cfg, { payload: payload(11n) }),
    Error,
    "parent beacon block root",
  );
});

Deno.test("p2p: subnets for nodep2p_blockSubnet; the SystemConfig's unsafe block signer slot", () => {
  assert(ipInSubnet("10.1.2.3", "10.0.0.0/8"));
  assert(!ipInSubnet("11.1.2.3", "10.0.0.0/8"));
  assert(ipInSubnet("192.168.1.7", "192.168.1.7/32"));
  assert(ipInSubnet("1.2.3.4", "0.0.0.0/0"));
  assert(!ipInSubnet("::1", "10.0.0.0/8"));
  // SystemConfig.sol: UNSAFE_BLOCK_SIGNER_SLOT = keccak256("systemconfig.unsafeblocksigner")
  assertEquals(
    bytesToHex(UNSAFE_BLOCK_SIGNER_SLOT),
    "0x65a7ed542fb37fe237fdfbdd70b31598523fe5b32879e307bae27a0bd9581c08",
  );
});
