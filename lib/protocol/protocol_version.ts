/**
 * OP-Stack protocol versions (specs/protocol/superchain-upgrades.md "Protocol Version Format"): 32 bytes,
 * version-type 0 = 7 reserved zero bytes, an 8-byte build, then big-endian uint32 major, minor, patch and
 * pre-release. The L1 `ProtocolVersions` contract signals the `required` and `recommended` versions
 * ("`ProtocolVersions` L1 contract"); a node compares them with what it supports, and with `--rollup.halt`
 * stops when it is outdated at the chosen level (op-node's haltMaybe).
 */
import { bytesToHex, concatBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import { keccak256 } from "../common/hash.ts";

export interface ProtocolVersionV0 {
  build: Uint8Array;
  major: number;
  minor: number;
  patch: number;
  preRelease: number;
}

/** bytes32(uint256(keccak256(name)) - 1), the storage slots of ProtocolVersions.sol. */
function slotBelow(name: string): Uint8Array {
  const h = keccak256(new TextEncoder().encode(name));
  const v = BigInt(bytesToHex(h)) - 1n;
  return Uint8Array.from(v.toString(16).padStart(64, "0").match(/../g)!, (x) => parseInt(x, 16));
}

export const REQUIRED_PROTOCOL_VERSION_SLOT: Uint8Array = slotBelow("protocolversion.required");
export const RECOMMENDED_PROTOCOL_VERSION_SLOT: Uint8Array = slotBelow("protocolversion.recommended");

export function encodeProtocolVersion(v: ProtocolVersionV0): Uint8Array {
  if (v.build.length !== 8) throw new BaseError("PROTOCOL_VERSION", "a protocol version's build is 8 bytes");
  const tail = new Uint8Array(16);
  const view = new DataView(tail.buffer);
  view.setUint32(0, v.major);
  view.setUint32(4, v.minor);
  view.setUint32(8, v.patch);
  view.setUint32(12, v.preRelease);
  return concatBytes(new Uint8Array(8), v.build, tail); // type 0 and 7 reserved bytes, build, numbers
}

/** The version-type 0 fields of `b`; throws for another type or a bad length. */
export function decodeProtocolVersion(b: Uint8Array): ProtocolVersionV0 {
  if (b.length !== 32) {
    throw new BaseError("PROTOCOL_VERSION", `a protocol version is 32 bytes, not ${b.length}`);
  }
  if (b[0] !== 0) throw new BaseError("PROTOCOL_VERSION", `unknown protocol version type ${b[0]}`);
  const view = new DataView(b.buffer, b.byteOffset + 16, 16);
  return {
    build: b.slice(8, 16),
    major: view.getUint32(0),
    minor: view.getUint32(4),
    patch: view.getUint32(8),
    preRelease: view.getUint32(12),
  };
}

/** "v9.0.0", "v3.0.0-1", with "+0x…" for a non-zero build; the hex of another version type. */
export function formatProtocolVersion(b: Uint8Array): string {
  if (b.every((x) => x === 0)) return "none";
  if (b[0] !== 0) return bytesToHex(b);
  const v = decodeProtocolVersion(b);
  const pre = v.preRelease === 0 ? "" : `-${v.preRelease}`;
  const build = v.build.every((x) => x === 0) ? "" : `+${bytesToHex(v.build)}`;
  return `v${v.major}.${v.minor}.${v.patch}${pre}${build}`;
}

/**
 * What keel supports: v9.0.0, the newest version superchain-upgrades.md lists ("OP-Stack Protocol
 * versions": Holocene), the same as op-node's OPStackSupport. The later forks keel implements (Isthmus,
 * Jovian) have no listed protocol version.
 */
export const KEEL_PROTOCOL_VERSION: Uint8Array = encodeProtocolVersion({
  build: new Uint8Array(8),
  major: 9,
  minor: 0,
  patch: 0,
  preRelease: 0,
});

/** How a version stands to another (go-ethereum params.ProtocolVersionComparison). */
export type ProtocolVersionComparison =
  | "matching"
  | "ahead-major"
  | "outdated-major"
  | "ahead-minor"
  | "outdated-minor"
  | "ahead-patch"
  | "outdated-patch"
  | "ahead-prerelease"
  | "outdated-prerelease"
  | "empty"
  | "different-type"
  | "different-build";

/** `a` compared with `b`: "outdated-major" when `a` is an older major version than `b`, and so on. */
export function compareProtocolVersions(a: Uint8Array, b: Uint8Array): ProtocolVersionComparison {
  if (a.every((x) => x === 0) || b.every((x) => x === 0)) return "empty";
  if (a[0] !== b[0]) return "different-type";
  if (a[0] !== 0) return "different-type"; // only version-type 0 is defined
  const x = decodeProtocolVersion(a);
  const y = decodeProtocolVersion(b);
  if (bytesToHex(x.build) !== bytesToHex(y.build)) return "different-build";
  for (const part of ["major", "minor", "patch"] as const) {
    if (x[part] > y[part]) return `ahead-${part}`;
    if (x[part] < y[part]) return `outdated-${part}`;
  }
  // Pre-release 0 is the release itself, above every pre-release of it.
  if (x.preRelease === y.preRelease) return "matching";
  if (x.preRelease === 0) return "ahead-prerelease";
  if (y.preRelease === 0) return "outdated-prerelease";
  return x.preRelease > y.preRelease ? "ahead-prerelease" : "outdated-prerelease";
}

/** --rollup.halt: whether a node whose support compares so with the required version must stop. */
export function haltsAt(level: string | undefined, cmp: ProtocolVersionComparison): boolean {
  switch (cmp) {
    case "outdated-major":
      return level === "major" || level === "minor" || level === "patch";
    case "outdated-minor":
      return level === "minor" || level === "patch";
    case "outdated-patch":
      return level === "patch";
    default:
      return false;
  }
}
