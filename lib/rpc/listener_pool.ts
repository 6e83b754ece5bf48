/**
 * One Deno.serve per address:port. Roles (the execution client's http/ws/authrpc, the rollup
 * node's rpc) attach mounts; mounts on the same address and port share one listener and their
 * namespaces merge, like geth when --http.port equals --ws.port. Port 0 asks the OS for a
 * free port and is never shared.
 */
import { BaseError, equalBytes } from "../common/mod.ts";
import { MethodRegistry } from "./registry.ts";
import { createRpcApp, type ListenerConfig, type RestGet, type RpcApp } from "./http_app.ts";
import { NOOP_LOGGER, type RpcLogger } from "./types.ts";

/** What one role serves on one address and port: a listener's config plus where and for whom. */
export interface ListenerMount extends ListenerConfig {
  /** Who attached it, for messages ("execution http", "rollup rpc"). */
  readonly owner: string;
  readonly addr: string;
  readonly port: number;
}

/** The address a listener is bound to. */
export interface BoundAddress {
  readonly hostname: string;
  readonly port: number;
}

/** Returned by attach: where the mount is served, and how to take it off. */
export interface MountHandle {
  readonly address: BoundAddress;
  /** Remove the mount; the listener stops with its last mount. Idempotent. */
  detach(): Promise<void>;
}

export interface ListenerPoolDeps {
  readonly logger?: RpcLogger;
  /** Unix seconds, for JWT `iat` checks; defaults to the system clock. */
  readonly now?: () => number;
}

