/**
 * The JSON-RPC client for an endpoint URL, by its scheme: ws:// and wss:// get the WebSocket client
 * (one connection, subscriptions), http:// and https:// the HTTP client. Both take the same options
 * (timeouts, headers, limits) and are JsonRpcClients.
 */
import { JsonRpcClient, type JsonRpcClientOptions } from "../common/json_rpc_client.ts";
import { isWsUrl, WsJsonRpcClient, type WsJsonRpcClientDeps } from "./ws_client.ts";

export function rpcClientFor(
  url: string,
  options: Partial<JsonRpcClientOptions> = {},
  deps: WsJsonRpcClientDeps = {},
): JsonRpcClient {
  return isWsUrl(url) ? new WsJsonRpcClient(url, options, deps) : new JsonRpcClient(url, options);
}
