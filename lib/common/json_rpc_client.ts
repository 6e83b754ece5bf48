/**
 * A JSON-RPC 2.0 client over HTTP (the rollup node's L1 and engine connections, the batcher): one
 * request or a batch per POST, a timeout per call, optional headers (e.g. an engine JWT). Errors are
 * BaseError: RPC_TRANSPORT (no answer, HTTP status, bad JSON), RPC_ERROR (the server's error object,
 * with its code and data in meta).
 */
import { BaseError } from "./errors.ts";

export interface JsonRpcClientOptions {
  /** Milliseconds before a call is abandoned. */
  timeoutMs: number;
  /** Extra headers, or a function giving them per request (e.g. a fresh JWT). */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
}

export const DEFAULT_JSON_RPC_CLIENT_OPTIONS: JsonRpcClientOptions = { timeoutMs: 10_000 };

interface Response {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export class JsonRpcClient {
  readonly url: string;
  readonly options: JsonRpcClientOptions;
  #next = 1;

  constructor(url: string, options: Partial<JsonRpcClientOptions> = {}) {
    this.url = url;
    this.options = { ...DEFAULT_JSON_RPC_CLIENT_OPTIONS, ...options };
  }

  async #post(body: unknown, what: string): Promise<unknown> {
    const h = this.options.headers;
    const extra = typeof h === "function" ? await h() : h ?? {};
    let res: globalThis.Response;
    try {
      res = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...extra },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
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
    const answer = await this.#post(body, `a batch of ${calls.length}`);
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
