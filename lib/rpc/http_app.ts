/**
 * The Hono app of one listener: JSON-RPC over HTTP POST and WebSocket on the same port, with
 * geth's HTTP rules (node/rpcstack.go, rpc/http.go):
 * - POST bodies above `bodyLimit` -> 413 "content length too large (N>M)";
 * - a Content-Type other than application/json (or application/json-rpc,
 *   application/jsonrequest) -> 415 "invalid content type, only application/json is supported";
 * - a Host header that is a name not in `vhosts` -> 403 "invalid host specified" (IP
 *   addresses always pass; "*" lets every name pass);
 * - CORS for `corsDomains` ("*" = any origin): preflight 204, Access-Control-Allow-Origin on
 *   answers to allowed origins;
 * - methods other than POST, GET and OPTIONS -> 405 "method not allowed";
 * - `GET /healthz` -> 200 (op-node's health endpoint); the GET routes of `restGet` (anvil's beacon API in
 *   dev mode); any other GET -> 200 (geth).
 * With a JWT secret, every request except /healthz needs a valid token (see jwt.ts), else 401.
 * WebSocket upgrades carrying an Origin header must match `wsOrigins` (geth `--ws.origins`;
 * empty = http://localhost only; "*" = any), else 403.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { upgradeWebSocket } from "hono/deno";
import { type EnvelopeLimits, handleRpcBody, handleRpcText } from "./jsonrpc.ts";
import type { MethodRegistry } from "./registry.ts";
import { ConnectionSubscriptions } from "./subscriptions.ts";
import { verifyJwtAuthorization } from "./jwt.ts";
import type { RpcLogger, WsConnection } from "./types.ts";

/** Size limits of one listener; defaults are geth's. */
export interface RpcLimits extends EnvelopeLimits {
  /** Maximum HTTP request body, bytes. geth rpc/http.go defaultBodyLimit = 5 MiB. */
  bodyLimit: number;
  /** Maximum WebSocket message from a client, bytes. geth rpc/websocket.go wsDefaultReadLimit = 32 MiB. */
  wsMessageLimit: number;
  /**
   * A WebSocket client that lets more than this many bytes queue up unsent is disconnected
   * with close code 1008 (geth drops slow subscribers too; the figure is ours).
   */
  wsSendBufferLimit: number;
}

export const DEFAULT_RPC_LIMITS: RpcLimits = {
  batchItemLimit: 1000,
  batchResponseMaxSize: 25_000_000,
  bodyLimit: 5 * 1024 * 1024,
  wsMessageLimit: 32 * 1024 * 1024,
  wsSendBufferLimit: 16 * 1024 * 1024,
};

/** What one listener serves right now; the pool rebuilds it when roles attach or detach. */
export interface ListenerConfig {
  /** Methods over HTTP POST; undefined = HTTP JSON-RPC off on this port. */
  readonly httpRegistry?: MethodRegistry;
  /** Methods over WebSocket; undefined = no upgrades on this port. */
  readonly wsRegistry?: MethodRegistry;
  /** Engine API: every request needs an HS256 JWT made with this 32-byte secret. */
  readonly jwtSecret?: Uint8Array;
  readonly corsDomains: readonly string[];
  readonly vhosts: readonly string[];
  /** Browser origins allowed to open a WebSocket (geth `--ws.origins`); empty = localhost only. */
  readonly wsOrigins?: readonly string[];
  readonly limits: RpcLimits;
  /** Reported by /healthz. */
  readonly version: string;
  /**
   * GET routes beside JSON-RPC (anvil's beacon API on its HTTP port): a Response for the paths it
   * serves, undefined for the others (a plain GET answers 200, as geth). After the vhost and JWT checks.
   */
  readonly restGet?: RestGet;
  /** Hears each method call answered on this listener and its duration in seconds. */
  readonly onCall?: (method: string, seconds: number) => void;
}

export interface RpcAppDeps {
  readonly logger: RpcLogger;
  /** Unix time in seconds (JWT `iat` checks). */
  readonly now: () => number;
}

