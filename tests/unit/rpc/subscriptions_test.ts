import { assert, assertEquals, assertMatch, assertRejects } from "../../assert.ts";
import { BaseError } from "../../../lib/common/mod.ts";
import { defineSubscription } from "../../../lib/rpc/registry.ts";
import { s } from "../../../lib/rpc/schema.ts";
import { ConnectionSubscriptions, newSubscriptionId } from "../../../lib/rpc/subscriptions.ts";
import type { RpcLogger, WsConnection } from "../../../lib/rpc/types.ts";

/** An in-memory connection: records what is sent. */
class MemoryConnection implements WsConnection {
  readonly id = 1;
  closed = false;
  closeCode?: number;
  readonly sent: string[] = [];
  send(text: string): boolean {
    if (this.closed) return false;
    this.sent.push(text);
    return true;
  }
  close(code = 1000): void {
    this.closed = true;
    this.closeCode = code;
  }
}

function logger(): RpcLogger & { messages: string[] } {
  const messages: string[] = [];
  const log = (m: string) => messages.push(m);
  return { messages, debug: log, info: log, warn: log, error: log };
}

function counterKind() {
  const state = { emit: (_v: unknown) => {}, cleanups: 0, signal: undefined as AbortSignal | undefined };
  const def = defineSubscription({
    namespace: "eth",
    name: "counter",
    params: [s.optional(s.uint64())],
    start: (_params, emit, ctx) => {
      state.emit = emit;
      state.signal = ctx.signal;
      return () => {
        state.cleanups++;
      };
    },
  });
  return { def, state };
}

Deno.test("newSubscriptionId: 16 random bytes as a quantity", () => {
  const ids = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const id = newSubscriptionId();
    assertMatch(id, /^0x([1-9a-f][0-9a-f]{0,31}|0)$/);
    ids.add(id);
  }
  assertEquals(ids.size, 200);
});

Deno.test("notifications are held until activation, then sent in order with geth's shape", async () => {
  const conn = new MemoryConnection();
  const subs = new ConnectionSubscriptions(conn, logger());
  const { def, state } = counterKind();
  const id = await subs.subscribe(def, [undefined]);
  state.emit("0x1");
  assertEquals(conn.sent.length, 0);
  subs.activatePending();
  state.emit("0x2");
  assertEquals(conn.sent.map((t) => JSON.parse(t)), [
    { jsonrpc: "2.0", method: "eth_subscription", params: { subscription: id, result: "0x1" } },
    { jsonrpc: "2.0", method: "eth_subscription", params: { subscription: id, result: "0x2" } },
  ]);
  assertEquals(subs.size, 1);
});

Deno.test("unsubscribe runs cleanup once and aborts the signal; unknown ids are false", async () => {
  const conn = new MemoryConnection();
  const subs = new ConnectionSubscriptions(conn, logger());
  const { def, state } = counterKind();
  const id = await subs.subscribe(def, [undefined]);
  subs.activatePending();
  assertEquals(await subs.unsubscribe(id), true);
  assertEquals(await subs.unsubscribe(id), false);
  assertEquals(state.cleanups, 1);
  assert(state.signal?.aborted);
  state.emit("0x3");
  assertEquals(conn.sent.length, 0);
});

Deno.test("closeAll stops every subscription; a throwing cleanup is logged, not fatal", async () => {
  const conn = new MemoryConnection();
  const log = logger();
  const subs = new ConnectionSubscriptions(conn, log);
  const a = counterKind();
  const bad = defineSubscription({
    namespace: "eth",
    name: "bad",
    params: [],
    start: () => () => {
      throw new Error("boom");
    },
  });
  await subs.subscribe(a.def, [undefined]);
  await subs.subscribe(bad, []);
  await subs.closeAll();
  assertEquals(a.state.cleanups, 1);
  assertEquals(subs.size, 0);
  assertEquals(log.messages, ["Subscription cleanup failed"]);
});

Deno.test("a failing start() is not registered and its error propagates", async () => {
  const subs = new ConnectionSubscriptions(new MemoryConnection(), logger());
  const failing = defineSubscription({
    namespace: "eth",
    name: "logs",
    params: [],
    start: () => {
      throw new BaseError("FILTER_TOO_WIDE", "too many addresses");
    },
  });
  await assertRejects(() => subs.subscribe(failing, []), BaseError, "too many addresses");
  assertEquals(subs.size, 0);
});

Deno.test("a bigint in a notification is dropped with an error log", async () => {
  const conn = new MemoryConnection();
  const log = logger();
  const subs = new ConnectionSubscriptions(conn, log);
  const { def, state } = counterKind();
  await subs.subscribe(def, [undefined]);
  subs.activatePending();
  state.emit({ n: 1n });
  assertEquals(conn.sent.length, 0);
  assertEquals(log.messages, ["Cannot serialise subscription notification"]);
});

Deno.test("a source that floods before activation closes the connection (bounded backlog)", async () => {
  const conn = new MemoryConnection();
  const subs = new ConnectionSubscriptions(conn, logger());
  const { def, state } = counterKind();
  await subs.subscribe(def, [undefined]);
  for (let i = 0; i < 10_001; i++) state.emit("0x1");
  assertEquals(conn.closed, true);
  assertEquals(conn.closeCode, 1008);
});
