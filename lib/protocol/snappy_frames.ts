/**
 * Snappy's framing format (google/snappy framing_format.txt), which the req-resp payloads use
 * (rollup-node-p2p.md "payload_by_number": "Snappy framing compression"): the stream identifier chunk,
 * then compressed (type 0) or uncompressed (type 1) data chunks of at most 65,536 bytes, each with the
 * masked CRC-32C of its uncompressed data. Decoding stops at `maxLength` bytes of output.
 */
import * as snappy from "snappyjs";
import { concatBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import { crc32c } from "../common/crc.ts";

export { crc32c };

const STREAM_IDENTIFIER = Uint8Array.of(0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59);
const MAX_CHUNK = 65_536;

/** The framing format's masked checksum: rotate right by 15, add 0xa282ead8. */
export function maskedCrc(data: Uint8Array): number {
  const c = crc32c(data);
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

function invalid(message: string): BaseError {
  return new BaseError("SNAPPY_FRAMES_INVALID", `Cannot decode snappy frames: ${message}`);
}

/** `data` in snappy frames: the stream identifier, then one compressed chunk per 64 KiB. */
export function encodeSnappyFrames(data: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [STREAM_IDENTIFIER];
  for (let at = 0; at < data.length || at === 0; at += MAX_CHUNK) {
    const chunk = data.subarray(at, at + MAX_CHUNK);
    const body = snappy.compress(chunk);
    const header = new Uint8Array(8);
    const length = body.length + 4;
    header[0] = 0x00;
    header[1] = length & 0xff;
    header[2] = (length >>> 8) & 0xff;
    header[3] = (length >>> 16) & 0xff;
    new DataView(header.buffer).setUint32(4, maskedCrc(chunk), true);
    parts.push(header, body);
    if (data.length === 0) break;
  }
  return concatBytes(...parts);
}

/** The data of snappy frames, checksums checked; throws SNAPPY_FRAMES_INVALID. */
export function decodeSnappyFrames(frames: Uint8Array, maxLength: number): Uint8Array {
  const out: Uint8Array[] = [];
  let total = 0;
  let at = 0;
  let sawIdentifier = false;
  while (at < frames.length) {
    if (at + 4 > frames.length) throw invalid("truncated chunk header");
    const type = frames[at];
    const length = frames[at + 1] | (frames[at + 2] << 8) | (frames[at + 3] << 16);
    const body = frames.subarray(at + 4, at + 4 + length);
    if (body.length !== length) throw invalid("truncated chunk");
    at += 4 + length;
    if (type === 0xff) {
      if (length !== 6 || body.some((b, i) => b !== STREAM_IDENTIFIER[4 + i])) {
        throw invalid("bad stream identifier");
      }
      sawIdentifier = true;
      continue;
    }
    if (!sawIdentifier) throw invalid("data before the stream identifier");
    if (type === 0x00 || type === 0x01) {
      if (length < 4) throw invalid("chunk without checksum");
      const crc = new DataView(body.buffer, body.byteOffset, 4).getUint32(0, true);
      let data: Uint8Array;
      try {
        data = type === 0x00 ? snappy.uncompress(body.subarray(4), MAX_CHUNK) : body.slice(4);
      } catch (e) {
        throw invalid(`bad compressed chunk (${(e as Error).message})`);
      }
      if (data.length > MAX_CHUNK) throw invalid("chunk above 64 KiB");
      if (maskedCrc(data) !== crc) throw invalid("checksum mismatch");
      total += data.length;
      if (total > maxLength) throw invalid(`more than ${maxLength} bytes`);
      out.push(data);
    } else if (type <= 0x7f) {
      throw invalid(`reserved unskippable chunk type ${type}`);
    } // 0x80-0xfe: skippable (padding and reserved)
  }
  if (!sawIdentifier) throw invalid("no stream identifier");
  return concatBytes(...out);
}
