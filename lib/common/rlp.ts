/**
 * Recursive Length Prefix (yellow paper appendix B), written for the hot paths: block import
 * decodes every transaction, block sealing encodes every transaction and receipt for the tries.
 *
 * Same bytes as @ethereumjs/rlp@10 `RLP.encode` for every input, and `rlpDecode` accepts and rejects
 * exactly what its `RLP.decode` does (tests/unit/common/rlp_test.ts compares both on a fuzz), but:
 * - encode measures the whole item first, then writes into ONE preallocated buffer (no concat per
 *   level, no hex strings for the lengths);
 * - decode walks the input with an index and returns `subarray` views of it instead of copies.
 *   A decoded byte string therefore shares memory with the input (and keeps it alive): do not
 *   mutate the input while the result is in use, and copy what you keep long-term from a large input.
 */
import { BaseError } from "./errors.ts";

/**
 * What rlpEncode takes: a byte string, a non-negative integer (encoded as its minimal big-endian bytes,
 * 0 as the empty string, as @ethereumjs/rlp does for a bigint), or a (nested) list of them.
 */
export type RlpInput = Uint8Array | bigint | readonly RlpInput[];
/** What rlpDecode returns: a byte string or a (nested) list of them. */
export type RlpValue = Uint8Array | RlpValue[];

function decodeError(reason: string): BaseError {
  return new BaseError("RLP_INVALID", `Cannot decode RLP: ${reason}`);
}

function encodeError(reason: string): BaseError {
  return new BaseError("RLP_INVALID", `Cannot encode RLP: ${reason}`);
}

// ---------------------------------------------------------------------------------------------
// Encoding

/**
 * Payload lengths of the lists met while measuring, in pre-order; the write pass consumes them in
 * the same order. Module scratch is safe: encoding runs synchronously and calls no user code.
 */
let listLengths: number[] = [];
let listIndex = 0;

/** Bytes needed for a big-endian length (no leading zeros). */
function lengthOfLength(len: number): number {
  let n = 1;
  while (len >= 256) {
    len = Math.floor(len / 256);
    n++;
  }
  return n;
}

/** Bytes of the minimal big-endian form of `v` (0 for zero). */
function integerLength(v: bigint): number {
  if (v <= 0xffffffffffffn) {
    let n = Number(v);
    let len = 0;
    while (n > 0) {
      n = Math.floor(n / 256);
      len++;
    }
    return len;
  }
  return (v.toString(16).length + 1) >> 1;
}

function measureInteger(v: bigint): number {
  if (v < 0n) throw encodeError(`negative integer ${v}`);
  if (v < 0x80n) return 1;
  const len = integerLength(v);
  return len < 56 ? 1 + len : 1 + lengthOfLength(len) + len;
}

/** Writes integer `v` (already measured, so non-negative) at `pos`; returns the next position. */
function writeInteger(v: bigint, out: Uint8Array, pos: number): number {
  if (v < 0x80n) {
    out[pos] = v === 0n ? 0x80 : Number(v);
    return pos + 1;
  }
  const len = integerLength(v);
  pos = writeHeader(out, pos, len, 0x80);
  if (v <= 0xffffffffffffn) {
    let n = Number(v);
    for (let i = len - 1; i >= 0; i--) {
      out[pos + i] = n % 256;
      n = Math.floor(n / 256);
    }
  } else {
    for (let i = len - 1; i >= 0; i--) {
      out[pos + i] = Number(v & 0xffn);
      v >>= 8n;
    }
  }
  return pos + len;
}

/** Encoded size of `item`; records each list's payload length in `listLengths`. */
function measure(item: RlpInput): number {
  if (item instanceof Uint8Array) {
    const len = item.length;
    if (len === 1 && item[0] < 0x80) return 1;
    return len < 56 ? 1 + len : 1 + lengthOfLength(len) + len;
  }
  if (typeof item === "bigint") return measureInteger(item);
  if (!Array.isArray(item)) {
    const what = item === null ? "null" : typeof item;
    throw encodeError(`item is ${what}, expected Uint8Array, bigint or array`);
  }
  const slot = listLengths.length;
  listLengths.push(0);
  let payload = 0;
  for (let i = 0; i < item.length; i++) payload += measure(item[i]);
  listLengths[slot] = payload;
  return payload < 56 ? 1 + payload : 1 + lengthOfLength(payload) + payload;
}