/** A listener's GET routes (ListenerConfig.restGet). */
export type RestGet = (
  path: string,
  query: URLSearchParams,
) => Response | undefined | Promise<Response | undefined>;

const JSON_TYPES = new Set(["application/json", "application/json-rpc", "application/jsonrequest"]);
const JSON_HEADERS = { "content-type": "application/json" };
const TEXT_HEADERS = { "content-type": "text/plain; charset=utf-8" };

/** A listener's app, its fetch handler, and its live WebSocket connections. */
export interface RpcApp {
  /** The Hono app (tests may call `app.request()`). */
  readonly app: Hono;
  readonly fetch: (req: Request) => Response | Promise<Response>;
  readonly connectionCount: number;
  /** Close every WebSocket connection (listener shutdown). */
  closeConnections(code?: number, reason?: string): void;
}

let nextConnectionId = 1;

/** A server-side WebSocket with backpressure and its subscriptions. */
class DenoWsConnection implements WsConnection {
  readonly id = nextConnectionId++;
  readonly subscriptions: ConnectionSubscriptions;
  readonly #socket: WebSocket;
  readonly #limit: number;
  readonly #logger: RpcLogger;
  readonly #abort = new AbortController();
  #closed = false;

  constructor(socket: WebSocket, limit: number, logger: RpcLogger) {
    this.#socket = socket;
    this.#limit = limit;
    this.#logger = logger;
    this.subscriptions = new ConnectionSubscriptions(this, logger);
  }

  get closed(): boolean {
    return this.#closed;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  send(text: string): boolean {
    if (this.#closed) return false;
    if (this.#socket.readyState !== WebSocket.OPEN) return false;
    this.#socket.send(text);
    if (this.#socket.bufferedAmount > this.#limit) {
      this.#logger.warn("Disconnecting slow WebSocket client", {
        connection: this.id,
        bufferedBytes: this.#socket.bufferedAmount,
        limitBytes: this.#limit,
      });
      this.close(1008, "send buffer limit exceeded");
      return false;
    }
    return true;
  }

  close(code = 1000, reason = ""): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#abort.abort();
    try {
      this.#socket.close(code, reason);
    } catch {
      // already closing
    }
    this.#release();
  }

  /** The peer closed (or the socket failed). */
  onClosed(): void {
    if (!this.#closed) {
      this.#closed = true;
      this.#abort.abort();
    }
    this.#release();
  }

  #released = false;
  #release(): void {
    if (this.#released) return;
    this.#released = true;
    this.subscriptions.closeAll().catch((err) => {
      this.#logger.warn("WebSocket subscription cleanup failed", { connection: this.id, error: String(err) });
    });
  }
}

const parsedLists = new WeakMap<readonly string[], { any: boolean; set: Set<string> }>();

/** A lower-cased set of a host or origin list, cached per list. */
function parseList(values: readonly string[]): { any: boolean; set: Set<string> } {
  let parsed = parsedLists.get(values);
  if (!parsed) {
    const set = new Set(values.map((v) => v.trim().toLowerCase()).filter((v) => v !== ""));
    parsed = { any: set.has("*"), set };
    parsedLists.set(values, parsed);
  }
  return parsed;
}

/** IPv4, or anything with a colon (IPv6 in brackets has been stripped before). */
function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");
}

/** The host name of a Host header, without port and brackets. */
function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end > 0 ? h.slice(1, end) : h;
  }
  const colon = h.lastIndexOf(":");
  return colon >= 0 && h.indexOf(":") === colon ? h.slice(0, colon) : h;
}

/** geth's virtualHostHandler rule. */
export function isHostAllowed(header: string | undefined, vhosts: readonly string[]): boolean {
  if (!header) return true;
  const host = hostName(header);
  if (isIpLiteral(host)) return true;
  const list = parseList(vhosts);
  return list.any || list.set.has(host);
}

function isOriginAllowed(origin: string, domains: readonly string[]): boolean {
  const list = parseList(domains);
  return list.any || list.set.has(origin.toLowerCase());
}

/**
 * geth's WebSocket origin rule (node/rpcstack.go wsHandshakeValidator): no Origin header
 * passes (non-browser clients); "*" passes all; an entry matches on host, and on scheme and
 * port when the entry gives them; with no entries only http://localhost passes.
 */