function mergeConfig(mounts: readonly ListenerMount[]): ListenerConfig {
  const first = mounts[0];
  for (const m of mounts) {
    const a = first.jwtSecret;
    const b = m.jwtSecret;
    if ((a === undefined) !== (b === undefined) || (a && b && !equalBytes(a, b))) {
      throw new BaseError(
        "RPC_LISTENER_CONFLICT",
        `Cannot serve ${m.owner} on ${m.addr}:${m.port}: ${first.owner} is there with a different JWT setting`,
      );
    }
  }
  const http = mounts.flatMap((m) => (m.httpRegistry ? [m.httpRegistry] : []));
  const ws = mounts.flatMap((m) => (m.wsRegistry ? [m.wsRegistry] : []));
  let httpRegistry: MethodRegistry | undefined;
  let wsRegistry: MethodRegistry | undefined;
  try {
    httpRegistry = http.length ? MethodRegistry.merge(http).withModules() : undefined;
    wsRegistry = ws.length ? MethodRegistry.merge(ws).withModules() : undefined;
  } catch (err) {
    const last = mounts[mounts.length - 1];
    throw new BaseError(
      "RPC_LISTENER_CONFLICT",
      `Cannot serve ${last.owner} on ${last.addr}:${last.port}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  return {
    httpRegistry,
    wsRegistry,
    jwtSecret: first.jwtSecret,
    corsDomains: [...new Set(mounts.flatMap((m) => m.corsDomains))],
    vhosts: [...new Set(mounts.flatMap((m) => m.vhosts))],
    wsOrigins: [...new Set(mounts.flatMap((m) => m.wsOrigins ?? []))],
    limits: first.limits,
    version: mounts.find((m) => m.version !== "")?.version ?? "",
    onCall: mergeOnCall(mounts),
    restGet: mergeRestGet(mounts),
  };
}

/** The mounts' GET routes: the first that serves the path answers. */
function mergeRestGet(mounts: readonly ListenerMount[]): RestGet | undefined {
  const routes = mounts.flatMap((m) => (m.restGet === undefined ? [] : [m.restGet]));
  if (routes.length <= 1) return routes[0];
  return async (path, query) => {
    for (const get of routes) {
      const answer = await get(path, query);
      if (answer !== undefined) return answer;
    }
    return undefined;
  };
}

/** The mounts' call hooks, each hearing the calls of its own methods (roles sharing a port count apart). */
function mergeOnCall(mounts: readonly ListenerMount[]): ListenerConfig["onCall"] {
  const hooks = mounts.filter((m) => m.onCall !== undefined);
  if (hooks.length === 0) return undefined;
  if (hooks.length === 1 && mounts.length === 1) return hooks[0].onCall;
  return (method, seconds) => {
    for (const m of hooks) {
      if (m.httpRegistry?.method(method) !== undefined || m.wsRegistry?.method(method) !== undefined) {
        m.onCall!(method, seconds);
      }
    }
  };
}

class Listener {
  readonly key: string;
  readonly addr: string;
  readonly port: number;
  mounts: ListenerMount[] = [];
  config!: ListenerConfig;
  readonly rpcApp: RpcApp;
  server?: Deno.HttpServer<Deno.NetAddr>;

  constructor(key: string, addr: string, port: number, deps: Required<ListenerPoolDeps>) {
    this.key = key;
    this.addr = addr;
    this.port = port;
    this.rpcApp = createRpcApp(() => this.config, deps);
  }

  listen(): BoundAddress {
    try {
      this.server = Deno.serve(
        { hostname: this.addr, port: this.port, onListen() {} },
        this.rpcApp.fetch,
      );
    } catch (err) {
      throw new BaseError(
        "RPC_LISTEN_FAILED",
        `Cannot listen on ${this.addr}:${this.port}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    return { hostname: this.server.addr.hostname, port: this.server.addr.port };
  }

  get address(): BoundAddress {
    const a = this.server!.addr;
    return { hostname: a.hostname, port: a.port };
  }

  async close(): Promise<void> {
    this.rpcApp.closeConnections();
    const server = this.server;
    this.server = undefined;
    await server?.shutdown();
  }
}

/** Listeners by address:port, shared between the roles of one process. */
export class ListenerPool {
  readonly #listeners = new Map<string, Listener>();
  readonly #deps: Required<ListenerPoolDeps>;
  #ephemeral = 0;

  constructor(deps: ListenerPoolDeps = {}) {
    this.#deps = {
      logger: deps.logger ?? NOOP_LOGGER,
      now: deps.now ?? (() => Math.floor(Date.now() / 1000)),
    };
  }

  /** Number of open listeners. */
  get size(): number {
    return this.#listeners.size;
  }

  /** Serve a mount, opening a listener on its address and port or joining the open one. */
  attach(mount: ListenerMount): Promise<MountHandle> {
    const key = mount.port === 0 ? `${mount.addr}:0#${++this.#ephemeral}` : `${mount.addr}:${mount.port}`;
    let listener = this.#listeners.get(key);
    const isNew = listener === undefined;
    if (!listener) listener = new Listener(key, mount.addr, mount.port, this.#deps);
    const mounts = [...listener.mounts, mount];
    listener.config = mergeConfig(mounts); // throws on conflict, before anything changes
    listener.mounts = mounts;
    if (isNew) {
      try {
        listener.listen();
      } catch (err) {
        return Promise.reject(err);
      }
      this.#listeners.set(key, listener);
      this.#deps.logger.info("RPC listener started", {
        owner: mount.owner,
        address: `${listener.address.hostname}:${listener.address.port}`,
      });
    } else {
      this.#deps.logger.info("RPC listener shared", { owner: mount.owner, address: key });
    }
    const l = listener;
    let detached = false;
    return Promise.resolve({
      address: l.address,
      detach: async () => {
        if (detached) return;
        detached = true;
        l.mounts = l.mounts.filter((m) => m !== mount);
        if (l.mounts.length > 0) {
          l.config = mergeConfig(l.mounts);
          return;
        }
        this.#listeners.delete(l.key);
        await l.close();
      },
    });
  }

  /** Close every listener (process shutdown). */
  async closeAll(): Promise<void> {
    const all = [...this.#listeners.values()];
    this.#listeners.clear();
    await Promise.all(all.map((l) => l.close()));
  }
}
