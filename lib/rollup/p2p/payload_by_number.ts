/**
 * The `payload_by_number` req-resp method (rollup-node-p2p.md "Req-Resp"): protocol
 * `/opstack/req/payload_by_number/<chain-id>/0/`, request a little-endian uint64 block number, response
 * `<res><version><payload>`: res 0 on success (1 unavailable, 2 invalid request, 3 other error), version a
 * little-endian uint32, the payload SSZ in snappy frames, read to the end of the stream:
 * version 0 the ExecutionPayload (Bedrock to Canyon: V1, V2 from Canyon), 1 the Ecotone envelope
 * (parentBeaconBlockRoot ++ ExecutionPayload V3), 2 the Isthmus envelope (parentBeaconBlockRoot ++
 * ExecutionPayload V4, which carries withdrawalsRoot).
 */
import type { Stream } from "@libp2p/interface";
import { concatBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { ExecutionPayload } from "../../protocol/engine.ts";
import { decodePayloadSsz, encodePayloadSsz, MAX_GOSSIP_SIZE } from "../../protocol/gossip_block.ts";
import { isRollupForkActive, type RollupConfig } from "../../protocol/rollup_config.ts";
import { decodeSnappyFrames, encodeSnappyFrames } from "../../protocol/snappy_frames.ts";

export const RESULT_OK = 0;
export const RESULT_UNAVAILABLE = 1;
export const RESULT_INVALID_REQUEST = 2;
export const RESULT_ERROR = 3;

export function payloadByNumberProtocol(chainId: bigint): string {
  return `/opstack/req/payload_by_number/${chainId}/0/`;
}

export interface PayloadWithRoot {
  payload: ExecutionPayload;
  parentBeaconBlockRoot?: Uint8Array;
}

function invalid(message: string): BaseError {
  return new BaseError("PAYLOAD_BY_NUMBER_INVALID", `Cannot use payload_by_number response: ${message}`);
}

/** The success response for a block. Throws when an Ecotone+ block lacks its parent beacon block root. */
export function encodePayloadResponse(cfg: RollupConfig, block: PayloadWithRoot): Uint8Array {
  const t = block.payload.timestamp;
  const head = new Uint8Array(5);
  const view = new DataView(head.buffer);
  head[0] = RESULT_OK;
  let body: Uint8Array;
  if (isRollupForkActive(cfg, "ecotone", t)) {
    const isthmus = isRollupForkActive(cfg, "isthmus", t);
    if (block.parentBeaconBlockRoot?.length !== 32) {
      throw invalid("an Ecotone block needs its parent beacon block root");
    }
    view.setUint32(1, isthmus ? 2 : 1, true);
    body = concatBytes(block.parentBeaconBlockRoot, encodePayloadSsz(block.payload, isthmus ? 3 : 2));
  } else {
    view.setUint32(1, 0, true);
    body = encodePayloadSsz(block.payload, isRollupForkActive(cfg, "canyon", t) ? 1 : 0);
  }
  return concatBytes(head, encodeSnappyFrames(body));
}

/** The block of a response to a request for `number`; throws PAYLOAD_BY_NUMBER_INVALID otherwise. */
export function decodePayloadResponse(
  cfg: RollupConfig,
  response: Uint8Array,
  number: bigint,
): PayloadWithRoot {
  if (response.length < 1) throw invalid("empty response");
  if (response[0] !== RESULT_OK) throw invalid(`result code ${response[0]}`);
  if (response.length < 5) throw invalid("no version");
  const version = new DataView(response.buffer, response.byteOffset + 1, 4).getUint32(0, true);
  const body = decodeSnappyFrames(response.subarray(5), MAX_GOSSIP_SIZE);
  let out: PayloadWithRoot;
  if (version === 0) {
    // V1 or V2 by the requested block's time (op-node: isCanyon of the expected timestamp).
    const t = cfg.genesis.l2Time + (number - cfg.genesis.l2.number) * cfg.blockTime;
    out = { payload: decodePayloadSsz(body, isRollupForkActive(cfg, "canyon", t) ? 1 : 0) };
  } else if (version === 1 || version === 2) {
    if (body.length < 32) throw invalid("envelope without parent beacon block root");
    out = {
      parentBeaconBlockRoot: body.slice(0, 32),
      payload: decodePayloadSsz(body.subarray(32), version === 2 ? 3 : 2),
    };
  } else throw invalid(`unknown version ${version}`);
  if (out.payload.blockNumber !== number) {
    throw invalid(`block ${out.payload.blockNumber} answered for block ${number}`);
  }
  return out;
}

/** Reads a stream to its end, or until `limit` bytes (then stops reading). */
async function readAll(stream: Stream, limit: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = chunk instanceof Uint8Array ? chunk : chunk.subarray();
    parts.push(bytes);
    size += bytes.length;
    if (size >= limit) break;
  }
  return concatBytes(...parts).subarray(0, Math.min(size, limit));
}

/**
 * Answers one request on `stream` from `lookup` (the node's canonical chain) and closes it. Returns why
 * the request failed, if it did (the peer got the error code).
 */
export async function servePayloadByNumber(
  stream: Stream,
  cfg: RollupConfig,
  lookup: ((number: bigint) => Promise<PayloadWithRoot | undefined>) | undefined,
): Promise<string | undefined> {
  let code = RESULT_ERROR;
  let response: Uint8Array | undefined;
  let failure: string | undefined;
  try {
    const request = await readAll(stream, 8);
    if (request.length !== 8) code = RESULT_INVALID_REQUEST;
    else {
      const number = new DataView(request.buffer, request.byteOffset, 8).getBigUint64(0, true);
      const block = await lookup?.(number);
      if (block === undefined) code = RESULT_UNAVAILABLE;
      else response = encodePayloadResponse(cfg, block);
    }
  } catch (e) {
    failure = (e as Error).message;
  }
  try {
    stream.send(response ?? Uint8Array.of(code));
    await stream.close();
  } catch {
    stream.abort(new Error("payload_by_number response failed"));
  }
  return failure;
}

/** Sends the request for block `number` on `stream` and decodes the answer; throws when it is not the block. */
export async function requestPayloadByNumber(
  stream: Stream,
  cfg: RollupConfig,
  number: bigint,
): Promise<PayloadWithRoot> {
  const request = new Uint8Array(8);
  new DataView(request.buffer).setBigUint64(0, number, true);
  stream.send(request);
  return decodePayloadResponse(cfg, await readAll(stream, MAX_GOSSIP_SIZE + 16), number);
}
