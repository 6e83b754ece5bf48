/**
 * The typed method registry (DESIGN.md rule 9): one definition per method, params schema plus
 * handler; invalid params never reach a handler. A namespace is a plain record of method and
 * subscription definitions; a MethodRegistry merges namespaces and can be narrowed to the set
 * a listener serves (`--http.api=eth,net`).
 */
import { BaseError } from "../common/mod.ts";
import { type AnySchema, type Infer, SchemaError } from "./schema.ts";
import { RpcError } from "./rpc_error.ts";
import type { MethodContext } from "./types.ts";

/** The handler's typed params tuple, from the tuple of schemas. */
export type InferParams<P extends readonly AnySchema[]> = { -readonly [K in keyof P]: Infer<P[K]> };

/** One JSON-RPC method: `name` is the full wire name (`eth_blockNumber`). */
export interface MethodDef<P extends readonly AnySchema[] = readonly AnySchema[], R = unknown> {
  readonly kind: "method";
  readonly name: string;
  readonly params: P;
  /** Number of leading required params. */
  readonly required: number;
  /** Returns the result in wire form (hex strings, plain objects); lib/rpc only serialises it. */
  readonly handler: (params: InferParams<P>, ctx: MethodContext) => R | Promise<R>;
}

/** Given to a subscription's `start`. */
export interface SubscriptionContext extends MethodContext {
  /** The subscription id sent to the client. */
  readonly id: string;
  /** Aborted on unsubscribe and when the connection closes. */
  readonly signal: AbortSignal;
}

/** Stops a subscription's source; called once, on unsubscribe or connection close. */
export type SubscriptionCleanup = () => void | Promise<void>;

/** One kind of `<namespace>_subscribe` (e.g. namespace "eth", name "newHeads"). */
export interface SubscriptionDef<P extends readonly AnySchema[] = readonly AnySchema[]> {
  readonly kind: "subscription";
  readonly namespace: string;
  readonly name: string;
  readonly params: P;
  readonly required: number;
  /**
   * Start producing notifications: call `emit(value)` with each result in wire form. Return
   * the cleanup. A throw (RpcError / BaseError) becomes the error response of the subscribe.
   */
  readonly start: (
    params: InferParams<P>,
    emit: (value: unknown) => void,
    ctx: SubscriptionContext,
  ) => SubscriptionCleanup | Promise<SubscriptionCleanup>;
}

// deno-lint-ignore no-explicit-any
export type AnyMethodDef = MethodDef<any, any>;
// deno-lint-ignore no-explicit-any
export type AnySubscriptionDef = SubscriptionDef<any>;

/** A namespace: a plain record of definitions (the keys are for the author; names come from the defs). */
export type Namespace = Readonly<Record<string, AnyMethodDef | AnySubscriptionDef>>;

function countRequired(name: string, params: readonly AnySchema[]): number {
  let required = 0;
  let seenOptional = false;
  for (let i = 0; i < params.length; i++) {
    if (params[i].optional) {
      seenOptional = true;
    } else if (seenOptional) {
      throw new BaseError(
        "RPC_BAD_DEFINITION",
        `Cannot define ${name}: required param ${i} follows an optional one`,
      );
    } else {
      required++;
    }
  }
  return required;
}

const METHOD_NAME = /^[a-zA-Z0-9]+_[a-zA-Z0-9_]+$/;

/** geth's metadata method: the namespaces an endpoint serves. */
const RPC_MODULES = "rpc_modules";

/** Define a method. Optional params (s.optional) may only be trailing. */
export function defineMethod<const P extends readonly AnySchema[], R>(def: {
  name: string;
  params: P;
  handler: (params: InferParams<P>, ctx: MethodContext) => R | Promise<R>;
}): MethodDef<P, R> {
  if (!METHOD_NAME.test(def.name)) {
    throw new BaseError(
      "RPC_BAD_DEFINITION",
      `Cannot define method "${def.name}": want <namespace>_<method>`,
    );
  }
  return {
    kind: "method",
    name: def.name,
    params: def.params,
    required: countRequired(def.name, def.params),
    handler: def.handler,
  };
}

