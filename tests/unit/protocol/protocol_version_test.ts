/**
 * Protocol versions (superchain-upgrades.md "Protocol Version Format", "ProtocolVersions L1 contract"):
 * the 32-byte encoding, the contract's storage slots (checked against the compiled ProtocolVersions of
 * @eth-optimism/contracts-bedrock), comparison as go-ethereum's, and --rollup.halt's levels.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { Address } from "@ethereumjs/util";
import { assertEquals, assertThrows } from "../../assert.ts";
import { bytesToHex, hexToBytes } from "../../../lib/common/bytes.ts";
import {
  compareProtocolVersions,
  decodeProtocolVersion,
  encodeProtocolVersion,
  formatProtocolVersion,
  haltsAt,
  KEEL_PROTOCOL_VERSION,
  RECOMMENDED_PROTOCOL_VERSION_SLOT,
  REQUIRED_PROTOCOL_VERSION_SLOT,
} from "../../../lib/protocol/protocol_version.ts";

const NO_BUILD = new Uint8Array(8);
const v = (major: number, minor = 0, patch = 0, preRelease = 0, build: Uint8Array = NO_BUILD) =>
  encodeProtocolVersion({ build, major, minor, patch, preRelease });

Deno.test("protocol version: the type-0 layout, round trip and text", () => {
  // <type 0><7 reserved><build 8><major 4><minor 4><patch 4><pre-release 4>
  assertEquals(
    bytesToHex(v(3, 1, 2, 4, hexToBytes("0x6f702d6d6f640000"))),
    "0x" + "00".repeat(8) + "6f702d6d6f640000" + "00000003" + "00000001" + "00000002" + "00000004",
  );
  const x = decodeProtocolVersion(v(9, 8, 7, 6));
  assertEquals([x.major, x.minor, x.patch, x.preRelease], [9, 8, 7, 6]);
  assertEquals(formatProtocolVersion(KEEL_PROTOCOL_VERSION), "v9.0.0");
  assertEquals(formatProtocolVersion(v(3, 0, 0, 1)), "v3.0.0-1");
  assertEquals(formatProtocolVersion(new Uint8Array(32)), "none");
  assertThrows(() => decodeProtocolVersion(new Uint8Array(31)));
  const other = new Uint8Array(32);
  other[0] = 1;
  assertThrows(() => decodeProtocolVersion(other));
});

Deno.test("protocol version: the storage slots are ProtocolVersions.sol's (its REQUIRED_SLOT(), RECOMMENDED_SLOT())", async () => {
  const artifact = JSON.parse(
    await Deno.readTextFile(
      new URL(
        import.meta.resolve(
          "@eth-optimism/contracts-bedrock/forge-artifacts/ProtocolVersions.sol/ProtocolVersions.json",
        ),
      ),
    ),
  );
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }) });
  const at = new Address(new Uint8Array(20).fill(0x77));
  await evm.stateManager.putCode(at, hexToBytes(artifact.deployedBytecode.object));
  const ids = artifact.methodIdentifiers as Record<string, string>;
  for (
    const [getter, slot] of [["REQUIRED_SLOT()", REQUIRED_PROTOCOL_VERSION_SLOT], [
      "RECOMMENDED_SLOT()",
      RECOMMENDED_PROTOCOL_VERSION_SLOT,
    ]] as const
  ) {
    const res = await evm.runCall({ to: at, data: hexToBytes(`0x${ids[getter]}`), gasLimit: 100_000n });
    assertEquals(res.execResult.exceptionError, undefined);
    assertEquals(bytesToHex(res.execResult.returnValue), bytesToHex(slot), getter);
  }
  assertEquals(
    bytesToHex(REQUIRED_PROTOCOL_VERSION_SLOT),
    "0x4aaefe95bd84fd3f32700cf3b7566bc944b73138e41958b5785826df2aecace0",
  );
});

Deno.test("protocol version: comparison (go-ethereum's) and --rollup.halt levels", () => {
  const cases: [Uint8Array, Uint8Array, string][] = [
    [v(9), v(9), "matching"],
    [v(9), v(10), "outdated-major"],
    [v(10), v(9), "ahead-major"],
    [v(9, 1), v(9, 2), "outdated-minor"],
    [v(9, 0, 3), v(9, 0, 2), "ahead-patch"],
    [v(9, 0, 0), v(9, 0, 0, 1), "ahead-prerelease"], // the release is above its pre-releases
    [v(9, 0, 0, 1), v(9, 0, 0), "outdated-prerelease"],
    [v(9, 0, 0, 2), v(9, 0, 0, 1), "ahead-prerelease"],
    [v(9), v(9, 0, 0, 0, hexToBytes("0x0000000000000001")), "different-build"],
    [v(9), new Uint8Array(32), "empty"],
  ];
  for (const [a, b, want] of cases) {
    assertEquals(
      compareProtocolVersions(a, b),
      want,
      `${formatProtocolVersion(a)} vs ${formatProtocolVersion(b)}`,
    );
  }
  assertEquals(haltsAt("major", "outdated-major"), true);
  assertEquals(haltsAt("major", "outdated-minor"), false);
  assertEquals(haltsAt("minor", "outdated-minor"), true);
  assertEquals(haltsAt("minor", "outdated-patch"), false);
  assertEquals(haltsAt("patch", "outdated-patch"), true);
  assertEquals(haltsAt("patch", "outdated-prerelease"), false);
  assertEquals(haltsAt("none", "outdated-major"), false);
  assertEquals(haltsAt(undefined, "outdated-major"), false);
  assertEquals(haltsAt("patch", "ahead-major"), false);
});
