/**
 * The JSON-RPC 2.0 server core: typed method registry, envelope and batches, geth-compatible
 * errors and limits, CORS and vhosts, Engine API JWT, WebSocket subscriptions, shared
 * listeners. It knows no namespace: execution/rpc and rollup/rpc register theirs.
 */
export {
  type AnySchema,
  type BlockSpec,
  type BlockTagName,
  type Infer,
  s,
  type Schema,
  SchemaError,
} from "./schema.ts";
export {
  aliasNamespace,
  type AnyMethodDef,
  type AnySubscriptionDef,
  defineMethod,
  defineSubscription,
  type InferParams,
  type MethodDef,
  MethodRegistry,
  type Namespace,
  namespaceOf,
  parseParams,
  type SubscriptionCleanup,
  type SubscriptionContext,
  type SubscriptionDef,
  switchedNamespace,
} from "./registry.ts";
export { RPC_ERROR_CODES, RpcError, type RpcErrorObject, toRpcErrorObject } from "./rpc_error.ts";
export {
  bodyText,
  DEFAULT_ENVELOPE_LIMITS,
  type DispatchContext,
  type EnvelopeLimits,
  handleRpcBody,
  handleRpcText,
  handleRpcValue,
  RawJson,
  type RpcBody,
} from "./jsonrpc.ts";
export { joinBytes, JsonBytes } from "./json_bytes.ts";
export { ConnectionSubscriptions, newSubscriptionId } from "./subscriptions.ts";
export {
  createJwtToken,
  DEFAULT_JWT_SECRET_FILE,
  JWT_IAT_WINDOW_SECONDS,
  jwtAuthorizationHeader,
  type JwtCheck,
  type JwtSecretFile,
  loadOrCreateJwtSecret,
  parseJwtSecret,
  verifyJwtAuthorization,
} from "./jwt.ts";
export {
  createRpcApp,
  DEFAULT_RPC_LIMITS,
  isHostAllowed,
  isWsOriginAllowed,
  type ListenerConfig,
  type RestGet,
  type RpcApp,
  type RpcAppDeps,
  type RpcLimits,
} from "./http_app.ts";
export {
  type BoundAddress,
  type ListenerMount,
  ListenerPool,
  type ListenerPoolDeps,
  type MountHandle,
} from "./listener_pool.ts";
export {
  DEFAULT_RPC_ENDPOINT,
  DEFAULT_RPC_SERVER_OPTIONS,
  type RpcEndpointOptions,
  RpcServer,
  type RpcServerDeps,
  type RpcServerOptions,
} from "./server.ts";
export { type MethodContext, NOOP_LOGGER, type RpcLogger, type WsConnection } from "./types.ts";
export {
  DEFAULT_WS_JSON_RPC_CLIENT_OPTIONS,
  isWsUrl,
  WsJsonRpcClient,
  type WsJsonRpcClientDeps,
  type WsJsonRpcClientOptions,
  type WsSubscription,
} from "./ws_client.ts";
export { rpcClientFor } from "./rpc_client.ts";