export function isWsOriginAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true;
  const entries = allowed.map((a) => a.trim().toLowerCase()).filter((a) => a !== "");
  if (entries.includes("*")) return true;
  if (entries.length === 0) entries.push("http://localhost");
  let url: URL;
  try {
    url = new URL(origin.toLowerCase());
  } catch {
    return false;
  }
  for (const entry of entries) {
    const hasScheme = entry.includes("://");
    let rule: URL;
    try {
      rule = new URL(hasScheme ? entry : `${url.protocol}//${entry}`);
    } catch {
      continue;
    }
    if (hasScheme && rule.protocol !== url.protocol) continue;
    if (rule.hostname !== url.hostname) continue;
    if (rule.port !== "" && rule.port !== url.port) continue;
    return true;
  }
  return false;
}

function corsHeaders(origin: string | undefined, config: ListenerConfig): Record<string, string> | undefined {
  if (!origin || config.corsDomains.length === 0 || !isOriginAllowed(origin, config.corsDomains)) {
    return undefined;
  }
  return { "access-control-allow-origin": origin, vary: "Origin" };
}

function textResponse(body: string, status: number, extra?: Record<string, string>): Response {
  return new Response(body, { status, headers: extra ? { ...TEXT_HEADERS, ...extra } : TEXT_HEADERS });
}

/** Read a body of at most `limit` bytes; undefined when it is larger. */
async function readBody(req: Request, limit: number): Promise<string | undefined> {
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return new TextDecoder().decode(chunks[0]);
  const all = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    all.set(c, off);
    off += c.length;
  }
  return new TextDecoder().decode(all);
}

/**
 * Build the app for one listener. `getConfig` is read on every request, so the pool can
 * change what a port serves while it runs.
 */