/**
 * The methods of `ns` again under another namespace name (`from_x` served as `to_x` too): the same
 * handlers, for clients that know a service by another name (op-node's opp2p_ for keel's nodep2p_).
 */
export function aliasNamespace(ns: Namespace, from: string, to: string): Namespace {
  const out: Record<string, AnyMethodDef> = {};
  for (const [key, def] of Object.entries(ns)) {
    if (def.kind !== "method" || !def.name.startsWith(`${from}_`)) continue;
    out[key] = { ...def, name: `${to}_${def.name.slice(from.length + 1)}` };
  }
  return out;
}

/**
 * The methods of `template` (not its subscriptions), each answered by the method of the same name in
 * `current()` at the time of the call: for a server whose registry stays while what serves it changes
 * (a dev chain re-forked: lib/node/execution_role.ts). A name `current()` lacks is "method not found".
 */
export function switchedNamespace(template: MethodRegistry, current: () => MethodRegistry): Namespace {
  const out: Record<string, AnyMethodDef> = {};
  for (const name of template.methodNames()) {
    const def = template.method(name)!;
    out[name] = {
      ...def,
      handler: (params, ctx) => {
        const now = current().method(name);
        if (now === undefined) throw RpcError.methodNotFound(name);
        return now.handler(params, ctx);
      },
    };
  }
  return out;
}

/** Define a subscription kind served by `<namespace>_subscribe(["<name>", ...params])`. */
export function defineSubscription<const P extends readonly AnySchema[]>(def: {
  namespace: string;
  name: string;
  params: P;
  start: SubscriptionDef<P>["start"];
}): SubscriptionDef<P> {
  if (!/^[a-zA-Z0-9]+$/.test(def.namespace) || def.name.length === 0) {
    throw new BaseError("RPC_BAD_DEFINITION", `Cannot define subscription "${def.namespace}/${def.name}"`);
  }
  return {
    kind: "subscription",
    namespace: def.namespace,
    name: def.name,
    params: def.params,
    required: countRequired(`${def.namespace}_subscribe(${def.name})`, def.params),
    start: def.start,
  };
}

/**
 * Parse positional params against the schemas, with geth's messages
 * (rpc/json.go parsePositionalArguments): "too many arguments, want at most N",
 * "missing value for required argument N", "invalid argument N: <reason>".
 * `offset` shifts the reported index (eth_subscribe's name is argument 0).
 */
export function parseParams(
  schemas: readonly AnySchema[],
  required: number,
  raw: unknown,
  offset = 0,
): unknown[] {
  let args: readonly unknown[];
  if (raw === undefined || raw === null) args = [];
  else if (Array.isArray(raw)) args = raw;
  else throw RpcError.invalidParams("non-array args");
  if (args.length > schemas.length) {
    throw RpcError.invalidParams(`too many arguments, want at most ${schemas.length + offset}`);
  }
  const out = new Array(schemas.length);
  for (let i = 0; i < schemas.length; i++) {
    const value = args[i];
    if (value === undefined || value === null) {
      if (i < required) throw RpcError.invalidParams(`missing value for required argument ${i + offset}`);
      out[i] = undefined;
      continue;
    }
    try {
      out[i] = schemas[i].parse(value);
    } catch (err) {
      if (err instanceof SchemaError) {
        throw RpcError.invalidParams(`invalid argument ${i + offset}: ${err.message}`);
      }
      throw err;
    }
  }
  return out;
}

/** The namespace of a wire method name: the part before the first `_`. */
export function namespaceOf(method: string): string {
  const i = method.indexOf("_");
  return i < 0 ? method : method.slice(0, i);
}

/** Methods and subscription kinds by name; immutable views via select/merge. */
export class MethodRegistry {
  readonly #methods = new Map<string, AnyMethodDef>();
  readonly #subscriptions = new Map<string, Map<string, AnySubscriptionDef>>();

