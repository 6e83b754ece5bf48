/**
 * A JSON-RPC 2.0 client over HTTP (the rollup node's L1 and engine connections, the batcher): one
 * request or a batch per POST, a timeout per call, optional headers (e.g. an engine JWT). Errors are
 * BaseError: RPC_TRANSPORT (no answer, HTTP status, bad JSON), RPC_ERROR (the server's error object,
 * with its code and data in meta). Its request limits are a RequestLimiter, which several clients
 * may share (op-node's one L1 client: --l1.max-concurrency and --l1.rpc-rate-limit are global).
 * The WebSocket client (lib/rpc/ws_client.ts) is a subclass with the same calls and limits.
 */
import { Semaphore } from "./semaphore.ts";
import { BaseError } from "./errors.ts";

export interface JsonRpcClientOptions {
  /** Milliseconds before a call is abandoned. */
  timeoutMs: number;
  /** Extra headers, or a function giving them per request (e.g. a fresh JWT). */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Requests in flight at most (op-node --l1.max-concurrency); unlimited when omitted. */
  maxConcurrency?: number;
  /**
   * Requests per second at most (op-node --l1.rpc-rate-limit; a batch counts as its number of calls),
   * with bursts of as many; 0 or omitted: no limit.
   */
  rateLimit?: number;
  /** The HTTP client to send with (e.g. one with TLS client certificates, Deno.createHttpClient). */
  client?: Deno.HttpClient;
  /**
   * The limits to take from, shared with other clients (one node's L1 clients): when given,
   * `maxConcurrency` and `rateLimit` are the limiter's and are not applied a second time.
   */
  limiter?: RequestLimiter;
}

export const DEFAULT_JSON_RPC_CLIENT_OPTIONS: JsonRpcClientOptions = { timeoutMs: 10_000 };

/** One JSON-RPC 2.0 answer as it arrives. */
export interface JsonRpcAnswer {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}
type Response = JsonRpcAnswer;

/** A token bucket: `rate` tokens a second, holding at most `burst`; takers wait for their tokens in turn. */
class RateLimiter {
  readonly #rate: number;
  readonly #burst: number;
  #tokens: number;
  #last = performance.now();
  #queue: Promise<void> = Promise.resolve();

  constructor(rate: number) {
    this.#rate = rate;
    this.#burst = Math.max(1, rate);
    this.#tokens = this.#burst;
  }