export function createRpcApp(getConfig: () => ListenerConfig, deps: RpcAppDeps): RpcApp {
  const app = new Hono();
  const connections = new Set<DenoWsConnection>();

  const wsUpgrade = upgradeWebSocket(() => {
    let conn: DenoWsConnection | undefined;
    return {
      onOpen(_evt, ws) {
        const config = getConfig();
        conn = new DenoWsConnection(ws.raw as WebSocket, config.limits.wsSendBufferLimit, deps.logger);
        connections.add(conn);
      },
      onMessage(evt, _ws) {
        const c = conn;
        if (!c || c.closed) return;
        handleWsMessage(c, evt.data).catch((err) => {
          deps.logger.error("WebSocket message handling failed", { connection: c.id, error: String(err) });
        });
      },
      onClose() {
        if (conn) {
          connections.delete(conn);
          conn.onClosed();
        }
      },
      onError() {
        if (conn) {
          connections.delete(conn);
          conn.onClosed();
        }
      },
    };
  });

  async function handleWsMessage(conn: DenoWsConnection, data: unknown): Promise<void> {
    const config = getConfig();
    const registry = config.wsRegistry;
    if (!registry) {
      conn.close(1011, "websocket not served");
      return;
    }
    let text: string;
    if (typeof data === "string") text = data;
    else if (data instanceof ArrayBuffer) text = new TextDecoder().decode(data);
    else if (data instanceof Blob) text = await data.text();
    else return;
    if (text.length > config.limits.wsMessageLimit) {
      conn.close(1009, "message too big");
      return;
    }
    const response = await handleRpcText(text, {
      registry,
      limits: config.limits,
      logger: deps.logger,
      onCall: config.onCall,
      signal: conn.signal,
      connection: conn,
      subscriptions: conn.subscriptions,
    });
    if (response !== undefined) conn.send(response);
    conn.subscriptions.activatePending();
  }

  app.all("*", async (c: Context) => {
    const req = c.req.raw;
    const config = getConfig();
    const method = req.method;

    if (method === "GET" && c.req.path === "/healthz") {
      return c.body(JSON.stringify({ version: config.version }), 200, JSON_HEADERS);
    }

    const origin = req.headers.get("origin") ?? undefined;
    if (method === "OPTIONS") {
      const allowed = corsHeaders(origin, config);
      if (config.corsDomains.length === 0) return c.body("method not allowed\n", 405, TEXT_HEADERS);
      const headers: Record<string, string> = allowed
        ? {
          ...allowed,
          "access-control-allow-methods": "POST, GET",
          "access-control-allow-headers": req.headers.get("access-control-request-headers") ?? "*",
          "access-control-max-age": "600",
        }
        : { vary: "Origin" };
      return c.body(null, 204, headers);
    }

    const isUpgrade = method === "GET" && (req.headers.get("upgrade") ?? "").toLowerCase() === "websocket";
    if (!isUpgrade) return await serveHttp(req, config);

    if (config.jwtSecret) {
      const check = await verifyJwtAuthorization(
        req.headers.get("authorization"),
        config.jwtSecret,
        deps.now(),
      );
      if (!check.ok) return c.body(`${check.reason}\n`, 401, TEXT_HEADERS);
    }
    if (!config.wsRegistry) return c.body("websocket not served on this port\n", 400, TEXT_HEADERS);
    if (!isWsOriginAllowed(req.headers.get("origin") ?? undefined, config.wsOrigins ?? [])) {
      return c.body("origin not allowed\n", 403, TEXT_HEADERS);
    }
    const res = await wsUpgrade(c, () => Promise.resolve());
    return res ?? c.body("bad websocket upgrade\n", 400, TEXT_HEADERS);
  });

  /** Everything but /healthz, OPTIONS and WebSocket upgrades: vhosts, JWT, then POST. */
  async function serveHttp(req: Request, config: ListenerConfig): Promise<Response> {
    if (!isHostAllowed(req.headers.get("host") ?? undefined, config.vhosts)) {
      return textResponse("invalid host specified\n", 403);
    }
    if (config.jwtSecret) {
      const check = await verifyJwtAuthorization(
        req.headers.get("authorization"),
        config.jwtSecret,
        deps.now(),
      );
      if (!check.ok) return textResponse(`${check.reason}\n`, 401);
    }
    const method = req.method;
    if (method === "GET") {
      if (config.restGet !== undefined) {
        const url = new URL(req.url);
        const answer = await config.restGet(url.pathname, url.searchParams);
        if (answer !== undefined) return answer;
      }
      return new Response(null, { status: 200 });
    }
    if (method !== "POST") return textResponse("method not allowed\n", 405);
    if (!config.httpRegistry) return textResponse("JSON-RPC over HTTP not served on this port\n", 404);

    const cors = corsHeaders(req.headers.get("origin") ?? undefined, config);
    const contentType = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (!JSON_TYPES.has(contentType)) {
      return textResponse("invalid content type, only application/json is supported\n", 415, cors);
    }
    const limit = config.limits.bodyLimit;
    const declared = Number(req.headers.get("content-length") ?? "NaN");
    if (declared > limit) return textResponse(`content length too large (${declared}>${limit})\n`, 413, cors);
    const body = Number.isFinite(declared) ? await req.text() : await readBody(req, limit);
    if (body === undefined || body.length > limit) {
      return textResponse(`content length too large (>${limit})\n`, 413, cors);
    }
    const response = await handleRpcBody(body, {
      registry: config.httpRegistry,
      limits: config.limits,
      logger: deps.logger,
      onCall: config.onCall,
      // No request.signal here: Deno.serve aborts it after every successful response too
      // (legacy behaviour, with a warning), so it cannot mean "client went away".
    });
    return new Response(response ?? null, {
      status: 200,
      headers: cors ? { ...JSON_HEADERS, ...cors } : JSON_HEADERS,
    });
  }

  return {
    app,
    // POST (the hot path) skips the router; everything else goes through Hono.
    fetch: (req: Request) => (req.method === "POST" ? serveHttp(req, getConfig()) : app.fetch(req)),
    get connectionCount() {
      return connections.size;
    },
    closeConnections(code = 1001, reason = "server shutting down") {
      for (const conn of [...connections]) conn.close(code, reason);
      connections.clear();
    },
  };
}
