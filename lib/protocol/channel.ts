/**
 * Channels (specs/protocol/derivation.md "Channel Format", fjord/derivation.md "Brotli Channel
 * Compression"): the frames of a channel, in order, carry `compress(rlp_batches)`, where rlp_batches
 * is each batch (`batch_version ++ content`) as an RLP byte string, one after the other.
 *
 * Compression: legacy zlib (RFC 1950, recognised by its header byte, whose low 4 bits are 8 or 15), or
 * from Fjord the versioned format `channel_version_byte ++ compressed`, where version 1 is Brotli
 * (RFC 7932) and every other version is invalid.
 *
 * Decompression stops at MAX_RLP_BYTES_PER_CHANNEL (10,000,000 bytes; 100,000,000 from Fjord): the
 * channel is read as though it held only that prefix, and every batch wholly inside it is used
 * (derivation.md "Channel Format"). A corrupt or truncated compressed stream likewise yields the batches
 * decoded before the error (op-node's channel reader stops at the first error).
 */
import zlib from "node:zlib";
import { concatBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import { rlpEncode } from "../common/rlp.ts";
import type { Frame } from "./frame.ts";
import { MAX_RLP_BYTES_PER_CHANNEL_BEDROCK, MAX_RLP_BYTES_PER_CHANNEL_FJORD } from "./rollup_config.ts";

export const CHANNEL_VERSION_BROTLI = 1;

export type ChannelCompression = "zlib" | "brotli";

/** The compression of channel data, from its first byte. Throws for an invalid version, or Brotli before Fjord. */
export function channelCompression(data: Uint8Array, fjord: boolean): ChannelCompression {
  if (data.length === 0) throw new BaseError("CHANNEL_INVALID", "Cannot read channel: no data");
  const low = data[0] & 0x0f;
  if (low === 8 || low === 15) return "zlib";
  if (data[0] === CHANNEL_VERSION_BROTLI) {
    if (!fjord) {
      throw new BaseError("CHANNEL_INVALID", "Cannot read channel: Brotli compression before Fjord");
    }
    return "brotli";
  }
  throw new BaseError("CHANNEL_INVALID", `Cannot read channel: unknown channel version ${data[0]}`);
}

/**
 * The data of a complete channel: the frames numbered 0..n with frame n closing it (any order, no
 * duplicates). Throws when a frame is missing or the channel is not closed.
 */
export function channelData(frames: Frame[]): Uint8Array {
  const byNumber = new Map<number, Frame>();
  let last: number | undefined;
  for (const f of frames) {
    if (byNumber.has(f.number)) {
      throw new BaseError("CHANNEL_INVALID", `Cannot assemble channel: frame ${f.number} appears twice`);
    }
    byNumber.set(f.number, f);
    if (f.isLast) {
      if (last !== undefined) throw new BaseError("CHANNEL_INVALID", "Cannot assemble channel: closed twice");
      last = f.number;
    }
  }
  if (last === undefined) throw new BaseError("CHANNEL_INVALID", "Cannot assemble channel: not closed");
  const parts: Uint8Array[] = [];
  for (let n = 0; n <= last; n++) {
    const f = byNumber.get(n);
    if (f === undefined) {
      throw new BaseError("CHANNEL_INVALID", `Cannot assemble channel: frame ${n} is missing`);
    }
    parts.push(f.data);
  }
  if (byNumber.size !== last + 1) {
    throw new BaseError("CHANNEL_INVALID", `Cannot assemble channel: frames after the closing frame ${last}`);
  }
  return concatBytes(...parts);
}

/** What decompression produced: at most `limit` bytes, and the error that ended it early, if any. */
export interface Decompressed {
  data: Uint8Array;
  /** The limit was reached (more data may follow). */
  truncated: boolean;
  error?: string;
}

/** Decompresses channel data (zlib or Brotli, see channelCompression) up to `limit` bytes. */
export async function decompressChannel(
  data: Uint8Array,
  options: { fjord: boolean; limit?: number },
): Promise<Decompressed> {
  const kind = channelCompression(data, options.fjord);
  const limit = options.limit ??
    Number(options.fjord ? MAX_RLP_BYTES_PER_CHANNEL_FJORD : MAX_RLP_BYTES_PER_CHANNEL_BEDROCK);
  const stream = kind === "zlib" ? zlib.createInflate() : zlib.createBrotliDecompress();
  const input = kind === "zlib" ? data : data.subarray(1);
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  let error: string | undefined;
  await new Promise<void>((resolve) => {
    stream.on("data", (chunk: Uint8Array) => {
      if (truncated) return;
      const take = chunk.length > limit - size ? chunk.subarray(0, limit - size) : chunk;
      chunks.push(take);
      size += take.length;
      if (size >= limit && take.length < chunk.length) {
        truncated = true;
        stream.destroy();
        resolve();
      }
    });
    stream.on("error", (e: Error) => {
      error = e.message;
      resolve();
    });
    stream.on("end", () => resolve());
    stream.on("close", () => resolve());
    stream.end(input);
  });
  return { data: concatBytes(...chunks), truncated, error };
}

/**
 * The batches (each `batch_version ++ content`) in decompressed channel data: RLP byte strings one
 * after the other. Reading stops at the first element that is not a complete byte string (a list, or
 * one running past the end); `error` then says why, and the batches before it stand.
 */
export function readChannelBatches(data: Uint8Array): { batches: Uint8Array[]; error?: string } {
  const batches: Uint8Array[] = [];
  let at = 0;
  while (at < data.length) {
    const b = data[at];
    let start: number;
    let length: number;
    if (b < 0x80) {
      start = at;
      length = 1;
    } else if (b <= 0xb7) {
      start = at + 1;
      length = b - 0x80;
      if (length === 1 && start < data.length && data[start] < 0x80) {
        return { batches, error: `non-canonical RLP string at byte ${at}` };
      }
    } else if (b < 0xc0) {
      const n = b - 0xb7;
      if (at + 1 + n > data.length) return { batches, error: `truncated RLP length at byte ${at}` };
      if (data[at + 1] === 0) return { batches, error: `non-canonical RLP length at byte ${at}` };
      length = 0;
      for (let i = 0; i < n; i++) length = length * 256 + data[at + 1 + i];
      if (length < 56) return { batches, error: `non-canonical RLP length at byte ${at}` };
      start = at + 1 + n;
    } else return { batches, error: `a list where a batch belongs at byte ${at}` };
    if (start + length > data.length) {
      return { batches, error: `batch of ${length} bytes at byte ${at} runs past the channel's end` };
    }
    batches.push(data.slice(start, start + length));
    at = start + length;
  }
  return { batches };
}

/** Compresses batches into channel data (the batcher's side; zlib, or Brotli with the version byte). */
export function compressChannel(batches: Uint8Array[], kind: ChannelCompression): Uint8Array {
  const rlp = concatBytes(...batches.map((b) => rlpEncode(b)));
  if (kind === "zlib") return new Uint8Array(zlib.deflateSync(rlp));
  return concatBytes(Uint8Array.of(CHANNEL_VERSION_BROTLI), new Uint8Array(zlib.brotliCompressSync(rlp)));
}
