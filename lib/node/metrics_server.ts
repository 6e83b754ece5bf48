/**
 * Serves the node's metrics as Prometheus text on `GET /metrics` (spec section 4.5:
 * `metrics.enabled`, `metrics.addr`, `metrics.port`).
 */
import { BaseError } from "../common/errors.ts";
import { getLogger } from "../common/logger.ts";
import { type Metrics, METRICS_CONTENT_TYPE } from "../common/metrics.ts";

export interface MetricsServerOptions {
  /** Listening address. */
  addr: string;
  /** Listening port; 0 picks a free port (see `port` after `start`). */
  port: number;
}

/** Defaults from spec section 4.5: metrics.addr 0.0.0.0, metrics.port 7300. */
export const DEFAULT_METRICS_SERVER_OPTIONS: MetricsServerOptions = { addr: "0.0.0.0", port: 7300 };

export interface MetricsServerDeps {
  metrics: Metrics;
}

export class MetricsServer {
  readonly options: MetricsServerOptions;
  readonly #metrics: Metrics;
  #server: Deno.HttpServer<Deno.NetAddr> | undefined;
  #port: number | undefined;
  readonly #log = getLogger(["metrics"]);

  constructor(options: Partial<MetricsServerOptions>, deps: MetricsServerDeps) {
    this.options = { ...DEFAULT_METRICS_SERVER_OPTIONS, ...options };
    this.#metrics = deps.metrics;
  }

  /** The bound port once started. */
  get port(): number {
    if (this.#port === undefined) {
      throw new BaseError(
        "METRICS_SERVER_NOT_STARTED",
        "Cannot read the metrics port: the server is not started",
      );
    }
    return this.#port;
  }

  /** Answers one request: the exposition on GET /metrics, 404 elsewhere, 405 for other methods. */
  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== "/metrics") return new Response("Not Found\n", { status: 404 });
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method Not Allowed\n", { status: 405, headers: { allow: "GET, HEAD" } });
    }
    const body = await this.#metrics.render();
    return new Response(request.method === "HEAD" ? null : body, {
      headers: { "content-type": METRICS_CONTENT_TYPE },
    });
  }

  /** Starts listening (idempotent). Fails with METRICS_SERVER_LISTEN when the address is taken. */
  start(): Promise<void> {
    if (this.#server) return Promise.resolve();
    const { addr, port } = this.options;
    try {
      this.#server = Deno.serve({
        hostname: addr,
        port,
        onListen: () => {},
        onError: (err) => {
          this.#log.error("Metrics request failed", { err });
          return new Response("Internal Server Error\n", { status: 500 });
        },
      }, (req) => this.handle(req));
    } catch (cause) {
      return Promise.reject(
        new BaseError(
          "METRICS_SERVER_LISTEN",
          `Cannot start the metrics server on ${addr}:${port}: ${cause}`,
          {
            meta: { addr, port },
            cause,
          },
        ),
      );
    }
    this.#port = this.#server.addr.port;
    this.#log.info("Started metrics server", { addr, port: this.#port });
    return Promise.resolve();
  }

  /** Stops listening and waits for open requests to finish (idempotent). */
  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    this.#port = undefined;
    await server.shutdown();
  }
}
