/**
 * Byte, hex and quantity codecs. Inside keel values are `bigint` and `Uint8Array`;
 * hex strings exist only at the edges (DESIGN.md, style rule 8).
 */
import { BaseError } from "./errors.ts";

export type Hex = `0x${string}`;

const HEX_CHARS = "0123456789abcdef";
const BYTE_TO_HEX: string[] = Array.from({ length: 256 }, (_, i) => HEX_CHARS[i >> 4] + HEX_CHARS[i & 15]);

type NativeToHex = (this: Uint8Array) => string;
/** The runtime's `Uint8Array.prototype.toHex` (TC39 base64/hex proposal, in V8): one flat string. */
const nativeToHex = (Uint8Array.prototype as unknown as { toHex?: NativeToHex }).toHex;

/** Bytes to lower-case 0x-prefixed hex. */
export function bytesToHex(bytes: Uint8Array): Hex {
  if (nativeToHex !== undefined) return `0x${nativeToHex.call(bytes)}`;
  let out = "0x";
  for (let i = 0; i < bytes.length; i++) out += BYTE_TO_HEX[bytes[i]];
  return out as Hex;
}

/**
 * Bytes to lower-case hex without the 0x prefix, as one flat string (the native toHex): the key of
 * the maps that hold accounts, slots and hashes. A loop of `+=` builds a chain of intermediate strings
 * instead (~650 bytes of garbage for a 20-byte address, measured with the sampling heap profiler).
 */
export function bytesToUnprefixedHex(bytes: Uint8Array): string {
  if (nativeToHex !== undefined) return nativeToHex.call(bytes);
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += BYTE_TO_HEX[bytes[i]];
  return out;
}

function nibble(c: number, input: string): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  throw new BaseError("INVALID_HEX", `Cannot decode hex: invalid character in ${input.slice(0, 80)}`);
}

/** 0x-prefixed (or bare) hex to bytes. Odd length and bad characters throw INVALID_HEX. */
export function hexToBytes(input: string): Uint8Array {
  const hex = input.startsWith("0x") || input.startsWith("0X") ? input.slice(2) : input;
  if (hex.length % 2 !== 0) {
    throw new BaseError("INVALID_HEX", `Cannot decode hex: odd length ${hex.length}`);
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) {
    out[i] = (nibble(hex.charCodeAt(2 * i), input) << 4) | nibble(hex.charCodeAt(2 * i + 1), input);
  }
  return out;
}

/** A bigint or number as a JSON-RPC quantity: 0x-prefixed, no leading zeros. */
export function toQuantity(value: bigint | number): Hex {
  if (value < 0) throw new BaseError("INVALID_QUANTITY", `Cannot encode negative quantity ${value}`);
  return `0x${value.toString(16)}`;
}

const QUANTITY_RE = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;

/** A JSON-RPC quantity to bigint. Strict: 0x prefix, no leading zeros, at least one digit. */
export function fromQuantity(value: string): bigint {
  if (!QUANTITY_RE.test(value)) {
    throw new BaseError("INVALID_QUANTITY", `Cannot decode quantity: ${value.slice(0, 80)}`);
  }
  return BigInt(value);
}

/** Big-endian bytes to bigint (empty = 0). */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  return BigInt(bytesToHex(bytes));
}

/** bigint to big-endian bytes, left-padded to `length` (minimal when omitted). */
export function bigIntToBytes(value: bigint, length?: number): Uint8Array {
  if (value < 0n) throw new BaseError("INVALID_QUANTITY", `Cannot encode negative integer ${value}`);
  if (value <= 0xffffffffffffn) {
    // Up to 6 bytes (gas, nonces, indexes): number arithmetic, no hex string.
    let n = Number(value);
    let len = 0;
    for (let m = n; m > 0; m = Math.floor(m / 256)) len++;
    const size = length ?? len;
    if (len > size) throw new BaseError("INVALID_QUANTITY", `Cannot fit ${len} bytes into ${size}`);
    const out = new Uint8Array(size);
    for (let i = size - 1; n > 0; i--, n = Math.floor(n / 256)) out[i] = n % 256;
    return out;
  }
  let hex = value.toString(16);
  if (hex.length % 2) hex = "0" + hex;
  if (value === 0n && length === undefined) return new Uint8Array();
  const raw = hexToBytes(hex);
  if (length === undefined) return raw;
  if (raw.length > length) {
    throw new BaseError("INVALID_QUANTITY", `Cannot fit ${raw.length} bytes into ${length}`);
  }
  const out = new Uint8Array(length);
  out.set(raw, length - raw.length);
  return out;
}

/** Concatenate byte arrays. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Constant-shape equality of two byte arrays. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
