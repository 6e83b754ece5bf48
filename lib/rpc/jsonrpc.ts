/**
 * The JSON-RPC 2.0 envelope: parse a request text (single or batch), dispatch each call
 * through the registry, and write the response. Transport-independent: the HTTP listener calls
 * `handleRpcBody` (the body as bytes when a result was written as bytes), the WebSocket one
 * `handleRpcText`.
 *
 * Behaviour follows go-ethereum's rpc package (handler.go, json.go, errors.go):
 * - invalid JSON -> -32700 "parse error", id null;
 * - a non-object message -> -32600 "invalid request", id null;
 * - empty batch -> one (non-array) -32600 "empty batch";
 * - more than `batchItemLimit` items -> `[{id: <first call's id>, -32600 "batch too large"}]`;
 * - once the results of a batch exceed `batchResponseMaxSize` bytes, the remaining calls get
 *   -32003 "response too large";
 * - a message without `id` is a notification: it runs, and gets no response; a batch of only
 *   notifications gets no response at all (empty HTTP body);
 * - the `jsonrpc` member is not enforced (geth accepts any).
 */
import { BaseError } from "../common/mod.ts";
import { type AnyMethodDef, type MethodRegistry, namespaceOf, parseParams } from "./registry.ts";
import { RPC_ERROR_CODES, RpcError, type RpcErrorObject, toRpcErrorObject } from "./rpc_error.ts";
import type { ConnectionSubscriptions } from "./subscriptions.ts";
import type { MethodContext, RpcLogger, WsConnection } from "./types.ts";
import { joinBytes } from "./json_bytes.ts";

/** Limits applied per request text. Defaults are geth's (node/defaults.go, rpc/server.go). */
export interface EnvelopeLimits {
  /** Maximum items in one batch; 0 = unlimited. geth `--rpc.batch-request-limit` 1000. */
  batchItemLimit: number;
  /** Maximum bytes of results in one batch response; 0 = unlimited. geth `--rpc.batch-response-max-size` 25,000,000. */
  batchResponseMaxSize: number;
}

export const DEFAULT_ENVELOPE_LIMITS: EnvelopeLimits = {
  batchItemLimit: 1000,
  batchResponseMaxSize: 25_000_000,
};

/** Everything a dispatch needs besides the text. */
export interface DispatchContext {
  readonly registry: MethodRegistry;
  readonly limits: EnvelopeLimits;
  readonly logger: RpcLogger;
  readonly signal?: AbortSignal;
  /** Set for WebSocket connections; subscriptions are refused without it. */
  readonly connection?: WsConnection;
  /**
   * Set for WebSocket connections. Subscriptions start held; the transport calls
   * `subscriptions.activatePending()` after writing the response.
   */
  readonly subscriptions?: ConnectionSubscriptions;
  /** Hears each method call answered and its duration in seconds (the RPC server metrics). */
  readonly onCall?: (method: string, seconds: number) => void;
}

const NULL_ID = "null";

function errorText(idJson: string, error: RpcErrorObject): string {
  let body: string;
  try {
    body = JSON.stringify(error);
  } catch {
    body = JSON.stringify({ code: RPC_ERROR_CODES.INTERNAL_ERROR, message: "internal error" });
  }
  return `{"jsonrpc":"2.0","id":${idJson},"error":${body}}`;
}

function invalidRequest(idJson: string, message = "invalid request"): string {
  return errorText(idJson, { code: RPC_ERROR_CODES.INVALID_REQUEST, message });
}

/** JSON text of a valid id (string, number or null), or undefined when the id is not valid. */
function idToJson(id: unknown): string | undefined {
  if (id === null) return NULL_ID;
  if (typeof id === "number") return Number.isFinite(id) ? JSON.stringify(id) : undefined;
  if (typeof id === "string") return JSON.stringify(id);
  return undefined;
}

/**
 * A response body: JSON text, or JSON as UTF-8 bytes when a result was written as bytes (RawJson of
 * a Uint8Array; the transports send bytes as they are).
 */
export type RpcBody = string | Uint8Array<ArrayBuffer>;

/** The outcome of one message: the response body and the size of its result (for batch limits). */
interface Answer {
  body: RpcBody;
  resultBytes: number;
}

const decoder = new TextDecoder();

/** A body as text (WebSocket text frames, tests). */
export function bodyText(body: RpcBody): string {
  return typeof body === "string" ? body : decoder.decode(body);
}

/**
 * Handle one request text (single or batch). Returns the response text, or undefined when
 * nothing is to be sent (notifications). Never throws for bad input.
 */
