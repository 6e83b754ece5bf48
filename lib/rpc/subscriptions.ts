/**
 * Per-connection subscription bookkeeping for `<ns>_subscribe` / `<ns>_unsubscribe` over
 * WebSocket, as go-ethereum does it (rpc/subscription.go): random 128-bit ids written as hex
 * quantities, notifications `{"jsonrpc":"2.0","method":"<ns>_subscription","params":
 * {"subscription":id,"result":...}}`, nothing sent before the subscribe response, cleanup on
 * unsubscribe and on close.
 */
import { bytesToHex } from "../common/mod.ts";
import type { AnySubscriptionDef, SubscriptionCleanup } from "./registry.ts";
import type { RpcLogger, WsConnection } from "./types.ts";

/** A fresh subscription id: 16 random bytes as a quantity ("0x" + up to 32 hex digits). */
export function newSubscriptionId(): string {
  const hex = bytesToHex(crypto.getRandomValues(new Uint8Array(16))).slice(2).replace(/^0+/, "");
  return "0x" + (hex === "" ? "0" : hex);
}

interface ActiveSubscription {
  readonly id: string;
  readonly method: string;
  readonly controller: AbortController;
  active: boolean;
  /** Results emitted before the subscribe response was written. */
  pending: unknown[];
  cleanup?: SubscriptionCleanup;
  done: boolean;
}

/** Before activation (a few ms at most) a source may emit this many results; more closes the connection. */
const MAX_PENDING_BEFORE_ACTIVATION = 10_000;

/** The subscriptions of one WebSocket connection. */
export class ConnectionSubscriptions {
  readonly #conn: WsConnection;
  readonly #logger: RpcLogger;
  readonly #subs = new Map<string, ActiveSubscription>();
  #closed = false;

  constructor(conn: WsConnection, logger: RpcLogger) {
    this.#conn = conn;
    this.#logger = logger;
  }

  get size(): number {
    return this.#subs.size;
  }

  /**
   * Start a subscription; its notifications are held until `activatePending()` (called right
   * after the subscribe response is written). Throws what `def.start` throws.
   */
  async subscribe(def: AnySubscriptionDef, params: unknown[]): Promise<string> {
    let id = newSubscriptionId();
    while (this.#subs.has(id)) id = newSubscriptionId();
    const sub: ActiveSubscription = {
      id,
      method: `${def.namespace}_subscription`,
      controller: new AbortController(),
      active: false,
      pending: [],
      done: false,
    };
    const emit = (value: unknown): void => {
      if (sub.done || this.#conn.closed) return;
      if (!sub.active) {
        if (sub.pending.length >= MAX_PENDING_BEFORE_ACTIVATION) {
          this.#conn.close(1008, "subscription backlog too large");
          return;
        }
        sub.pending.push(value);
        return;
      }
      this.#send(sub, value);
    };
    this.#subs.set(id, sub);
    try {
      sub.cleanup = await def.start(params, emit, {
        id,
        signal: sub.controller.signal,
        connection: this.#conn,
      });
    } catch (err) {
      this.#subs.delete(id);
      sub.done = true;
      throw err;
    }
    if (this.#closed) {
      // The connection closed while start() ran: stop the source right away.
      this.#subs.delete(id);
      await this.#stop(sub);
    }
    return id;
  }

  /** Let held notifications through, in order; called once the subscribe response is out. */
  activatePending(): void {
    for (const sub of this.#subs.values()) {
      if (sub.active) continue;
      sub.active = true;
      const pending = sub.pending;
      sub.pending = [];
      for (const value of pending) {
        if (sub.done || this.#conn.closed) break;
        this.#send(sub, value);
      }
    }
  }

  /** Stop one subscription; false when the id is unknown on this connection. */
  async unsubscribe(id: string): Promise<boolean> {
    const sub = this.#subs.get(id);
    if (!sub) return false;
    this.#subs.delete(id);
    await this.#stop(sub);
    return true;
  }

  /** Stop every subscription (connection closed); idempotent. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    const subs = [...this.#subs.values()];
    this.#subs.clear();
    for (const sub of subs) await this.#stop(sub);
  }

  #send(sub: ActiveSubscription, value: unknown): void {
    let result: string | undefined;
    try {
      result = JSON.stringify(value);
    } catch (err) {
      this.#logger.error("Cannot serialise subscription notification", {
        method: sub.method,
        error: String(err),
      });
      return;
    }
    this.#conn.send(
      `{"jsonrpc":"2.0","method":"${sub.method}","params":{"subscription":"${sub.id}","result":${
        result ?? "null"
      }}}`,
    );
  }

  async #stop(sub: ActiveSubscription): Promise<void> {
    if (sub.done) return;
    sub.done = true;
    sub.pending = [];
    sub.controller.abort();
    try {
      await sub.cleanup?.();
    } catch (err) {
      this.#logger.warn("Subscription cleanup failed", { method: sub.method, error: String(err) });
    }
  }
}
