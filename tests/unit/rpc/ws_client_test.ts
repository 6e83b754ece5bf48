/**
 * The WebSocket JSON-RPC client (lib/rpc/ws_client.ts) against a WebSocket server on 127.0.0.1 that
 * answers out of order: ids matched, batches as one array, server errors, timeouts, a dead endpoint,
 * the upgrade headers (an engine JWT), drops with their waiting calls failed as retryable and the
 * next call reconnected, subscriptions renewed after a drop, the client's limits, and the choice of
 * client by URL scheme.
 */
import { isErrorCode } from "../../../lib/common/errors.ts";
import { JsonRpcClient, RequestLimiter } from "../../../lib/common/json_rpc_client.ts";
import { rpcClientFor, WsJsonRpcClient } from "../../../lib/rpc/mod.ts";
import { assert, assertEquals, assertRejects } from "../../assert.ts";

interface Req {
  id: number;
  method: string;
  params: unknown[];
}

interface Server {
  url: string;
  /** The Authorization header of each upgrade request (null: none). */
  upgrades: (string | null)[];
  /** Every request the server got, in order (a batch's requests one by one). */
  seen: Req[];
  /** The requests in flight at once, at most. */
  peak: number;
  /** Closes every open socket (a drop, as the client sees it). */
  drop(): void;
  /** Sends a notification to every open socket for subscription `sid`. */
  notify(sid: string, result: unknown): void;
  stop(): Promise<void>;
}

/**
 * eth_chainId answers after params[0] ms (default 0; so later calls can overtake earlier ones),
 * "fail" answers an error object, "hang" never answers, "eth_subscribe" answers a new id.
 */
function startServer(): Server {
  const sockets = new Set<WebSocket>();
  const upgrades: (string | null)[] = [];
  const seen: Req[] = [];
  let inFlight = 0;
  let subs = 0;
  const state = { peak: 0 };
  const ac = new AbortController();
  const answer = async (r: Req): Promise<unknown> => {
    seen.push(r);
    inFlight++;
    state.peak = Math.max(state.peak, inFlight);
    try {
      if (r.method === "hang") await new Promise(() => {});
      const delay = typeof r.params[0] === "number" ? r.params[0] : 0;
      await new Promise((res) => setTimeout(res, delay));
      if (r.method === "eth_chainId") return { jsonrpc: "2.0", id: r.id, result: "0x385" };
      if (r.method === "eth_subscribe") return { jsonrpc: "2.0", id: r.id, result: `0xsub${++subs}` };
      if (r.method === "eth_unsubscribe") return { jsonrpc: "2.0", id: r.id, result: true };
      return {
        jsonrpc: "2.0",
        id: r.id,
        error: { code: -32000, message: `no ${r.method}`, data: "0xdead" },
      };
    } finally {
      inFlight--;
    }
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    (req) => {
      if (req.headers.get("upgrade") !== "websocket") return new Response("no", { status: 400 });
      upgrades.push(req.headers.get("authorization"));
      const { socket, response } = Deno.upgradeWebSocket(req);
      socket.onopen = () => sockets.add(socket);
      socket.onclose = () => sockets.delete(socket);
      socket.onmessage = async (ev) => {
        const body = JSON.parse(ev.data as string);
        const out = Array.isArray(body)
          // A batch's answers come back reversed: the client matches them by id.
          ? (await Promise.all(body.map(answer))).reverse()
          : await answer(body);
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(out));
      };
      return response;
    },
  );
  return {
    url: `ws://127.0.0.1:${server.addr.port}`,
    upgrades,
    seen,
    get peak() {
      return state.peak;
    },
    drop: () => {
      for (const s of sockets) s.close(1012, "restarting");
    },
    notify: (sid, result) => {
      for (const s of sockets) {
        s.send(
          JSON.stringify({
            jsonrpc: "2.0",
            method: "eth_subscription",
            params: { subscription: sid, result },
          }),
        );
      }
    },
    stop: async () => {
      for (const s of sockets) s.close();
      ac.abort();
      await server.finished;
    },
  };
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

