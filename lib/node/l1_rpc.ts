/** The rollup node's L1 JSON-RPC client, within the node's L1 limits. */
import { JsonRpcClient } from "../common/json_rpc_client.ts";
import type { NodeOptions } from "../config/mod.ts";

/** A client of --l1 with --l1.max-concurrency requests in flight and --l1.rpc-rate-limit requests a second. */
export function l1Rpc(options: NodeOptions): JsonRpcClient {
  return new JsonRpcClient(options.l1, {
    timeoutMs: 30_000,
    maxConcurrency: options.l1MaxConcurrency,
    rateLimit: options.l1RpcRateLimit,
  });
}
