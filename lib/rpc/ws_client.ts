/**
 * A JSON-RPC 2.0 client over one WebSocket (`keel node --l1 ws://...`, `--l2 ws://...`): the calls of
 * the HTTP client (common/json_rpc_client.ts, whose subclass it is, so it goes wherever that one
 * goes) with its limits and timeouts, plus `eth_subscribe`-style subscriptions.
 *
 * - One connection, opened on the first request; requests carry ids and answers are matched by id,
 *   so many are in flight at once. A batch is one JSON array; its answer array is matched by its ids.
 * - `headers` (a function: evaluated at every dial) go on the upgrade request; an engine JWT is sent
 *   there, as op-node does (geth checks the token of a WebSocket at the upgrade).
 * - When the socket drops, the calls waiting on it fail at once with a retryable RPC_TRANSPORT error
 *   (severity temporary, meta.retryable); the next request dials again, after a backoff that doubles
 *   per failed dial (reconnectMinMs .. reconnectMaxMs, like op-node's resubscription backoff) and
 *   resets once a dial succeeds. With subscriptions open, the client redials by itself and
 *   subscribes again (op-node re-subscribes its L1 newHeads the same way).
 * - `timeoutMs` bounds each request from the moment it has its limiter slot (dial included), as the
 *   HTTP client's does; `maxConcurrency`/`rateLimit`/`limiter` are the HTTP client's.
 */
import { BaseError } from "../common/errors.ts";
import {
  type JsonRpcAnswer,
  jsonRpcBatchResults,
  JsonRpcClient,
  type JsonRpcClientOptions,
  jsonRpcResult,
} from "../common/json_rpc_client.ts";
import { NOOP_LOGGER, type RpcLogger } from "./types.ts";

export interface WsJsonRpcClientOptions extends JsonRpcClientOptions {
  /** Milliseconds before the first redial after a drop or a failed dial (doubling per failure). */
  reconnectMinMs: number;
  /** The longest wait between dials (op-node re-subscribes its L1 head at most 10 s apart). */
  reconnectMaxMs: number;
}

export const DEFAULT_WS_JSON_RPC_CLIENT_OPTIONS: WsJsonRpcClientOptions = {
  // The HTTP client's default.
  timeoutMs: 10_000,
  // Short enough that a restarted server is found again within a poll interval.
  reconnectMinMs: 250,
  // op-node: gethevent.ResubscribeErr(10 * time.Second, ...) for its L1 head subscription.
  reconnectMaxMs: 10_000,
};

export interface WsJsonRpcClientDeps {
  log?: RpcLogger;
}

/** A subscription's handle: `unsubscribe` ends it (and tells the server when connected). */
export interface WsSubscription {
  unsubscribe(): Promise<void>;
}

interface Pending {
  ids: number[];
  what: string;
  batch: boolean;
  resolve(answer: unknown): void;
  reject(error: unknown): void;
}

interface Sub {
  namespace: string;
  params: unknown[];
  onEvent: (result: unknown) => void;
  /** The server's id of the subscription on the current connection. */
  sid?: string;
  /** Its `_subscribe` call is on the way (a redial must not send a second one). */
  subscribing?: boolean;
}

/** A URL the WebSocket client serves: ws:// or wss://. */
export function isWsUrl(url: string): boolean {
  return /^wss?:\/\//i.test(url);
}

export class WsJsonRpcClient extends JsonRpcClient {
  readonly wsOptions: WsJsonRpcClientOptions;
  readonly #log: RpcLogger;
  /** The endpoint as logged: its host only (a path may hold an API key). */
  readonly #where: string;
  #next = 1;
  #socket: WebSocket | undefined;
  #opening: Promise<WebSocket> | undefined;
  #failures = 0;
  /** performance.now() before which no dial is made (the backoff). */
  #retryAt = 0;
  #closed = false;
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  #wakeDial: (() => void) | undefined;
  readonly #pending = new Map<number, Pending>();
  readonly #subs = new Set<Sub>();
  #socketClosed: Promise<void> = Promise.resolve();