Deno.test("ws client: calls matched by id out of order, batches as one array, one connection, upgrade headers", async () => {
  const server = startServer();
  let dials = 0;
  const c = new WsJsonRpcClient(server.url, {
    headers: () => ({ authorization: `Bearer token-${++dials}` }),
  });
  try {
    // The first call waits 100 ms, the second none: the second's answer comes first.
    const [slow, fast] = await Promise.all([c.call("eth_chainId", [100]), c.call("eth_chainId", [0])]);
    assertEquals([slow, fast], ["0x385", "0x385"]);
    assertEquals(
      await c.batch([{ method: "eth_chainId", params: [30] }, { method: "eth_chainId" }, {
        method: "eth_chainId",
      }]),
      ["0x385", "0x385", "0x385"],
    );
    assertEquals(await c.batch([]), []);
    // One connection for all of them; the header went on its upgrade.
    assertEquals(server.upgrades.length, 1);
    assertEquals(server.upgrades[0], "Bearer token-1");
    // Distinct ids, a batch's consecutive.
    const ids = server.seen.map((r) => r.id);
    assertEquals(new Set(ids).size, ids.length);
    assertEquals(ids.slice(2).sort(), [ids[2], ids[2] + 1, ids[2] + 2].sort());
    assert(c.connected);
  } finally {
    await c.close();
    await server.stop();
  }
  assert(!c.connected);
});

Deno.test("ws client: server errors, failed batches, timeouts and a dead endpoint are BaseErrors", async () => {
  const server = startServer();
  const c = new WsJsonRpcClient(server.url, { timeoutMs: 200 });
  try {
    const e1 = await assertRejects(() => c.call("eth_nope"));
    assert(
      isErrorCode(e1, "RPC_ERROR") && (e1 as Error).message === "eth_nope failed: no eth_nope",
      String(e1),
    );
    assertEquals((e1 as { meta?: { code?: number } }).meta, { code: -32000, data: "0xdead" });
    const e2 = await assertRejects(() => c.batch([{ method: "eth_chainId" }, { method: "eth_nope" }]));
    assert(isErrorCode(e2, "RPC_ERROR"), String(e2));
    const e3 = await assertRejects(() => c.call("hang"));
    assert(
      isErrorCode(e3, "RPC_TRANSPORT") && (e3 as Error).message.includes("no answer within 200 ms"),
      String(e3),
    );
    // The connection survives a timeout.
    assertEquals(await c.call("eth_chainId"), "0x385");
    assertEquals(server.upgrades.length, 1);
  } finally {
    await c.close();
    await server.stop();
  }
  // Nothing listens there any more.
  const dead = new WsJsonRpcClient(server.url, { timeoutMs: 1000 });
  const e4 = await assertRejects(() => dead.call("eth_chainId"));
  assert(isErrorCode(e4, "RPC_TRANSPORT") && e4.meta.retryable === true, String(e4));
  assert((e4 as Error).message.includes("cannot connect"), String(e4));
  await dead.close();
  // A closed client refuses calls.
  const e5 = await assertRejects(() => dead.call("eth_chainId"));
  assert(isErrorCode(e5, "RPC_TRANSPORT") && (e5 as Error).message.includes("closed"), String(e5));
});

Deno.test("ws client: a drop fails the waiting calls as retryable; the next call reconnects with a fresh header", async () => {
  const server = startServer();
  let dials = 0;
  const c = new WsJsonRpcClient(server.url, {
    timeoutMs: 5000,
    reconnectMinMs: 50,
    headers: () => ({ authorization: `Bearer token-${++dials}` }),
  });
  try {
    assertEquals(await c.call("eth_chainId"), "0x385");
    const waiting = c.call("hang");
    const waitingBatch = c.batch([{ method: "hang" }, { method: "eth_chainId" }]);
    await until(() => server.seen.filter((r) => r.method === "hang").length === 2);
    server.drop();
    for (const p of [waiting, waitingBatch]) {
      const e = await assertRejects(() => p);
      assert(isErrorCode(e, "RPC_TRANSPORT"), String(e));
      assertEquals(e.meta.retryable, true);
      assertEquals(e.severity, "temporary");
      assert((e as Error).message.includes("connection closed (code 1012)"), (e as Error).message);
    }
    await until(() => !c.connected);
    // The next call dials again (after the backoff) and carries a new token.
    assertEquals(await c.call("eth_chainId"), "0x385");
    assertEquals(server.upgrades.length, 2);
    assertEquals(server.upgrades[1], "Bearer token-2");
  } finally {
    await c.close();
    await server.stop();
  }
});