/** Writes a string (offset 0x80) or list (offset 0xc0) header at `pos`; returns the next position. */
function writeHeader(out: Uint8Array, pos: number, len: number, offset: number): number {
  if (len < 56) {
    out[pos] = offset + len;
    return pos + 1;
  }
  const n = lengthOfLength(len);
  out[pos] = offset + 55 + n;
  for (let i = n; i >= 1; i--) {
    out[pos + i] = len % 256;
    len = Math.floor(len / 256);
  }
  return pos + 1 + n;
}

function write(item: RlpInput, out: Uint8Array, pos: number): number {
  if (item instanceof Uint8Array) return writeRlpString(item, out, pos);
  if (typeof item === "bigint") return writeInteger(item, out, pos);
  const list = item as readonly RlpInput[];
  pos = writeHeader(out, pos, listLengths[listIndex++], 0xc0);
  for (let i = 0; i < list.length; i++) pos = write(list[i], out, pos);
  return pos;
}

/** Encodes `input` into a new buffer with `prefix` extra bytes in front (left zero). */
function encodeAfter(prefix: number, input: RlpInput): Uint8Array {
  listLengths = [];
  listIndex = 0;
  let total: number;
  try {
    total = measure(input);
  } catch (e) {
    if (e instanceof RangeError) throw encodeError("nesting too deep (or a cyclic list)");
    throw e;
  }
  const out = new Uint8Array(prefix + total);
  write(input, out, prefix);
  listLengths = [];
  return out;
}

/**
 * RLP encoding of a byte string, a non-negative bigint or a nested list of them (yellow paper
 * appendix B). Throws BaseError RLP_INVALID for anything else (numbers, strings, null), a negative
 * integer or a cyclic list.
 */
export function rlpEncode(input: RlpInput): Uint8Array {
  if (input instanceof Uint8Array) {
    // Byte strings need no measuring pass.
    const len = input.length;
    if (len === 1 && input[0] < 0x80) return new Uint8Array([input[0]]);
    const out = new Uint8Array(len < 56 ? 1 + len : 1 + lengthOfLength(len) + len);
    out.set(input, writeHeader(out, 0, len, 0x80));
    return out;
  }
  return encodeAfter(0, input);
}

/**
 * An EIP-2718 typed envelope, `type || rlp(input)`, written into one buffer (typed transactions and
 * receipts). `type` must be a transaction type, 0x00..0x7f.
 */
