/**
 * The rollup node's L1 JSON-RPC client (HTTP or WebSocket by the --l1 scheme), within the node's L1
 * limits (one RequestLimiter per node, shared by every L1 client it builds: op-node's limits are
 * those of its one L1 client), and op-node's RPC client metrics
 * around it and around an external engine's client (op-service/client InstrumentedRPCClient:
 * `op_node_default_rpc_client_requests_total{method}`, `_request_duration_seconds{method}`,
 * `_responses_total{method,error}`).
 */
import { BaseError } from "../common/errors.ts";
import { getLogger } from "../common/logger.ts";
import { JsonRpcClient, RequestLimiter } from "../common/json_rpc_client.ts";
import type { NodeOptions } from "../config/mod.ts";
import { rpcClientFor } from "../rpc/mod.ts";

/** Where the client's calls are counted (common/metrics.ts Metrics). */
export interface RpcClientMetrics {
  recordRpcClientRequest(method: string, seconds: number, error?: string): void;
  recordRpcClientBatch(methods: string[], seconds: number, error?: string): void;
}

/**
 * op-node's `error` label of a failed call (metrics.RecordRPCClientResponse): `rpc_<code>` for the
 * server's error object, `http_<status>` for an HTTP error status, `<unknown>` otherwise (no answer,
 * a timeout, an answer that is not JSON).
 */
export function rpcErrorLabel(e: unknown): string {
  if (e instanceof BaseError) {
    if (e.code === "RPC_ERROR" && typeof e.meta.code === "number") return `rpc_${e.meta.code}`;
    if (e.code === "RPC_TRANSPORT" && typeof e.meta.status === "number") return `http_${e.meta.status}`;
  }
  return "<unknown>";
}

/**
 * A client whose calls go through `inner` and are counted in `metrics`. A batch is counted as op-node
 * counts one; keel's batch fails whole at its first failed call, so a failure is counted under
 * `<batch>` rather than per call.
 */
export class InstrumentedRpcClient extends JsonRpcClient {
  readonly #inner: JsonRpcClient;
  readonly #metrics: RpcClientMetrics;

  constructor(inner: JsonRpcClient, metrics: RpcClientMetrics) {
    super(inner.url, inner.options);
    this.#inner = inner;
    this.#metrics = metrics;
  }

  /** The client the calls go through. */
  get inner(): JsonRpcClient {
    return this.#inner;
  }

  override close(): Promise<void> {
    return this.#inner.close();
  }

  override async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const start = performance.now();
    try {
      const result = await this.#inner.call<T>(method, params);
      this.#metrics.recordRpcClientRequest(method, (performance.now() - start) / 1000);
      return result;
    } catch (e) {
      this.#metrics.recordRpcClientRequest(method, (performance.now() - start) / 1000, rpcErrorLabel(e));
      throw e;
    }
  }

  override async batch<T = unknown>(calls: { method: string; params?: unknown[] }[]): Promise<T[]> {
    if (calls.length === 0) return [];
    const methods = calls.map((c) => c.method);
    const start = performance.now();
    try {
      const results = await this.#inner.batch<T>(calls);
      this.#metrics.recordRpcClientBatch(methods, (performance.now() - start) / 1000);
      return results;
    } catch (e) {
      this.#metrics.recordRpcClientBatch(methods, (performance.now() - start) / 1000, rpcErrorLabel(e));
      throw e;
    }
  }
}

/**
 * The node's L1 request limits: --l1.max-concurrency requests in flight and --l1.rpc-rate-limit
 * requests a second, for all its L1 clients together (spec: a "self-imposed global L1 request limit").
 */
export function l1Limiter(options: NodeOptions): RequestLimiter {
  return new RequestLimiter({ maxConcurrency: options.l1MaxConcurrency, rateLimit: options.l1RpcRateLimit });
}

/**
 * A client of --l1 (HTTP, or one WebSocket connection for ws:// and wss://) taking from `limiter`, the
 * node's one L1 limiter (a limiter of its own when omitted); its calls counted in `metrics` when
 * given (the rollup node's own L1 reads, as op-node's). A WebSocket client holds a connection until
 * closed (`close()`).
 */
export function l1Rpc(
  options: NodeOptions,
  metrics?: RpcClientMetrics,
  limiter: RequestLimiter = l1Limiter(options),
): JsonRpcClient {
  const client = rpcClientFor(options.l1, { timeoutMs: 30_000, limiter }, {
    log: getLogger(["node", "l1"]),
  });
  return metrics === undefined ? client : new InstrumentedRpcClient(client, metrics);
}