  constructor(url: string, options: Partial<WsJsonRpcClientOptions> = {}, deps: WsJsonRpcClientDeps = {}) {
    const merged = { ...DEFAULT_WS_JSON_RPC_CLIENT_OPTIONS, ...options };
    super(url, merged);
    this.wsOptions = merged;
    this.#log = deps.log ?? NOOP_LOGGER;
    let host = "?";
    try {
      host = new URL(url).host;
    } catch {
      // an invalid URL fails at the dial
    }
    this.#where = host;
  }

  /** True while a connection is open (tests, logs). */
  get connected(): boolean {
    return this.#socket !== undefined;
  }

  override async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.#next++;
    const r = await this.#request({ jsonrpc: "2.0", id, method, params }, [id], method, false);
    return jsonRpcResult(r as JsonRpcAnswer, method) as T;
  }

  override async batch<T = unknown>(calls: { method: string; params?: unknown[] }[]): Promise<T[]> {
    if (calls.length === 0) return [];
    const first = this.#next;
    this.#next += calls.length;
    const ids = calls.map((_, i) => first + i);
    const body = calls.map((c, i) => ({
      jsonrpc: "2.0",
      id: ids[i],
      method: c.method,
      params: c.params ?? [],
    }));
    const answer = await this.#request(body, ids, `a batch of ${calls.length}`, true);
    return jsonRpcBatchResults<T>(calls, first, answer);
  }

  /**
   * `<namespace>_subscribe(...params)`; `onEvent` gets each notification's result. It outlives
   * reconnects: after a redial it is subscribed again (notifications in between are missed).
   */
  async subscribe(
    namespace: string,
    params: unknown[],
    onEvent: (result: unknown) => void,
  ): Promise<WsSubscription> {
    const sub: Sub = { namespace, params, onEvent };
    this.#subs.add(sub);
    try {
      await this.#subscribeOne(sub);
    } catch (e) {
      this.#subs.delete(sub);
      throw e;
    }
    return {
      unsubscribe: async () => {
        if (!this.#subs.delete(sub)) return;
        const sid = sub.sid;
        sub.sid = undefined;
        if (sid !== undefined && this.#socket !== undefined) {
          await this.call(`${namespace}_unsubscribe`, [sid]).catch(() => {});
        }
      },
    };
  }

  /** Closes the connection; waiting and later calls fail. */
  override async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    this.#wakeDial?.();
    this.#subs.clear();
    this.#failAll("the client was closed", { closed: true });
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket !== undefined) {
      socket.close(1000, "client closed");
      await this.#socketClosed;
    }
    await this.#opening?.catch(() => {});
  }

  async #subscribeOne(sub: Sub): Promise<void> {
    let sid: string;
    sub.subscribing = true;
    try {
      sid = await this.call<string>(`${sub.namespace}_subscribe`, sub.params);
    } finally {
      sub.subscribing = false;
    }
    // Unsubscribed meanwhile: tell the server.
    if (!this.#subs.has(sub)) {
      await this.call(`${sub.namespace}_unsubscribe`, [sid]).catch(() => {});
      return;
    }
    sub.sid = sid;
  }

  #transport(what: string, reason: string, meta: Record<string, unknown> = {}, cause?: unknown): BaseError {
    return new BaseError("RPC_TRANSPORT", `Cannot call ${what} at ${this.url}: ${reason}`, {
      meta,
      severity: "temporary",
      cause,
    });
  }

  /** Sends `body` (ids `ids`) within the limits; resolves with the raw answer (object or array). */
  #request(body: unknown, ids: number[], what: string, batch: boolean): Promise<unknown> {
    return this.limiter.run(ids.length, () => this.#exchange(body, ids, what, batch));
  }

  #exchange(body: unknown, ids: number[], what: string, batch: boolean): Promise<unknown> {
    const { timeoutMs } = this.wsOptions;
    return new Promise((resolve, reject) => {
      let settled = false;
      const forget = () => {
        for (const id of ids) if (this.#pending.get(id) === entry) this.#pending.delete(id);
      };
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        forget();
        reject(this.#transport(what, `no answer within ${timeoutMs} ms`, { timeout: true, retryable: true }));
      }, timeoutMs);
      const entry: Pending = {
        ids,
        what,
        batch,
        resolve: (answer) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          forget();
          resolve(answer);
        },
        reject: (error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          forget();
          reject(error);
        },
      };
      this.#connect(what).then((socket) => {
        if (settled) return;
        for (const id of ids) this.#pending.set(id, entry);
        try {
          socket.send(JSON.stringify(body));
        } catch (e) {
          entry.reject(this.#transport(what, (e as Error).message, { retryable: true }, e));
        }
      }, (e) => entry.reject(e));
    });
  }

  #connect(what: string): Promise<WebSocket> {
    if (this.#closed) return Promise.reject(this.#transport(what, "the client was closed", { closed: true }));
    if (this.#socket !== undefined) return Promise.resolve(this.#socket);
    this.#opening ??= this.#dial(what).finally(() => this.#opening = undefined);
    return this.#opening;
  }

  #backoff(): number {
    const { reconnectMinMs, reconnectMaxMs } = this.wsOptions;
    return Math.min(reconnectMaxMs, reconnectMinMs * 2 ** Math.max(0, this.#failures - 1));
  }

  async #dial(what: string): Promise<WebSocket> {
    const wait = this.#retryAt - performance.now();
    if (wait > 0) {
      // The backoff; close() cuts it short.
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          this.#wakeDial = undefined;
          resolve();
        }, wait);
        this.#wakeDial = () => {
          clearTimeout(t);
          this.#wakeDial = undefined;
          resolve();
        };
      });
    }
    if (this.#closed) throw this.#transport(what, "the client was closed", { closed: true });
    const h = this.options.headers;
    let socket: WebSocket;
    try {
      const headers = typeof h === "function" ? await h() : h ?? {};
      socket = new WebSocket(this.url, { headers, client: this.options.client });
    } catch (e) {
      throw this.#failedDial(what, (e as Error).message, e);
    }
    socket.binaryType = "arraybuffer";
    let closedResolve: () => void = () => {};
    const closed = new Promise<void>((r) => closedResolve = r);
    const opened = await new Promise<true | string>((resolve) => {
      const timer = setTimeout(() => {
        resolve(`no connection within ${this.wsOptions.timeoutMs} ms`);
        socket.close();
      }, this.wsOptions.timeoutMs);
      socket.onopen = () => {
        clearTimeout(timer);
        resolve(true);
      };
      socket.onerror = (ev) => {
        clearTimeout(timer);
        resolve((ev as ErrorEvent).message || "the WebSocket connection failed");
      };
      socket.onclose = (ev) => {
        clearTimeout(timer);
        closedResolve();
        resolve(`the WebSocket connection closed (code ${ev.code})`);
      };
    });
    if (opened !== true) {
      // Let the failed socket finish closing (its resources go with it), but not wait on it for long.
      let t: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([closed, new Promise((r) => t = setTimeout(r, 1000))]);
      clearTimeout(t);
      throw this.#failedDial(what, opened);
    }
    if (this.#closed) {
      socket.close(1000, "client closed");
      await closed;
      throw this.#transport(what, "the client was closed", { closed: true });
    }
    this.#failures = 0;
    this.#retryAt = 0;
    this.#socket = socket;
    this.#socketClosed = closed;
    socket.onmessage = (ev) => this.#onMessage(ev.data);
    socket.onerror = () => {}; // a close event follows
    socket.onclose = (ev) => {
      closedResolve();
      this.#dropped(socket, ev.code, ev.reason);
    };
    this.#log.info("WebSocket RPC connected", { endpoint: this.#where });
    if (this.#subs.size > 0) void this.#resubscribe();
    return socket;
  }

  #failedDial(what: string, reason: string, cause?: unknown): BaseError {
    this.#failures++;
    const backoff = this.#backoff();
    this.#retryAt = performance.now() + backoff;
    this.#log.warn("Cannot connect to the WebSocket RPC", {
      endpoint: this.#where,
      error: reason,
      retryMs: backoff,
    });
    this.#scheduleReconnect();
    return this.#transport(what, `cannot connect: ${reason}`, { retryable: true }, cause);
  }

  #dropped(socket: WebSocket, code: number, reason: string): void {
    if (this.#socket !== socket) return;
    this.#socket = undefined;
    for (const sub of this.#subs) sub.sid = undefined;
    if (this.#closed) return;
    this.#failures++;
    this.#retryAt = performance.now() + this.#backoff();
    this.#log.warn("WebSocket RPC connection dropped", { endpoint: this.#where, code, reason });
    this.#failAll(`the WebSocket connection closed (code ${code}); the call may be retried`, {
      retryable: true,
      closeCode: code,
    });
    this.#scheduleReconnect();
  }

  /** Redials in the background while subscriptions wait for a connection. */
  #scheduleReconnect(): void {
    if (this.#closed || this.#subs.size === 0 || this.#reconnectTimer !== undefined) return;
    const delay = Math.max(0, this.#retryAt - performance.now());
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (this.#socket !== undefined || this.#closed) return;
      this.#connect("a resubscription").catch(() => this.#scheduleReconnect());
    }, delay);
  }

  async #resubscribe(): Promise<void> {
    for (const sub of [...this.#subs]) {
      if (sub.sid !== undefined || sub.subscribing) continue;
      try {
        await this.#subscribeOne(sub);
      } catch (e) {
        this.#log.warn("Cannot subscribe again after a reconnect", {
          endpoint: this.#where,
          namespace: sub.namespace,
          error: (e as Error).message,
        });
      }
    }
  }

  #failAll(reason: string, meta: Record<string, unknown>): void {
    const entries = new Set(this.#pending.values());
    this.#pending.clear();
    for (const p of entries) p.reject(this.#transport(p.what, reason, meta));
  }

  #onMessage(data: unknown): void {
    let text: string;
    if (typeof data === "string") text = data;
    else if (data instanceof ArrayBuffer) text = new TextDecoder().decode(data);
    else return;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      this.#log.warn("WebSocket RPC answer is not JSON", { endpoint: this.#where, bytes: text.length });
      return;
    }
    if (Array.isArray(msg)) {
      // A batch's answer: any of its ids names the batch.
      for (const r of msg) {
        const p = typeof r?.id === "number" ? this.#pending.get(r.id) : undefined;
        if (p !== undefined) {
          p.resolve(msg);
          return;
        }
      }
      return;
    }
    if (msg === null || typeof msg !== "object") return;
    const m = msg as JsonRpcAnswer & {
      method?: string;
      params?: { subscription?: unknown; result?: unknown };
    };
    if (typeof m.method === "string" && m.method.endsWith("_subscription")) {
      const sid = m.params?.subscription;
      for (const sub of this.#subs) {
        if (sub.sid !== undefined && sub.sid === sid) {
          try {
            sub.onEvent(m.params?.result);
          } catch (e) {
            this.#log.error("Subscription handler failed", { error: (e as Error).message });
          }
          return;
        }
      }
      return;
    }
    if (typeof m.id === "number") {
      this.#pending.get(m.id)?.resolve(m);
      return;
    }
    if (m.id === null && m.error !== undefined) {
      // An error the server could not tie to a request (a refused batch): the oldest batch waiting.
      for (const p of this.#pending.values()) {
        if (p.batch) {
          p.resolve(m);
          return;
        }
      }
    }
  }
}