  constructor(namespaces: readonly Namespace[] = []) {
    for (const ns of namespaces) this.register(ns);
  }

  /** Add every definition of a namespace record. A duplicate name throws. */
  register(namespace: Namespace): this {
    for (const def of Object.values(namespace)) {
      if (def.kind === "method") this.#addMethod(def);
      else this.#addSubscription(def);
    }
    return this;
  }

  #addMethod(def: AnyMethodDef): void {
    const existing = this.#methods.get(def.name);
    if (existing === def) return;
    if (existing) {
      throw new BaseError("RPC_DUPLICATE_METHOD", `Cannot register method ${def.name}: already registered`);
    }
    this.#methods.set(def.name, def);
  }

  #addSubscription(def: AnySubscriptionDef): void {
    let kinds = this.#subscriptions.get(def.namespace);
    if (!kinds) this.#subscriptions.set(def.namespace, kinds = new Map());
    const existing = kinds.get(def.name);
    if (existing === def) return;
    if (existing) {
      throw new BaseError(
        "RPC_DUPLICATE_METHOD",
        `Cannot register subscription ${def.name} in ${def.namespace}: already registered`,
      );
    }
    kinds.set(def.name, def);
  }

  method(name: string): AnyMethodDef | undefined {
    return this.#methods.get(name);
  }

  subscription(namespace: string, name: string): AnySubscriptionDef | undefined {
    return this.#subscriptions.get(namespace)?.get(name);
  }

  /** True when `<namespace>_subscribe` is served (the namespace has subscription kinds). */
  hasSubscriptions(namespace: string): boolean {
    return this.#subscriptions.has(namespace);
  }

  /** Every namespace that has a method or a subscription, sorted. */
  namespaces(): string[] {
    const set = new Set<string>(this.#subscriptions.keys());
    for (const name of this.#methods.keys()) set.add(namespaceOf(name));
    return [...set].sort();
  }

  /** Every method name, sorted. */
  methodNames(): string[] {
    return [...this.#methods.keys()].sort();
  }

  /** A new registry holding only the given namespaces (`"*"` keeps all). */
  select(namespaces: readonly string[]): MethodRegistry {
    const all = namespaces.includes("*");
    const keep = new Set(namespaces);
    const out = new MethodRegistry();
    for (const def of this.#methods.values()) {
      if (all || keep.has(namespaceOf(def.name))) out.#addMethod(def);
    }
    for (const [ns, kinds] of this.#subscriptions) {
      if (!all && !keep.has(ns)) continue;
      for (const def of kinds.values()) out.#addSubscription(def);
    }
    return out;
  }

  /**
   * A copy that also answers `rpc_modules`, as geth's every RPC server does (rpc/server.go
   * RPCService.Modules): each namespace this registry serves, and "rpc" itself, at version "1.0".
   * Added once per listener (listener_pool.ts), after the mounts' registries are merged.
   */
  withModules(): MethodRegistry {
    const out = MethodRegistry.merge([this]);
    if (out.#methods.has(RPC_MODULES)) return out;
    const modules = Object.fromEntries(
      [...new Set([...this.namespaces(), "rpc"])].sort().map((ns) => [ns, "1.0"]),
    );
    out.#addMethod(defineMethod({ name: RPC_MODULES, params: [], handler: () => ({ ...modules }) }));
    return out;
  }

  /**
   * A new registry with the definitions of all given registries. The same definition twice is
   * kept once; two different definitions of one name throw.
   */
  static merge(registries: readonly MethodRegistry[]): MethodRegistry {
    const out = new MethodRegistry();
    for (const r of registries) {
      for (const def of r.#methods.values()) out.#addMethod(def);
      for (const kinds of r.#subscriptions.values()) {
        for (const def of kinds.values()) out.#addSubscription(def);
      }
    }
    return out;
  }
}
