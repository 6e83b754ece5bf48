/**
 * Rollup data in an EIP-4844 blob (specs/protocol/ecotone/derivation.md "Blob Encoding"): 4096 field
 * elements of 32 bytes, of which the top two bits stay zero. The data stream is `version (0) ++
 * length (uint24, big-endian) ++ data`, laid out 127 bytes per 4 field elements: each element holds 31
 * bytes of the stream in its low bytes, and the 4 remaining stream bytes of the round (x, y, z) are
 * spread over the elements' first bytes 6 bits at a time.
 *
 * Decoding refuses (the blob is then ignored): a field element with a top bit set, a version other than
 * 0, a length above 130,044, and any non-zero byte after the data.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { BaseError } from "../common/errors.ts";

export const BLOB_SIZE = 4096 * 32;

/** EIP-4844 kzg_to_versioned_hash: VERSIONED_HASH_VERSION_KZG (0x01) ++ sha256(commitment)[1:]. */
export function kzgToVersionedHash(commitment: Uint8Array): Uint8Array {
  const h = sha256(commitment);
  h[0] = 0x01;
  return h;
}
/** Stream bytes per blob: (4 * 31 + 3) * 1024. */
const STREAM_SIZE = 127 * 1024;
/** Largest rollup data in one blob: the stream less the version and length. */
export const MAX_BLOB_DATA_SIZE = STREAM_SIZE - 4;
const ROUNDS = 1024;

function bad(message: string): BaseError {
  return new BaseError("BLOB_INVALID", `Cannot decode blob: ${message}`);
}

/** Encodes rollup data into a blob (131,072 bytes). */
export function encodeBlobData(data: Uint8Array): Uint8Array {
  if (data.length > MAX_BLOB_DATA_SIZE) {
    throw new BaseError(
      "BLOB_INVALID",
      `Cannot encode blob: ${data.length} bytes of data, at most ${MAX_BLOB_DATA_SIZE}`,
    );
  }
  const stream = new Uint8Array(STREAM_SIZE);
  stream[0] = 0;
  stream[1] = (data.length >> 16) & 0xff;
  stream[2] = (data.length >> 8) & 0xff;
  stream[3] = data.length & 0xff;
  stream.set(data, 4);
  const blob = new Uint8Array(BLOB_SIZE);
  for (let r = 0; r < ROUNDS; r++) {
    const s = r * 127;
    const b = r * 128;
    const x = stream[s + 31];
    const y = stream[s + 63];
    const z = stream[s + 95];
    blob[b] = x & 0x3f;
    blob.set(stream.subarray(s, s + 31), b + 1);
    blob[b + 32] = (y & 0x0f) | ((x & 0xc0) >> 2);
    blob.set(stream.subarray(s + 32, s + 63), b + 33);
    blob[b + 64] = z & 0x3f;
    blob.set(stream.subarray(s + 64, s + 95), b + 65);
    blob[b + 96] = ((z & 0xc0) >> 2) | ((y & 0xf0) >> 4);
    blob.set(stream.subarray(s + 96, s + 127), b + 97);
  }
  return blob;
}

/** Decodes the rollup data of a blob; throws BLOB_INVALID when the encoding is not valid. */
export function decodeBlobData(blob: Uint8Array): Uint8Array {
  if (blob.length !== BLOB_SIZE) throw bad(`${blob.length} bytes, a blob is ${BLOB_SIZE}`);
  const stream = new Uint8Array(STREAM_SIZE);
  for (let r = 0; r < ROUNDS; r++) {
    const s = r * 127;
    const b = r * 128;
    for (let e = 0; e < 4; e++) {
      if ((blob[b + 32 * e] & 0xc0) !== 0) throw bad(`field element ${4 * r + e} has its top bits set`);
    }
    const a = blob[b];
    const bb = blob[b + 32];
    const c = blob[b + 64];
    const d = blob[b + 96];
    stream.set(blob.subarray(b + 1, b + 32), s);
    stream[s + 31] = a | ((bb & 0x30) << 2);
    stream.set(blob.subarray(b + 33, b + 64), s + 32);
    stream[s + 63] = (bb & 0x0f) | ((d & 0x0f) << 4);
    stream.set(blob.subarray(b + 65, b + 96), s + 64);
    stream[s + 95] = c | ((d & 0x30) << 2);
    stream.set(blob.subarray(b + 97, b + 128), s + 96);
  }
  if (stream[0] !== 0) throw bad(`unknown encoding version ${stream[0]}`);
  const length = (stream[1] << 16) | (stream[2] << 8) | stream[3];
  if (length > MAX_BLOB_DATA_SIZE) throw bad(`length ${length} is above ${MAX_BLOB_DATA_SIZE}`);
  for (let i = 4 + length; i < STREAM_SIZE; i++) {
    if (stream[i] !== 0) throw bad(`non-zero byte after the data, at stream byte ${i}`);
  }
  return stream.slice(4, 4 + length);
}
