/**
 * Channel frames and batcher transactions (specs/protocol/derivation.md "Batcher Transaction Format",
 * "Frame Format").
 *
 *   batcher tx data = version_byte ++ frame ...        (version 0; version 1 is alt-DA, not handled here)
 *   frame = channel_id (16) ++ frame_number (u16) ++ frame_data_length (u32) ++ frame_data ++ is_last (1)
 *
 * A frame's data is at most 1,000,000 bytes; `is_last` other than 0 or 1 makes the frame invalid; if any
 * frame of a batcher transaction fails to parse, all its frames are rejected.
 */
import { concatBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";

export const DERIVATION_VERSION_0 = 0;
/** Fixed bytes of a frame besides its data: 16 + 2 + 4 + 1. */
export const FRAME_OVERHEAD = 23;
/** derivation.md "Frame Format": frame_data_length is capped to 1,000,000 bytes. */
export const MAX_FRAME_DATA_LENGTH = 1_000_000;
export const CHANNEL_ID_LENGTH = 16;

export interface Frame {
  /** 16 bytes. */
  channelId: Uint8Array;
  /** uint16. */
  number: number;
  data: Uint8Array;
  isLast: boolean;
}

function bad(what: string, message: string): BaseError {
  return new BaseError("FRAME_INVALID", `Cannot decode ${what}: ${message}`);
}

/** The encoding of one frame. */
export function encodeFrame(f: Frame): Uint8Array {
  if (f.channelId.length !== CHANNEL_ID_LENGTH) {
    throw new BaseError(
      "FRAME_INVALID",
      `Cannot encode frame: channel id is ${f.channelId.length} bytes, want 16`,
    );
  }
  if (!Number.isInteger(f.number) || f.number < 0 || f.number > 0xffff) {
    throw new BaseError("FRAME_INVALID", `Cannot encode frame: frame number ${f.number} is not a uint16`);
  }
  if (f.data.length > MAX_FRAME_DATA_LENGTH) {
    throw new BaseError(
      "FRAME_INVALID",
      `Cannot encode frame: data length is ${f.data.length}, above ${MAX_FRAME_DATA_LENGTH}`,
    );
  }
  const out = new Uint8Array(FRAME_OVERHEAD + f.data.length);
  const view = new DataView(out.buffer);
  out.set(f.channelId, 0);
  view.setUint16(16, f.number);
  view.setUint32(18, f.data.length);
  out.set(f.data, 22);
  out[22 + f.data.length] = f.isLast ? 1 : 0;
  return out;
}

/** Decodes the frame at `offset`; returns it and the offset after it. */
export function decodeFrame(input: Uint8Array, offset = 0): [Frame, number] {
  const left = input.length - offset;
  if (left < FRAME_OVERHEAD - 1) throw bad("frame", `${left} bytes left, a frame header is 22`);
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const number = view.getUint16(offset + 16);
  const length = view.getUint32(offset + 18);
  if (length > MAX_FRAME_DATA_LENGTH) {
    throw bad("frame", `data length is ${length}, above ${MAX_FRAME_DATA_LENGTH}`);
  }
  const end = offset + 22 + length;
  if (end + 1 > input.length) {
    throw bad(
      "frame",
      `data length is ${length}, only ${input.length - offset - 22} bytes follow the header`,
    );
  }
  const last = input[end];
  if (last > 1) throw bad("frame", `is_last is ${last}, want 0 or 1`);
  return [
    {
      channelId: input.slice(offset, offset + 16),
      number,
      data: input.slice(offset + 22, end),
      isLast: last === 1,
    },
    end + 1,
  ];
}

/**
 * The frames of a batcher transaction's data (calldata or a blob's content). Throws when the version
 * is not 0, when there is no frame, or when any frame fails to parse (then none is used).
 */
export function parseBatcherTxData(data: Uint8Array): Frame[] {
  if (data.length === 0) throw bad("batcher transaction", "no data");
  if (data[0] !== DERIVATION_VERSION_0) throw bad("batcher transaction", `unknown version ${data[0]}`);
  const frames: Frame[] = [];
  let at = 1;
  if (at === data.length) throw bad("batcher transaction", "no frames");
  while (at < data.length) {
    const [frame, next] = decodeFrame(data, at);
    frames.push(frame);
    at = next;
  }
  return frames;
}

/** A batcher transaction's data: version 0 and the frames. */
export function encodeBatcherTxData(frames: Frame[]): Uint8Array {
  return concatBytes(Uint8Array.of(DERIVATION_VERSION_0), ...frames.map(encodeFrame));
}