export async function handleRpcText(text: string, ctx: DispatchContext): Promise<string | undefined> {
  const body = await handleRpcBody(text, ctx);
  return body === undefined ? undefined : bodyText(body);
}

/** As handleRpcText, with the body as bytes where a result was written as bytes (the HTTP transport). */
export async function handleRpcBody(text: string, ctx: DispatchContext): Promise<RpcBody | undefined> {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return errorText(NULL_ID, { code: RPC_ERROR_CODES.PARSE_ERROR, message: "parse error" });
  }
  return await handleRpcMessage(msg, ctx);
}

/** As handleRpcText, for an already parsed JSON value. */
export async function handleRpcValue(msg: unknown, ctx: DispatchContext): Promise<string | undefined> {
  const body = await handleRpcMessage(msg, ctx);
  return body === undefined ? undefined : bodyText(body);
}

async function handleRpcMessage(msg: unknown, ctx: DispatchContext): Promise<RpcBody | undefined> {
  if (!Array.isArray(msg)) {
    let answer = handleMessage(msg, ctx);
    if (answer instanceof Promise) answer = await answer;
    return answer?.body;
  }
  if (msg.length === 0) return invalidRequest(NULL_ID, "empty batch");
  const { batchItemLimit, batchResponseMaxSize } = ctx.limits;
  if (batchItemLimit > 0 && msg.length > batchItemLimit) {
    let idJson = NULL_ID;
    for (const m of msg) {
      if (isObject(m) && typeof m.method === "string" && "id" in m) {
        idJson = idToJson(m.id) ?? NULL_ID;
        break;
      }
    }
    return `[${invalidRequest(idJson, "batch too large")}]`;
  }
  const parts: RpcBody[] = [];
  let resultBytes = 0;
  let i = 0;
  for (; i < msg.length; i++) {
    let answer = handleMessage(msg[i], ctx);
    if (answer instanceof Promise) answer = await answer;
    if (!answer) continue;
    parts.push(answer.body);
    resultBytes += answer.resultBytes;
    if (batchResponseMaxSize > 0 && resultBytes > batchResponseMaxSize) {
      i++;
      break;
    }
  }
  // Past the response size limit: every remaining call gets -32003 (geth handler.go).
  for (; i < msg.length; i++) {
    const m = msg[i];
    if (isObject(m) && "id" in m) {
      parts.push(errorText(idToJson(m.id) ?? NULL_ID, {
        code: RPC_ERROR_CODES.RESPONSE_TOO_LARGE,
        message: "response too large",
      }));
    } else if (!isObject(m)) {
      parts.push(invalidRequest(NULL_ID));
    }
  }
  if (parts.length === 0) return undefined;
  if (parts.every((p) => typeof p === "string")) return `[${parts.join(",")}]`;
  return joinBytes(parts, "[", ",", "]");
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * One message. Synchronous when the handler is (no microtask per batch item); a Promise only
 * when the handler returns one.
 */
function handleMessage(raw: unknown, ctx: DispatchContext): Answer | undefined | Promise<Answer | undefined> {
  if (!isObject(raw)) return { body: invalidRequest(NULL_ID), resultBytes: 0 };
  const hasId = "id" in raw && raw.id !== undefined;
  const idJson = hasId ? idToJson(raw.id) : NULL_ID;
  if (idJson === undefined) return { body: invalidRequest(NULL_ID), resultBytes: 0 };
  const method = raw.method;
  if (typeof method !== "string" || method === "") {
    return { body: invalidRequest(idJson), resultBytes: 0 };
  }

  const onCall = ctx.onCall;
  if (onCall !== undefined) {
    // Timed: the answer, however it ends, once it is known (a Promise's when it settles).
    const started = performance.now();
    const done = (answer: Answer | undefined) => {
      onCall(method, (performance.now() - started) / 1000);
      return answer;
    };
    const answer = dispatchMethod(raw, method, hasId, idJson, ctx);
    return answer instanceof Promise ? answer.then(done) : done(answer);
  }
  return dispatchMethod(raw, method, hasId, idJson, ctx);
}

/** Calls the method of a well-formed request (handleMessage). */
function dispatchMethod(
  raw: Record<string, unknown>,
  method: string,
  hasId: boolean,
  idJson: string,
  ctx: DispatchContext,
): Answer | undefined | Promise<Answer | undefined> {
  let result: unknown;
  try {
    const def = ctx.registry.method(method);
    if (def !== undefined) {
      result = callMethod(def, raw.params, ctx);
    } else if (method.endsWith("_subscribe") && ctx.registry.hasSubscriptions(namespaceOf(method))) {
      result = subscribe(namespaceOf(method), raw.params, ctx);
    } else if (method.endsWith("_unsubscribe") && ctx.registry.hasSubscriptions(namespaceOf(method))) {
      result = unsubscribe(raw.params, ctx);
    } else {
      throw RpcError.methodNotFound(method);
    }
  } catch (err) {
    return failure(err, method, hasId, idJson, ctx);
  }
  if (result instanceof Promise) {
    return result.then(
      (value) => success(value, method, hasId, idJson, ctx),
      (err) => failure(err, method, hasId, idJson, ctx),
    );
  }
  return success(result, method, hasId, idJson, ctx);
}

function failure(
  err: unknown,
  method: string,
  hasId: boolean,
  idJson: string,
  ctx: DispatchContext,
): Answer | undefined {
  if (!hasId) {
    ctx.logger.debug("RPC notification failed", { method, error: String(err) });
    return undefined;
  }
  const error = toRpcErrorObject(err, (e) => {
    ctx.logger.error("RPC handler failed unexpectedly", {
      method,
      error: e instanceof Error ? (e.stack ?? e.message) : String(e),
    });
  });
  return { body: errorText(idJson, error), resultBytes: 0 };
}

function success(
  result: unknown,
  method: string,
  hasId: boolean,
  idJson: string,
  ctx: DispatchContext,
): Answer | undefined {
  if (!hasId) return undefined;
  let resultJson: string | undefined;
  if (result instanceof RawJson) {
    const json = result.json;
    const body = typeof json === "string"
      ? answerText(idJson, json)
      : joinBytes([`{"jsonrpc":"2.0","id":${idJson},"result":`, json, "}"]);
    return { body, resultBytes: json.length };
  }
  try {
    resultJson = JSON.stringify(result);
  } catch (err) {
    // A bigint (or a cycle) in a result is a bug in the namespace, never the client's fault.
    ctx.logger.error(
      "Cannot serialise RPC result: namespaces must return wire values (hex strings, not bigint)",
      {
        method,
        error: String(err),
      },
    );
    return {
      body: errorText(idJson, { code: RPC_ERROR_CODES.INTERNAL_ERROR, message: "internal error" }),
      resultBytes: 0,
    };
  }
  if (resultJson === undefined) resultJson = "null";
  return { body: answerText(idJson, resultJson), resultBytes: resultJson.length };
}

function answerText(idJson: string, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${idJson},"result":${resultJson}}`;
}

/**
 * A method result that is already JSON: text, or UTF-8 bytes (json_bytes.ts). Handlers of large
 * results (eth_getLogs pages of thousands of logs) write it directly instead of building objects
 * for JSON.stringify; it must be one valid JSON value.
 */
export class RawJson {
  readonly json: string | Uint8Array<ArrayBuffer>;
  constructor(json: string | Uint8Array<ArrayBuffer>) {
    this.json = json;
  }
}

function callMethod(def: AnyMethodDef, rawParams: unknown, ctx: DispatchContext): unknown {
  const params = parseParams(def.params, def.required, rawParams);
  const mctx: MethodContext = { signal: ctx.signal, connection: ctx.connection, raw: rawParams };
  return def.handler(params, mctx);
}

async function subscribe(namespace: string, rawParams: unknown, ctx: DispatchContext): Promise<string> {
  if (!ctx.subscriptions) {
    // geth: ErrNotificationsUnsupported, code -32601, over HTTP.
    throw new RpcError(RPC_ERROR_CODES.METHOD_NOT_FOUND, "notifications not supported");
  }
  const args = Array.isArray(rawParams) ? rawParams : [];
  const name = args[0];
  if (typeof name !== "string") {
    throw RpcError.invalidParams("expected subscription name as first argument");
  }
  const def = ctx.registry.subscription(namespace, name);
  if (!def) {
    throw new RpcError(
      RPC_ERROR_CODES.METHOD_NOT_FOUND,
      `no ${JSON.stringify(name)} subscription in ${namespace} namespace`,
    );
  }
  const params = parseParams(def.params, def.required, args.slice(1), 1);
  return await ctx.subscriptions.subscribe(def, params);
}

async function unsubscribe(rawParams: unknown, ctx: DispatchContext): Promise<boolean> {
  if (!ctx.subscriptions) {
    throw new RpcError(RPC_ERROR_CODES.METHOD_NOT_FOUND, "notifications not supported");
  }
  const args = Array.isArray(rawParams) ? rawParams : [];
  if (args.length !== 1 || typeof args[0] !== "string") {
    throw RpcError.invalidParams("invalid argument 0: want a subscription id");
  }
  const found = await ctx.subscriptions.unsubscribe(args[0]);
  if (!found) throw new BaseError("RPC_SUBSCRIPTION_NOT_FOUND", "subscription not found");
  return true;
}
