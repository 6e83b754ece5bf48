/**
 * The "opstack" entry of an OP Stack node's record (specs/protocol/rollup-node-p2p.md "Discv5",
 * "Structure"): the L2 chain id and a version (0), each an unsigned varint (LEB128), concatenated and
 * RLP-encoded as one byte string. Discovery dials only nodes whose record carries the node's chain id.
 */
import { BaseError } from "../common/errors.ts";
import { rlpDecode, rlpEncode } from "../common/rlp.ts";

/** The record key. */
export const OPSTACK_ENR_KEY = "opstack";
/** The only version defined. */
export const OPSTACK_ENR_VERSION = 0n;

export interface OpStackEnr {
  chainId: bigint;
  version: bigint;
}

const MAX_U64 = (1n << 64n) - 1n;

function uvarint(n: bigint, out: number[]): void {
  let v = n;
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

/** Reads an unsigned varint of at most 64 bits at `at`; returns the value and the next offset. */
function readUvarint(b: Uint8Array, at: number): [bigint, number] {
  let v = 0n;
  for (let i = 0; i < 10; i++) {
    if (at + i >= b.length) throw invalid("truncated varint");
    const byte = b[at + i];
    v |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if (byte < 0x80) {
      if (v > MAX_U64) throw invalid("varint above 64 bits");
      return [v, at + i + 1];
    }
  }
  throw invalid("varint above 64 bits");
}

function invalid(why: string): BaseError {
  return new BaseError("OPSTACK_ENR_INVALID", `Cannot decode the opstack record entry: ${why}`);
}

/** The entry's value for `chainId`. */
export function encodeOpStackEnr(chainId: bigint, version = OPSTACK_ENR_VERSION): Uint8Array {
  if (chainId < 0n || chainId > MAX_U64 || version < 0n || version > MAX_U64) {
    throw new BaseError("OPSTACK_ENR_INVALID", "Cannot encode the opstack record entry: values are uint64");
  }
  const bytes: number[] = [];
  uvarint(chainId, bytes);
  uvarint(version, bytes);
  return rlpEncode(Uint8Array.from(bytes));
}

/** The chain id and version in an entry's value; throws OPSTACK_ENR_INVALID when malformed. */
export function decodeOpStackEnr(value: Uint8Array): OpStackEnr {
  let inner;
  try {
    inner = rlpDecode(value);
  } catch (e) {
    throw invalid((e as Error).message);
  }
  if (!(inner instanceof Uint8Array)) throw invalid("not a byte string");
  const [chainId, next] = readUvarint(inner, 0);
  const [version, end] = readUvarint(inner, next);
  if (end !== inner.length) throw invalid("trailing bytes");
  return { chainId, version };
}

/** Whether a record's opstack entry names `chainId` at version 0 (absent or malformed: false). */
export function isOpStackPeer(value: Uint8Array | undefined, chainId: bigint): boolean {
  if (value === undefined) return false;
  try {
    const e = decodeOpStackEnr(value);
    return e.chainId === chainId && e.version === OPSTACK_ENR_VERSION;
  } catch {
    return false;
  }
}