export function rlpEncodeTyped(type: number, input: RlpInput): Uint8Array {
  if (!Number.isInteger(type) || type < 0 || type > 0x7f) {
    throw encodeError(`typed envelope type ${type} is not in 0x00..0x7f`);
  }
  const out = encodeAfter(1, input);
  out[0] = type;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Pieces, for encoders that write nodes straight into one buffer (trie nodes)

/** Bytes of the RLP encoding of the byte string `b`. */
export function rlpStringLength(b: Uint8Array): number {
  const len = b.length;
  if (len === 1 && b[0] < 0x80) return 1;
  return len < 56 ? 1 + len : 1 + lengthOfLength(len) + len;
}

/** Writes the RLP encoding of the byte string `b` at `pos`; returns the next position. */
export function writeRlpString(b: Uint8Array, out: Uint8Array, pos: number): number {
  const len = b.length;
  if (len === 1 && b[0] < 0x80) {
    out[pos] = b[0];
    return pos + 1;
  }
  pos = writeHeader(out, pos, len, 0x80);
  if (len < 16) {
    for (let i = 0; i < len; i++) out[pos + i] = b[i];
  } else out.set(b, pos);
  return pos + len;
}

/** Bytes of an RLP list whose items take `payload` bytes, header included. */
export function rlpListLength(payload: number): number {
  return payload < 56 ? 1 + payload : 1 + lengthOfLength(payload) + payload;
}

/** Writes the header of an RLP list whose items take `payload` bytes at `pos`; returns where they start. */
export function writeRlpListHeader(payload: number, out: Uint8Array, pos: number): number {
  return writeHeader(out, pos, payload, 0xc0);
}

// ---------------------------------------------------------------------------------------------
// Decoding

/** Position just after the item the last `decodeItem` call read. */
let cursor = 0;

/** Big-endian length in input[from, from + n); rejects leading zeros. */
function readLength(input: Uint8Array, from: number, n: number): number {
  if (input[from] === 0) throw decodeError("length prefix has leading zeros");
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + input[from + i];
  return len;
}

/**
 * Decodes the item starting at `pos` (pos < end), which must lie within [pos, end): `end` is the
 * end of the enclosing list or of the input. Sets `cursor` to the position after the item.
 */
function decodeItem(input: Uint8Array, pos: number, end: number): RlpValue {
  const b = input[pos];
  if (b < 0x80) {
    cursor = pos + 1;
    return input.subarray(pos, pos + 1);
  }
  if (b <= 0xb7) {
    const start = pos + 1;
    const stop = start + b - 0x80;
    if (stop > end) throw decodeError(`string of ${b - 0x80} bytes at ${pos} runs past its end`);
    if (b === 0x81 && input[start] < 0x80) {
      throw decodeError(`single byte below 0x80 at ${pos} must not be prefixed`);
    }
    cursor = stop;
    return input.subarray(start, stop);
  }
  if (b <= 0xbf) {
    const n = b - 0xb7;
    if (pos + 1 + n > end) throw decodeError(`string length at ${pos} runs past its end`);
    const len = readLength(input, pos + 1, n);
    if (len <= 55) throw decodeError(`long form used for a string of ${len} bytes at ${pos}`);
    const start = pos + 1 + n;
    const stop = start + len;
    if (stop > end) throw decodeError(`string of ${len} bytes at ${pos} runs past its end`);
    cursor = stop;
    return input.subarray(start, stop);
  }
  let start: number;
  let stop: number;
  if (b <= 0xf7) {
    start = pos + 1;
    stop = start + b - 0xc0;
    if (stop > end) throw decodeError(`list of ${b - 0xc0} bytes at ${pos} runs past its end`);
  } else {
    const n = b - 0xf7;
    if (pos + 1 + n > end) throw decodeError(`list length at ${pos} runs past its end`);
    const len = readLength(input, pos + 1, n);
    if (len < 56) throw decodeError(`long form used for a list of ${len} bytes at ${pos}`);
    start = pos + 1 + n;
    stop = start + len;
    if (stop > end) throw decodeError(`list of ${len} bytes at ${pos} runs past its end`);
  }
  const items: RlpValue[] = [];
  let p = start;
  while (p < stop) {
    items.push(decodeItem(input, p, stop));
    p = cursor;
  }
  cursor = stop;
  return items;
}

/**
 * Decodes one RLP item that must span all of `input`. Byte strings in the result are `subarray`
 * views of `input` (see the module comment). Like @ethereumjs/rlp, an empty input decodes to an
 * empty byte string. Throws BaseError RLP_INVALID ("Cannot decode RLP: <reason>") for a prefixed
 * single byte below 0x80, a length with leading zeros, the long form for a length below 56, a
 * length beyond the input or the enclosing list, and trailing bytes after the item.
 */
export function rlpDecode(input: Uint8Array): RlpValue {
  if (input.length === 0) return new Uint8Array(0);
  let value: RlpValue;
  try {
    value = decodeItem(input, 0, input.length);
  } catch (e) {
    if (e instanceof RangeError) throw decodeError("nesting too deep");
    throw e;
  }
  if (cursor !== input.length) {
    throw decodeError(`${input.length - cursor} trailing bytes after the item`);
  }
  return value;
}
