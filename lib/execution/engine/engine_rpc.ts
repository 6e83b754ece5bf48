/**
 * The `engine_*` JSON-RPC namespace (served on the authrpc listener behind the JWT; the listener is
 * wired by the composition root). Each method parses its params with the wire schemas, calls the
 * ExecutionEngineApi, and returns the wire form. Engine API errors become their execution-apis codes
 * (-38001 unknown payload, -38002 invalid forkchoice state, -38003 invalid payload attributes,
 * -38005 unsupported fork, -32602 invalid params) with the detail in `data.err`, as geth does.
 */
import { bytesToHex } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { EngineVersion } from "../../protocol/mod.ts";
import { defineMethod, type Namespace, RpcError, s } from "../../rpc/mod.ts";
import {
  ENGINE_API_ERRORS,
  ENGINE_RPC_CODES,
  ENGINE_RPC_MESSAGES,
  type ExecutionEngineApi,
} from "./engine_api.ts";
import {
  blobsToJson,
  clientVersionSchema,
  envelopeToJson,
  forkchoiceStateSchema,
  forkchoiceUpdatedResultToJson,
  parseExecutionPayload,
  parsePayloadAttributes,
  payloadIdSchema,
  payloadStatusToJson,
} from "./wire.ts";

const KINDS = Object.keys(ENGINE_API_ERRORS) as (keyof typeof ENGINE_API_ERRORS)[];

/** An Engine API BaseError as its JSON-RPC error; anything else passes through. */
export function toEngineRpcError(err: unknown): unknown {
  if (!(err instanceof BaseError)) return err;
  const kind = KINDS.find((k) => ENGINE_API_ERRORS[k] === err.code);
  if (kind === undefined) return err;
  const detail = typeof err.meta?.detail === "string" ? err.meta.detail : err.message;
  return new RpcError(ENGINE_RPC_CODES[kind], ENGINE_RPC_MESSAGES[kind], { err: detail });
}

async function wrap<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toEngineRpcError(err);
  }
}

const attributesParam = s.optional(s.custom("PayloadAttributes", parsePayloadAttributes));
const payloadParam = s.custom("ExecutionPayload", parseExecutionPayload);

/** The engine_* methods over `api`. */
export function engineNamespace(api: ExecutionEngineApi): Namespace {
  const fcu = (version: EngineVersion) =>
    defineMethod({
      name: `engine_forkchoiceUpdatedV${version}`,
      params: [forkchoiceStateSchema, attributesParam] as const,
      handler: ([state, attrs]) =>
        wrap(async () => forkchoiceUpdatedResultToJson(await api.forkchoiceUpdated(version, state, attrs))),
    });
  const getPayload = (version: EngineVersion) =>
    defineMethod({
      name: `engine_getPayloadV${version}`,
      params: [payloadIdSchema] as const,
      handler: ([id]) => wrap(async () => envelopeToJson(await api.getPayload(version, id), version)),
    });
  return {
    forkchoiceUpdatedV1: fcu(1),
    forkchoiceUpdatedV2: fcu(2),
    forkchoiceUpdatedV3: fcu(3),
    getPayloadV2: getPayload(2),
    getPayloadV3: getPayload(3),
    getPayloadV4: getPayload(4),
    newPayloadV2: defineMethod({
      name: "engine_newPayloadV2",
      params: [payloadParam] as const,
      handler: ([p]) => wrap(async () => payloadStatusToJson(await api.newPayload(2, p))),
    }),
    newPayloadV3: defineMethod({
      name: "engine_newPayloadV3",
      params: [payloadParam, s.optional(s.array(s.hash())), s.optional(s.hash())] as const,
      handler: ([p, hashes, root]) =>
        wrap(async () => payloadStatusToJson(await api.newPayload(3, p, hashes, root))),
    }),
    newPayloadV4: defineMethod({
      name: "engine_newPayloadV4",
      params: [
        payloadParam,
        s.optional(s.array(s.hash())),
        s.optional(s.hash()),
        s.optional(s.array(s.hex())),
      ] as const,
      handler: ([p, hashes, root, requests]) =>
        wrap(async () => payloadStatusToJson(await api.newPayload(4, p, hashes, root, requests))),
    }),
    getBlobsV1: defineMethod({
      name: "engine_getBlobsV1",
      params: [s.array(s.hash())] as const,
      handler: ([hashes]) => wrap(() => blobsToJson(api.getBlobs(hashes))),
    }),
    exchangeCapabilities: defineMethod({
      name: "engine_exchangeCapabilities",
      params: [s.array(s.string())] as const,
      handler: ([theirs]) => api.exchangeCapabilities(theirs),
    }),
    signalSuperchainV1: defineMethod({
      name: "engine_signalSuperchainV1",
      params: [s.object({ recommended: s.hash(), required: s.hash() })] as const,
      handler: ([signal]) => bytesToHex(api.signalSuperchain(signal.recommended, signal.required)),
    }),
    getClientVersionV1: defineMethod({
      name: "engine_getClientVersionV1",
      params: [s.optional(clientVersionSchema)] as const,
      handler: ([theirs]) => api.getClientVersion(theirs),
    }),
  };
}
