/**
 * A JSON-RPC 2.0 client over HTTP (the rollup node's L1 and engine connections, the batcher): one
 * request or a batch per POST, a timeout per call, optional headers (e.g. an engine JWT). Errors are
 * BaseError: RPC_TRANSPORT (no answer, HTTP status, bad JSON), RPC_ERROR (the server's error object,
 * with its code and data in meta).
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
}

export const DEFAULT_JSON_RPC_CLIENT_OPTIONS: JsonRpcClientOptions = { timeoutMs: 10_000 };

interface Response {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

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

export class JsonRpcClient {
  readonly url: string;
  readonly options: JsonRpcClientOptions;
  #next = 1;
  readonly #slots: Semaphore | undefined;
  readonly #rate: RateLimiter | undefined;

  constructor(url: string, options: Partial<JsonRpcClientOptions> = {}) {
    this.url = url;
    this.options = { ...DEFAULT_JSON_RPC_CLIENT_OPTIONS, ...options };
    const { maxConcurrency, rateLimit } = this.options;
    this.#slots = maxConcurrency !== undefined && maxConcurrency > 0
      ? new Semaphore(maxConcurrency)
      : undefined;
    this.#rate = rateLimit !== undefined && rateLimit > 0 ? new RateLimiter(rateLimit) : undefined;
  }

  /** One POST within the client's limits: `calls` counts against the rate limit. */
  async #post(body: unknown, what: string, calls = 1): Promise<unknown> {
    await this.#rate?.take(calls);
    await this.#slots?.acquire();
    try {
      return await this.#send(body, what);
    } finally {
      this.#slots?.release();
    }
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

  #result(r: Response, method: string): unknown {
    if (r.error !== undefined) {
      throw new BaseError("RPC_ERROR", `${method} failed: ${r.error.message}`, {
        meta: { code: r.error.code, data: r.error.data },
      });
    }
    if (!("result" in r)) throw new BaseError("RPC_TRANSPORT", `${method}: the answer has no result`);
    return r.result;
  }

  /** Calls one method; resolves with its result. */
  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.#next++;
    const r = await this.#post({ jsonrpc: "2.0", id, method, params }, method) as Response;
    return this.#result(r, method) as T;
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
    if (!Array.isArray(answer)) {
      // A server that refuses batches answers with one error object.
      const r = answer as Response;
      throw new BaseError("RPC_ERROR", `batch failed: ${r.error?.message ?? "not an array"}`, {
        meta: { code: r.error?.code },
      });
    }
    const byId = new Map<number, Response>();
    for (const r of answer as Response[]) byId.set(Number(r.id), r);
    return calls.map((c, i) => {
      const r = byId.get(first + i);
      if (r === undefined) throw new BaseError("RPC_TRANSPORT", `${c.method}: no answer in the batch`);
      return this.#result(r, c.method) as T;
    });
  }
}
