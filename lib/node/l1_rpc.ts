/**
 * The rollup node's L1 JSON-RPC client, within the node's L1 limits, and op-node's RPC client metrics
 * around it and around an external engine's client (op-service/client InstrumentedRPCClient:
 * `op_node_default_rpc_client_requests_total{method}`, `_request_duration_seconds{method}`,
 * `_responses_total{method,error}`).
 */
import { BaseError } from "../common/errors.ts";
import { JsonRpcClient } from "../common/json_rpc_client.ts";
import type { NodeOptions } from "../config/mod.ts";

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
 * A client of --l1 with --l1.max-concurrency requests in flight and --l1.rpc-rate-limit requests a
 * second; its calls counted in `metrics` when given (the rollup node's own L1 reads, as op-node's).
 */
export function l1Rpc(options: NodeOptions, metrics?: RpcClientMetrics): JsonRpcClient {
  const client = new JsonRpcClient(options.l1, {
    timeoutMs: 30_000,
    maxConcurrency: options.l1MaxConcurrency,
    rateLimit: options.l1RpcRateLimit,
  });
  return metrics === undefined ? client : new InstrumentedRpcClient(client, metrics);
}
