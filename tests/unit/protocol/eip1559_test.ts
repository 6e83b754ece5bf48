import { hexToBytes } from "../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import {
  type BaseFeeParent,
  decodeEip1559Params,
  decodeExtraData,
  encodeEip1559Params,
  encodeHoloceneExtraData,
  encodeJovianExtraData,
  nextBaseFee,
  payloadExtraData,
  validateExtraData,
} from "../../../lib/protocol/eip1559.ts";
import type { ForkSchedule } from "../../../lib/protocol/hardforks.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";

const CHAIN = { elasticity: 6n, denominator: 50n, denominatorCanyon: 250n };
const FORKS: ForkSchedule = { regolith: 0n, canyon: 0n, holocene: 100n, jovian: 200n };

function expectInvalid(fn: () => unknown, fragment: string) {
  const err = assertThrows(fn);
  assert(isErrorCode(err, "INVALID_EXTRA_DATA"), String(err));
  assert(err.message.includes(fragment), err.message);
}

Deno.test("eip1559: extraData round-trips in both versions", () => {
  assertEquals(decodeExtraData(encodeHoloceneExtraData(250n, 6n)), { denominator: 250n, elasticity: 6n });
  assertEquals(decodeExtraData(encodeJovianExtraData(250n, 6n, 7n)), {
    denominator: 250n,
    elasticity: 6n,
    minBaseFee: 7n,
  });
  assertEquals(encodeEip1559Params(250n, 6n), hexToBytes("0x000000fa00000006"));
  assertEquals(decodeEip1559Params(hexToBytes("0x000000fa00000006")), { denominator: 250n, elasticity: 6n });
});

Deno.test("eip1559: bad extraData is rejected with a clear error", () => {
  expectInvalid(() => decodeExtraData(new Uint8Array()), "it is empty");
  expectInvalid(() => decodeExtraData(hexToBytes("0x02000000fa00000006")), "unknown version 2");
  expectInvalid(() => decodeExtraData(hexToBytes("0x00000000fa0000000600")), "needs 9 bytes, got 10");
  expectInvalid(
    () => decodeExtraData(encodeHoloceneExtraData(250n, 6n).subarray(0, 8)),
    "needs 9 bytes, got 8",
  );
  expectInvalid(() => decodeExtraData(hexToBytes("0x01000000fa00000006")), "needs 17 bytes, got 9");
  expectInvalid(() => decodeExtraData(encodeHoloceneExtraData(0n, 6n)), "denominator is 0");
  expectInvalid(() => decodeExtraData(encodeHoloceneExtraData(250n, 0n)), "elasticity is 0");
  expectInvalid(() => encodeHoloceneExtraData(1n << 32n, 6n), "out of uint32 range");
  expectInvalid(() => encodeJovianExtraData(1n, 6n, 1n << 64n), "out of uint64 range");
  expectInvalid(() => decodeEip1559Params(new Uint8Array(9)), "length is 9");
  expectInvalid(
    () => decodeEip1559Params(hexToBytes("0x0000000000000006")),
    "denominator is 0 but elasticity is not",
  );
});

Deno.test("eip1559: validateExtraData enforces the format of the fork at the header's timestamp", () => {
  assertEquals(validateExtraData(FORKS, 99n, new Uint8Array()), null);
  expectInvalid(() => validateExtraData(FORKS, 99n, new Uint8Array(1)), "must be empty before Holocene");
  assertEquals(validateExtraData(FORKS, 100n, encodeHoloceneExtraData(250n, 6n))?.denominator, 250n);
  expectInvalid(
    () => validateExtraData(FORKS, 100n, encodeJovianExtraData(250n, 6n, 0n)),
    "version 1 before Jovian",
  );
  expectInvalid(
    () => validateExtraData(FORKS, 200n, encodeHoloceneExtraData(250n, 6n)),
    "Jovian requires version 1",
  );
  assertEquals(validateExtraData(FORKS, 200n, encodeJovianExtraData(250n, 6n, 9n))?.minBaseFee, 9n);
});

Deno.test("eip1559: payload extraData falls back to the chain constants when eip1559Params are zero", () => {
  assertEquals(payloadExtraData(FORKS, 50n, CHAIN, undefined), new Uint8Array());
  assertEquals(payloadExtraData(FORKS, 100n, CHAIN, new Uint8Array(8)), encodeHoloceneExtraData(250n, 6n));
  assertEquals(
    payloadExtraData(FORKS, 100n, CHAIN, encodeEip1559Params(8n, 2n)),
    encodeHoloceneExtraData(8n, 2n),
  );
  assertEquals(
    payloadExtraData(FORKS, 200n, CHAIN, new Uint8Array(8), 5n),
    encodeJovianExtraData(250n, 6n, 5n),
  );
  expectInvalid(
    () => payloadExtraData(FORKS, 50n, CHAIN, new Uint8Array(8)),
    "eip1559Params before Holocene",
  );
  expectInvalid(() => payloadExtraData(FORKS, 100n, CHAIN, undefined), "eip1559Params missing");
  expectInvalid(
    () => payloadExtraData(FORKS, 100n, CHAIN, new Uint8Array(8), 1n),
    "minBaseFee before Jovian",
  );
  expectInvalid(
    () => payloadExtraData(FORKS, 200n, CHAIN, new Uint8Array(8)),
    "minBaseFee missing from Jovian",
  );
});

Deno.test("eip1559: Jovian meters max(gasUsed, blobGasUsed)", () => {
  const parent: BaseFeeParent = {
    gasLimit: 30_000_000n,
    gasUsed: 1_000_000n,
    blobGasUsed: 30_000_000n,
    baseFee: 1_000_000n,
    extraData: encodeJovianExtraData(50n, 3n, 0n),
    timestamp: 200n,
  };
  // target 10M, metered 30M: 1e6 + 1e6 * 20M / 10M / 50 = 1_040_000
  assertEquals(nextBaseFee(parent, CHAIN, FORKS, 202n), 1_040_000n);
  // before Jovian the blob gas is ignored: 1e6 - 1e6 * 9M / 10M / 50 = 982_000
  const holocene = { ...parent, timestamp: 150n, extraData: encodeHoloceneExtraData(50n, 3n) };
  assertEquals(nextBaseFee(holocene, CHAIN, FORKS, 152n), 982_000n);
});

Deno.test("eip1559: an increase is at least 1 wei and a Holocene parent needs valid extraData", () => {
  const parent: BaseFeeParent = {
    gasLimit: 30_000_000n,
    gasUsed: 5_000_001n,
    baseFee: 1n,
    extraData: new Uint8Array(),
    timestamp: 10n,
  };
  assertEquals(nextBaseFee(parent, CHAIN, FORKS, 12n), 2n);
  expectInvalid(() => nextBaseFee({ ...parent, timestamp: 100n }, CHAIN, FORKS, 102n), "it is empty");
});