Deno.test("ws client: subscriptions get their notifications and are renewed after a drop", async () => {
  const server = startServer();
  const c = new WsJsonRpcClient(server.url, { reconnectMinMs: 50 });
  const heads: unknown[] = [];
  try {
    const sub = await c.subscribe("eth", ["newHeads"], (h) => heads.push(h));
    server.notify("0xsub1", { number: "0x1" });
    server.notify("0xother", { number: "0x99" }); // not ours
    await until(() => heads.length === 1);
    // Dropped: the client redials by itself and subscribes again (a new id), without a call.
    server.drop();
    await until(() => server.seen.filter((r) => r.method === "eth_subscribe").length === 2);
    await until(() => c.connected);
    await new Promise((r) => setTimeout(r, 50));
    server.notify("0xsub2", { number: "0x2" });
    await until(() => heads.length === 2);
    assertEquals(heads, [{ number: "0x1" }, { number: "0x2" }]);
    await sub.unsubscribe();
    const unsub = server.seen.find((r) => r.method === "eth_unsubscribe");
    assertEquals(unsub?.params, ["0xsub2"]);
    server.notify("0xsub2", { number: "0x3" });
    await new Promise((r) => setTimeout(r, 50));
    assertEquals(heads.length, 2);
  } finally {
    await c.close();
    await server.stop();
  }
});

Deno.test("ws client: --l1.max-concurrency holds over one socket, and over a limiter shared by two clients", async () => {
  const server = startServer();
  const limiter = new RequestLimiter({ maxConcurrency: 2 });
  const a = new WsJsonRpcClient(server.url, { limiter });
  const b = new WsJsonRpcClient(server.url, { limiter });
  try {
    await Promise.all([
      ...Array.from({ length: 5 }, () => a.call("eth_chainId", [40])),
      ...Array.from({ length: 5 }, () => b.call("eth_chainId", [40])),
    ]);
    assertEquals(server.peak, 2);
    assertEquals(server.seen.length, 10);
  } finally {
    await a.close();
    await b.close();
    await server.stop();
  }
});

Deno.test("ws client: chosen by URL scheme", async () => {
  const ws = rpcClientFor("ws://127.0.0.1:1");
  assert(ws instanceof WsJsonRpcClient);
  assert(rpcClientFor("WSS://example.com/key") instanceof WsJsonRpcClient);
  const http = rpcClientFor("http://127.0.0.1:1", { timeoutMs: 5 });
  assert(http instanceof JsonRpcClient && !(http instanceof WsJsonRpcClient));
  assertEquals(http.options.timeoutMs, 5);
  await ws.close();
});

Deno.test("ws client: dials wait out the backoff after a failure; close() cuts the wait short", async () => {
  const server = startServer();
  const url = server.url;
  await server.stop();
  const c = new WsJsonRpcClient(url, { timeoutMs: 60_000, reconnectMinMs: 30_000 });
  const first = await assertRejects(() => c.call("eth_chainId"));
  assert(isErrorCode(first, "RPC_TRANSPORT") && (first as Error).message.includes("cannot connect"));
  // The next dial waits 30 s; closing the client ends it at once.
  const start = performance.now();
  const waiting = c.call("eth_chainId");
  await new Promise((r) => setTimeout(r, 50));
  await c.close();
  const e = await assertRejects(() => waiting);
  assert(isErrorCode(e, "RPC_TRANSPORT") && (e as Error).message.includes("closed"), String(e));
  assert(performance.now() - start < 5000);
});
