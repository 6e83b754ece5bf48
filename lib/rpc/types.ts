/** Shared types of the RPC core: the logger it needs, the handler context, the WS connection. */

/** The logging calls lib/rpc makes: a constant message and a context object (DESIGN.md rule 6). */
export interface RpcLogger {
  debug(message: string, context?: Record<string, unknown>): void;
  info(message: string, context?: Record<string, unknown>): void;
  warn(message: string, context?: Record<string, unknown>): void;
  error(message: string, context?: Record<string, unknown>): void;
}

/** A logger that drops everything; the default when none is injected. */
export const NOOP_LOGGER: RpcLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** A WebSocket connection as handlers and subscriptions see it. */
export interface WsConnection {
  /** Process-unique connection number, for logs. */
  readonly id: number;
  /** True once the socket is closing or closed. */
  readonly closed: boolean;
  /**
   * Queue a text frame. Returns false (and closes the connection with 1008) when the
   * client has fallen behind beyond the send limit, or when the connection is closed.
   */
  send(text: string): boolean;
  /** Close the socket; idempotent. */
  close(code?: number, reason?: string): void;
}

/** What every handler receives besides its parsed params. */
export interface MethodContext {
  /** Set for WebSocket calls: aborted when the connection closes. */
  readonly signal?: AbortSignal;
  /** Set for calls that arrived over WebSocket. */
  readonly connection?: WsConnection;
  /** The params as they arrived (JSON), for a handler that passes the call on as is (fork mode's history). */
  readonly raw?: unknown;
}
