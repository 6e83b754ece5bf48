/**
 * RpcServer: serves one role's endpoints (e.g. the execution client's http, ws and authrpc)
 * from one MethodRegistry. Each endpoint picks its namespaces (`--http.api`, `--ws.api`);
 * endpoints on the same address and port share a listener, also across servers when they are
 * given the same ListenerPool (the rollup node's rpc and the execution client's http).
 */
import { BaseError } from "../common/mod.ts";
import { DEFAULT_RPC_LIMITS, type RestGet, type RpcLimits } from "./http_app.ts";
import { type BoundAddress, ListenerPool, type MountHandle } from "./listener_pool.ts";
import type { MethodRegistry } from "./registry.ts";
import { NOOP_LOGGER, type RpcLogger } from "./types.ts";

/** One endpoint: an address and port, its transports and namespaces. */
export interface RpcEndpointOptions {
  /** Name for lookups and logs: "http", "ws", "authrpc", "rpc". Unique within a server. */
  readonly name: string;
  readonly addr: string;
  /** 0 = an ephemeral port (see `address()`). */
  readonly port: number;
  /** JSON-RPC over HTTP POST. */
  readonly http: boolean;
  /** JSON-RPC over WebSocket (upgrade on the same port). */
  readonly ws: boolean;
  /** Namespaces served (the prefix before `_`); "*" = every namespace of the registry. */
  readonly namespaces: readonly string[];
  /** Engine API: require an HS256 JWT made with this 32-byte secret on every request. */
  readonly jwtSecret?: Uint8Array;
  /** CORS origins (`--http.corsdomain`); empty = no CORS; "*" = any origin. */
  readonly corsDomains: readonly string[];
  /** Allowed Host names (`--http.vhosts`); "*" = any. IP addresses always pass (geth). */
  readonly vhosts: readonly string[];
  /** Browser origins allowed to open a WebSocket (`--ws.origins`); empty/omitted = http://localhost only. */
  readonly wsOrigins?: readonly string[];
  /** GET routes beside JSON-RPC (http_app.ts ListenerConfig.restGet). */
  readonly restGet?: RestGet;
}

export interface RpcServerOptions {
  readonly endpoints: readonly RpcEndpointOptions[];
  readonly limits: RpcLimits;
  /** Reported by GET /healthz. */
  readonly version: string;
}

/** geth's defaults (node/defaults.go): 127.0.0.1:8545, vhosts localhost, no CORS. */
export const DEFAULT_RPC_ENDPOINT: RpcEndpointOptions = {
  name: "http",
  addr: "127.0.0.1",
  port: 8545,
  http: true,
  ws: false,
  namespaces: ["eth", "net", "web3"],
  corsDomains: [],
  vhosts: ["localhost"],
};

export const DEFAULT_RPC_SERVER_OPTIONS: RpcServerOptions = {
  endpoints: [],
  limits: DEFAULT_RPC_LIMITS,
  version: "",
};

export interface RpcServerDeps {
  readonly registry: MethodRegistry;
  readonly logger?: RpcLogger;
  /** Share listeners with other servers of the process; a private pool when omitted. */
  readonly pool?: ListenerPool;
  /** Unix seconds (JWT `iat`); used only for a private pool. */
  readonly now?: () => number;
  /** Hears each method call answered and its duration in seconds (op_node_default_rpc_server_*). */
  readonly onCall?: (method: string, seconds: number) => void;
}

export class RpcServer {
  readonly #options: RpcServerOptions;
  readonly #deps: RpcServerDeps;
  readonly #logger: RpcLogger;
  readonly #pool: ListenerPool;
  readonly #handles = new Map<string, MountHandle>();
  #starting?: Promise<void>;
  #stopping?: Promise<void>;

  constructor(options: RpcServerOptions, deps: RpcServerDeps) {
    const names = new Set<string>();
    for (const e of options.endpoints) {
      if (names.has(e.name)) {
        throw new BaseError(
          "RPC_BAD_ENDPOINT",
          `Cannot configure RPC endpoint ${e.name}: the name is used twice`,
        );
      }
      names.add(e.name);
      if (!e.http && !e.ws) {
        throw new BaseError(
          "RPC_BAD_ENDPOINT",
          `Cannot configure RPC endpoint ${e.name}: neither http nor ws`,
        );
      }
      if (e.jwtSecret && e.jwtSecret.length !== 32) {
        throw new BaseError(
          "RPC_BAD_ENDPOINT",
          `Cannot configure RPC endpoint ${e.name}: JWT secret has ${e.jwtSecret.length} bytes, want 32`,
        );
      }
    }
    this.#options = options;
    this.#deps = deps;
    this.#logger = deps.logger ?? NOOP_LOGGER;
    this.#pool = deps.pool ?? new ListenerPool({ logger: this.#logger, now: deps.now });
  }

  get started(): boolean {
    return this.#handles.size > 0;
  }

  /** Open (or join) the listeners; idempotent. On failure nothing stays open. */
  start(): Promise<void> {
    if (!this.#starting) {
      this.#stopping = undefined;
      this.#starting = this.#start().catch(async (err) => {
        await this.#detachAll();
        this.#starting = undefined;
        throw err;
      });
    }
    return this.#starting;
  }

  async #start(): Promise<void> {
    const { registry } = this.#deps;
    for (const e of this.#options.endpoints) {
      const served = registry.select(e.namespaces);
      const missing = e.namespaces.filter((ns) => ns !== "*" && !served.namespaces().includes(ns));
      if (missing.length > 0) {
        this.#logger.warn("Unavailable RPC namespaces requested", { endpoint: e.name, namespaces: missing });
      }
      const handle = await this.#pool.attach({
        owner: e.name,
        addr: e.addr,
        port: e.port,
        httpRegistry: e.http ? served : undefined,
        wsRegistry: e.ws ? served : undefined,
        jwtSecret: e.jwtSecret,
        corsDomains: e.corsDomains,
        vhosts: e.vhosts,
        wsOrigins: e.wsOrigins,
        restGet: e.restGet,
        limits: this.#options.limits,
        version: this.#options.version,
        onCall: this.#deps.onCall,
      });
      this.#handles.set(e.name, handle);
    }
  }

  /** Leave the listeners (closing those no other role uses); idempotent. */
  stop(): Promise<void> {
    if (!this.#stopping) {
      const starting = this.#starting;
      this.#stopping = (async () => {
        await starting?.catch(() => {});
        await this.#detachAll();
        this.#starting = undefined;
      })();
    }
    return this.#stopping;
  }

  async #detachAll(): Promise<void> {
    const handles = [...this.#handles.values()];
    this.#handles.clear();
    for (const h of handles) await h.detach();
  }

  /** Where an endpoint is bound (the real port when configured with 0). Throws when not started. */
  address(name: string): BoundAddress {
    const h = this.#handles.get(name);
    if (!h) {
      throw new BaseError("RPC_NOT_STARTED", `Cannot report address of RPC endpoint ${name}: not started`);
    }
    return h.address;
  }

  /** `http://host:port` (or `ws://`) of an endpoint, with a wildcard address replaced by loopback. */
  url(name: string, scheme: "http" | "ws" = "http"): string {
    const { hostname, port } = this.address(name);
    const host = hostname === "0.0.0.0"
      ? "127.0.0.1"
      : hostname === "::"
      ? "[::1]"
      : hostname.includes(":")
      ? `[${hostname}]`
      : hostname;
    return `${scheme}://${host}:${port}`;
  }
}