  take(n: number): Promise<void> {
    const turn = this.#queue.then(async () => {
      const want = Math.min(n, this.#burst);
      for (;;) {
        const now = performance.now();
        this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#rate);
        this.#last = now;
        if (this.#tokens >= want) {
          this.#tokens -= n; // a batch larger than the burst leaves a debt the next takers wait out
          return;
        }
        await new Promise((r) => setTimeout(r, Math.ceil(((want - this.#tokens) / this.#rate) * 1000)));
      }
    });
    this.#queue = turn;
    return turn;
  }
}

/**
 * Requests in flight at most and requests a second at most (a batch counts as its number of calls),
 * for one client or shared by several: every request of every client given it takes from the same
 * slots and tokens.
 */
export class RequestLimiter {
  readonly #slots: Semaphore | undefined;
  readonly #rate: RateLimiter | undefined;

  /** 0 or omitted: that limit is off. */
  constructor(limits: { maxConcurrency?: number; rateLimit?: number }) {
    const { maxConcurrency, rateLimit } = limits;
    this.#slots = maxConcurrency !== undefined && maxConcurrency > 0
      ? new Semaphore(maxConcurrency)
      : undefined;
    this.#rate = rateLimit !== undefined && rateLimit > 0 ? new RateLimiter(rateLimit) : undefined;
  }

  /** Runs `fn` once `calls` tokens and a slot are free; the slot is held until it settles. */
  async run<T>(calls: number, fn: () => Promise<T>): Promise<T> {
    await this.#rate?.take(calls);
    await this.#slots?.acquire();
    try {
      return await fn();
    } finally {
      this.#slots?.release();
    }
  }
}

/** The result of one answer: its result, or the server's error object as RPC_ERROR. */
export function jsonRpcResult(r: JsonRpcAnswer, method: string): unknown {
  if (r.error !== undefined) {
    throw new BaseError("RPC_ERROR", `${method} failed: ${r.error.message}`, {
      meta: { code: r.error.code, data: r.error.data },
    });
  }
  if (!("result" in r)) throw new BaseError("RPC_TRANSPORT", `${method}: the answer has no result`);
  return r.result;
}

/**
 * The results of a batch whose calls got the ids `first`, `first + 1`, ... in order, from the answer
 * (an array in any order; a server that refuses batches answers with one error object). One failing
 * call throws its error.
 */
export function jsonRpcBatchResults<T>(
  calls: { method: string }[],
  first: number,
  answer: unknown,
): T[] {
  if (!Array.isArray(answer)) {
    const r = answer as Response;
    throw new BaseError("RPC_ERROR", `batch failed: ${r?.error?.message ?? "not an array"}`, {
      meta: { code: r?.error?.code },
    });
  }
  const byId = new Map<number, Response>();
  for (const r of answer as Response[]) byId.set(Number(r?.id), r);
  return calls.map((c, i) => {
    const r = byId.get(first + i);
    if (r === undefined) throw new BaseError("RPC_TRANSPORT", `${c.method}: no answer in the batch`);
    return jsonRpcResult(r, c.method) as T;
  });
}

export class JsonRpcClient {
  readonly url: string;
  readonly options: JsonRpcClientOptions;
  #next = 1;
  /** The limits this client's requests take from (shared when `options.limiter` was given). */
  readonly limiter: RequestLimiter;

  constructor(url: string, options: Partial<JsonRpcClientOptions> = {}) {
    this.url = url;
    this.options = { ...DEFAULT_JSON_RPC_CLIENT_OPTIONS, ...options };
    this.limiter = this.options.limiter ?? new RequestLimiter(this.options);
  }

  /** Releases the client's connection, if it holds one (HTTP: nothing to release). */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /** One POST within the client's limits: `calls` counts against the rate limit. */
  #post(body: unknown, what: string, calls = 1): Promise<unknown> {
    return this.limiter.run(calls, () => this.#send(body, what));
  }

  async #send(body: unknown, what: string): Promise<unknown> {
    const h = this.options.headers;
    const extra = typeof h === "function" ? await h() : h ?? {};
    let res: globalThis.Response;
    try {
      res = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...extra },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
        client: this.options.client,
      });
    } catch (e) {
      throw new BaseError("RPC_TRANSPORT", `Cannot call ${what} at ${this.url}: ${(e as Error).message}`, {
        cause: e,
      });
    }
    const text = await res.text();
    if (!res.ok) {
      throw new BaseError(
        "RPC_TRANSPORT",
        `Cannot call ${what} at ${this.url}: HTTP ${res.status} ${text.slice(0, 200)}`,
        {
          meta: { status: res.status },
        },
      );
    }
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new BaseError("RPC_TRANSPORT", `Cannot call ${what} at ${this.url}: the answer is not JSON`, {
        cause: e,
      });
    }
  }

  /** Calls one method; resolves with its result. */
  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.#next++;
    const r = await this.#post({ jsonrpc: "2.0", id, method, params }, method) as Response;
    return jsonRpcResult(r, method) as T;
  }

  /**
   * Calls several methods in one batch; resolves with the results in order. One failing call rejects
   * the whole batch with its error.
   */
  async batch<T = unknown>(calls: { method: string; params?: unknown[] }[]): Promise<T[]> {
    if (calls.length === 0) return [];
    const first = this.#next;
    this.#next += calls.length;
    const body = calls.map((c, i) => ({
      jsonrpc: "2.0",
      id: first + i,
      method: c.method,
      params: c.params ?? [],
    }));
    const answer = await this.#post(body, `a batch of ${calls.length}`, calls.length);
    return jsonRpcBatchResults<T>(calls, first, answer);
  }
}
