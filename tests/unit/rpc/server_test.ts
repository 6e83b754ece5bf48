import { assert, assertEquals, assertMatch, assertRejects, assertStringIncludes } from "../../assert.ts";
import { BaseError } from "../../../lib/common/mod.ts";
import { DEFAULT_RPC_LIMITS } from "../../../lib/rpc/http_app.ts";
import { createJwtToken } from "../../../lib/rpc/jwt.ts";
import { ListenerPool } from "../../../lib/rpc/listener_pool.ts";
import {
  defineMethod,
  defineSubscription,
  MethodRegistry,
  type SubscriptionContext,
} from "../../../lib/rpc/registry.ts";
import { s } from "../../../lib/rpc/schema.ts";
import { DEFAULT_RPC_ENDPOINT, type RpcEndpointOptions, RpcServer } from "../../../lib/rpc/server.ts";

/** A test source of "new heads": subscriptions register here, the test emits. */
class HeadSource {
  readonly subs = new Map<string, { emit: (v: unknown) => void; ctx: SubscriptionContext; full: boolean }>();
  cleanups = 0;
  started = Promise.withResolvers<void>();
  emitAll(value: unknown): void {
    for (const sub of this.subs.values()) sub.emit(value);
  }
}

function makeRegistry(source: HeadSource): MethodRegistry {
  return new MethodRegistry([
    {
      blockNumber: defineMethod({ name: "eth_blockNumber", params: [], handler: () => "0x10" }),
      heads: defineSubscription({
        namespace: "eth",
        name: "newHeads",
        params: [s.optional(s.object({ full: s.bool() }))],
        start: ([opts], emit, ctx) => {
          source.subs.set(ctx.id, { emit, ctx, full: opts?.full ?? false });
          source.started.resolve();
          return () => {
            source.subs.delete(ctx.id);
            source.cleanups++;
          };
        },
      }),
    },
    {
      // Emits during start(): the client must still see the subscribe response first.
      eager: defineSubscription({
        namespace: "eth",
        name: "syncing",
        params: [],
        start: (_params, emit) => {
          emit(false);
          emit(true);
          return () => {};
        },
      }),
    },
    { version: defineMethod({ name: "net_version", params: [], handler: () => "901" }) },
  ]);
}

function endpoint(overrides: Partial<RpcEndpointOptions>): RpcEndpointOptions {
  return { ...DEFAULT_RPC_ENDPOINT, addr: "127.0.0.1", port: 0, ...overrides };
}

async function rpc(
  url: string,
  method: string,
  params: unknown[] = [],
  headers: Record<string, string> = {},
) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return { status: res.status, body: res.status === 200 ? await res.json() : await res.text() };
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** A WebSocket client with a queue of received messages. */
async function openWs(url: string) {
  const ws = new WebSocket(url);
  const messages: unknown[] = [];
  let waiter: (() => void) | undefined;
  ws.onmessage = (e) => {
    messages.push(JSON.parse(e.data as string));
    waiter?.();
  };
  const closed = new Promise<CloseEvent>((resolve) => ws.addEventListener("close", (e) => resolve(e)));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = (e) => reject(new Error(`ws error ${(e as ErrorEvent).message}`));
  });
  let nextId = 1;
  const next = async (): Promise<unknown> => {
    while (messages.length === 0) await new Promise<void>((r) => (waiter = r));
    return messages.shift();
  };
  return {
    ws,
    closed,
    next,
    async call(method: string, params: unknown[] = []) {
      const id = nextId++;
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      return await next() as { id: number; result?: unknown; error?: { code: number; message: string } };
    },
    async close() {
      ws.close();
      await closed;
    },
  };
}

Deno.test("HTTP: real server on an ephemeral port; start and stop are idempotent", async () => {
  const server = new RpcServer(
    { endpoints: [endpoint({ namespaces: ["eth"] })], limits: DEFAULT_RPC_LIMITS, version: "t" },
    { registry: makeRegistry(new HeadSource()) },
  );
  await server.start();
  await server.start();
  try {
    assert(server.address("http").port > 0);
    assertEquals((await rpc(server.url("http"), "eth_blockNumber")).body, {
      jsonrpc: "2.0",
      id: 1,
      result: "0x10",
    });
    // net is not in this endpoint's namespaces.
    const r = await rpc(server.url("http"), "net_version");
    assertEquals(r.body.error.code, -32601);
    const health = await fetch(`${server.url("http")}/healthz`);
    assertEquals(await health.json(), { version: "t" });
    // The POST fast path keeps the HTTP rules.
    const plain = await fetch(server.url("http"), {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    assertEquals(plain.status, 415);
    await plain.body?.cancel();
    const huge = await fetch(server.url("http"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "x".repeat(DEFAULT_RPC_LIMITS.bodyLimit + 1),
    });
    assertEquals(huge.status, 413);
    await huge.body?.cancel();
    // fetch() cannot set Host: send the request by hand.
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.address("http").port });
    await conn.write(new TextEncoder().encode(
      "POST / HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: 2\r\n" +
        "Connection: close\r\n\r\n{}",
    ));
    const reply = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
    assertStringIncludes(reply.split("\r\n")[0], "403");
    assertStringIncludes(reply, "invalid host specified");
  } finally {
    await server.stop();
    await server.stop();
  }
  assertEquals(server.started, false);
});

Deno.test("two servers on one address and port share a listener; namespaces merge", async () => {
  const port = freePort();
  const pool = new ListenerPool();
  const source = new HeadSource();
  const full = makeRegistry(source);
  const exec = new RpcServer(
    { endpoints: [endpoint({ port, namespaces: ["eth"] })], limits: DEFAULT_RPC_LIMITS, version: "" },
    { registry: full, pool },
  );
  const rollup = new RpcServer(
    {
      endpoints: [endpoint({ name: "rpc", port, namespaces: ["net"] })],
      limits: DEFAULT_RPC_LIMITS,
      version: "",
    },
    { registry: full, pool },
  );
  await exec.start();
  await rollup.start();
  try {
    assertEquals(pool.size, 1);
    assertEquals(exec.address("http").port, port);
    assertEquals(rollup.address("rpc").port, port);
    const url = `http://127.0.0.1:${port}`;
    assertEquals((await rpc(url, "eth_blockNumber")).body.result, "0x10");
    assertEquals((await rpc(url, "net_version")).body.result, "901");
    await rollup.stop();
    assertEquals(pool.size, 1);
    assertEquals((await rpc(url, "net_version")).body.error.code, -32601);
    assertEquals((await rpc(url, "eth_blockNumber")).body.result, "0x10");
  } finally {
    await exec.stop();
    await rollup.stop();
  }
  assertEquals(pool.size, 0);
});

Deno.test("http and ws endpoints on the same port: one listener, each with its namespaces", async () => {
  const port = freePort();
  const server = new RpcServer({
    endpoints: [
      endpoint({ name: "http", port, namespaces: ["eth"] }),
      endpoint({ name: "ws", port, http: false, ws: true, namespaces: ["eth", "net"] }),
    ],
    limits: DEFAULT_RPC_LIMITS,
    version: "",
  }, { registry: makeRegistry(new HeadSource()) });
  await server.start();
  try {
    const ws = await openWs(server.url("ws", "ws"));
    assertEquals((await ws.call("net_version")).result, "901");
    await ws.close();
    // Over HTTP on the same port only eth is served.
    assertEquals((await rpc(server.url("http"), "net_version")).body.error.code, -32601);
  } finally {
    await server.stop();
  }
});

Deno.test("a JWT endpoint and a plain one cannot share a port; a failed start leaves nothing open", async () => {
  const port = freePort();
  const pool = new ListenerPool();
  const server = new RpcServer({
    endpoints: [
      endpoint({ name: "http", port }),
      endpoint({ name: "authrpc", port, jwtSecret: new Uint8Array(32), namespaces: ["engine"] }),
    ],
    limits: DEFAULT_RPC_LIMITS,
    version: "",
  }, { registry: makeRegistry(new HeadSource()), pool });
  const err = await assertRejects(() => server.start(), BaseError, "different JWT setting");
  assertEquals((err as BaseError).code, "RPC_LISTENER_CONFLICT");
  assertEquals(pool.size, 0);
  assertEquals(server.started, false);
});

Deno.test("a port in use is a clear error", async () => {
  const blocker = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const server = new RpcServer(
      {
        endpoints: [endpoint({ port: (blocker.addr as Deno.NetAddr).port })],
        limits: DEFAULT_RPC_LIMITS,
        version: "",
      },
      { registry: makeRegistry(new HeadSource()) },
    );
    await assertRejects(() => server.start(), BaseError, "Cannot listen on 127.0.0.1:");
  } finally {
    blocker.close();
  }
});

Deno.test("JWT endpoint over HTTP: 401 without a token, answers with one (injected clock)", async () => {
  const secret = new Uint8Array(32).fill(3);
  const now = 1_800_000_000;
  const server = new RpcServer(
    {
      endpoints: [endpoint({ name: "authrpc", jwtSecret: secret })],
      limits: DEFAULT_RPC_LIMITS,
      version: "",
    },
    { registry: makeRegistry(new HeadSource()), now: () => now },
  );
  await server.start();
  try {
    const url = server.url("authrpc");
    const denied = await rpc(url, "eth_blockNumber");
    assertEquals(denied.status, 401);
    const expired = await rpc(url, "eth_blockNumber", [], {
      authorization: `Bearer ${await createJwtToken(secret, now - 61)}`,
    });
    assertEquals(expired.status, 401);
    const ok = await rpc(url, "eth_blockNumber", [], {
      authorization: `Bearer ${await createJwtToken(secret, now)}`,
    });
    assertEquals(ok.body.result, "0x10");
  } finally {
    await server.stop();
  }
});

Deno.test("WebSocket subscriptions: notify, unsubscribe, errors, cleanup on close", async () => {
  const source = new HeadSource();
  const server = new RpcServer(
    {
      endpoints: [endpoint({ name: "ws", http: false, ws: true, namespaces: ["eth"] })],
      limits: DEFAULT_RPC_LIMITS,
      version: "",
    },
    { registry: makeRegistry(source) },
  );
  await server.start();
  try {
    const ws = await openWs(server.url("ws", "ws"));
    assertEquals((await ws.call("eth_blockNumber")).result, "0x10");

    const sub = await ws.call("eth_subscribe", ["newHeads"]);
    const id = sub.result as string;
    assertMatch(id, /^0x[0-9a-f]{1,32}$/);
    source.emitAll({ number: "0x11" });
    assertEquals(await ws.next(), {
      jsonrpc: "2.0",
      method: "eth_subscription",
      params: { subscription: id, result: { number: "0x11" } },
    });

    const unknown = await ws.call("eth_subscribe", ["nope"]);
    assertEquals(unknown.error, { code: -32601, message: `no "nope" subscription in eth namespace` });
    const badParam = await ws.call("eth_subscribe", ["newHeads", { full: "yes" }]);
    assertEquals(badParam.error?.code, -32602);
    assertStringIncludes(badParam.error?.message ?? "", "invalid argument 1: field 'full'");
    const noName = await ws.call("eth_subscribe", []);
    assertEquals(noName.error?.code, -32602);

    const sub2 = await ws.call("eth_subscribe", ["newHeads", { full: true }]);
    assertEquals(source.subs.size, 2);
    assertEquals(source.subs.get(sub2.result as string)?.full, true);

    assertEquals((await ws.call("eth_unsubscribe", [id])).result, true);
    assertEquals(source.cleanups, 1);
    assertEquals(source.subs.size, 1);
    assertEquals((await ws.call("eth_unsubscribe", [id])).error, {
      code: -32000,
      message: "subscription not found",
    });

    const ctx = source.subs.get(sub2.result as string)!.ctx;
    await ws.close();
    for (let i = 0; i < 100 && source.cleanups < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assertEquals(source.cleanups, 2);
    assertEquals(source.subs.size, 0);
    assert(ctx.signal.aborted);
  } finally {
    await server.stop();
  }
});

Deno.test("WebSocket: notifications emitted during start() follow the subscribe response", async () => {
  const server = new RpcServer(
    {
      endpoints: [endpoint({ name: "ws", http: false, ws: true, namespaces: ["eth"] })],
      limits: DEFAULT_RPC_LIMITS,
      version: "",
    },
    { registry: makeRegistry(new HeadSource()) },
  );
  await server.start();
  try {
    const ws = await openWs(server.url("ws", "ws"));
    const sub = await ws.call("eth_subscribe", ["syncing"]);
    assertEquals(typeof sub.result, "string");
    const first = await ws.next() as { params: { subscription: string; result: unknown } };
    const second = await ws.next() as { params: { subscription: string; result: unknown } };
    assertEquals(first.params, { subscription: sub.result, result: false });
    assertEquals(second.params, { subscription: sub.result, result: true });
    // Batches work over WebSocket too.
    ws.ws.send(JSON.stringify([
      { jsonrpc: "2.0", id: 7, method: "eth_blockNumber" },
      { jsonrpc: "2.0", id: 8, method: "eth_nope" },
    ]));
    const batch = await ws.next() as { id: number }[];
    assertEquals(batch.map((r) => r.id), [7, 8]);
    await ws.close();
  } finally {
    await server.stop();
  }
});

Deno.test("stop() closes open WebSocket connections with 1001", async () => {
  const server = new RpcServer(
    {
      endpoints: [endpoint({ name: "ws", http: false, ws: true, namespaces: ["eth"] })],
      limits: DEFAULT_RPC_LIMITS,
      version: "",
    },
    { registry: makeRegistry(new HeadSource()) },
  );
  await server.start();
  const ws = await openWs(server.url("ws", "ws"));
  await server.stop();
  const event = await ws.closed;
  assertEquals(event.code, 1001);
});

Deno.test("eth_subscribe over HTTP: notifications not supported", async () => {
  const server = new RpcServer(
    { endpoints: [endpoint({ namespaces: ["eth"] })], limits: DEFAULT_RPC_LIMITS, version: "" },
    { registry: makeRegistry(new HeadSource()) },
  );
  await server.start();
  try {
    const r = await rpc(server.url("http"), "eth_subscribe", ["newHeads"]);
    assertEquals(r.body.error, { code: -32601, message: "notifications not supported" });
  } finally {
    await server.stop();
  }
});

// --- A raw WebSocket client over TCP, to send headers and to stop reading. ---

async function rawHandshake(
  port: number,
  extraHeaders = "",
): Promise<{ conn: Deno.TcpConn; status: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const req = `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${extraHeaders}\r\n`;
  await conn.write(new TextEncoder().encode(req));
  let head = "";
  const buf = new Uint8Array(1);
  while (!head.endsWith("\r\n\r\n")) {
    const n = await conn.read(buf);
    if (n === null) break;
    head += String.fromCharCode(buf[0]);
  }
  return { conn, status: head.split("\r\n")[0] };
}

function maskedTextFrame(text: string): Uint8Array {
  const payload = new TextEncoder().encode(text);
  const mask = new Uint8Array([1, 2, 3, 4]);
  const header = payload.length < 126
    ? [0x81, 0x80 | payload.length]
    : [0x81, 0x80 | 126, payload.length >> 8, payload.length & 255];
  const out = new Uint8Array(header.length + 4 + payload.length);
  out.set(header, 0);
  out.set(mask, header.length);
  for (let i = 0; i < payload.length; i++) out[header.length + 4 + i] = payload[i] ^ mask[i % 4];
  return out;
}

Deno.test("WebSocket upgrade on a JWT endpoint needs the token", async () => {
  const secret = new Uint8Array(32).fill(5);
  const now = 1_800_000_000;
  const server = new RpcServer(
    {
      endpoints: [endpoint({ name: "authrpc", ws: true, jwtSecret: secret })],
      limits: DEFAULT_RPC_LIMITS,
      version: "",
    },
    { registry: makeRegistry(new HeadSource()), now: () => now },
  );
  await server.start();
  try {
    const port = server.address("authrpc").port;
    const denied = await rawHandshake(port);
    assertStringIncludes(denied.status, "401");
    denied.conn.close();
    const token = await createJwtToken(secret, now);
    const ok = await rawHandshake(port, `Authorization: Bearer ${token}\r\n`);
    assertStringIncludes(ok.status, "101");
    ok.conn.close();
  } finally {
    await server.stop();
  }
});

Deno.test("a WebSocket client that does not read is disconnected (send buffer limit)", async () => {
  const source = new HeadSource();
  const limits = { ...DEFAULT_RPC_LIMITS, wsSendBufferLimit: 64 * 1024 };
  const server = new RpcServer(
    {
      endpoints: [endpoint({ name: "ws", http: false, ws: true, namespaces: ["eth"] })],
      limits,
      version: "",
    },
    { registry: makeRegistry(source) },
  );
  await server.start();
  const { conn, status } = await rawHandshake(server.address("ws").port);
  try {
    assertStringIncludes(status, "101");
    await conn.write(
      maskedTextFrame(
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }),
      ),
    );
    await source.started.promise;
    await new Promise((r) => setTimeout(r, 20)); // let the response go out and the subscription activate
    const [sub] = [...source.subs.values()];
    const payload = "ab".repeat(5000); // ~10 KB per notification
    let sent = 0;
    // Up to 200 MB if nothing stopped it; the client never reads.
    for (; sent < 20_000 && !sub.ctx.signal.aborted; sent++) {
      sub.emit(payload);
      if (sent % 50 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    assert(sub.ctx.signal.aborted, "the slow reader's subscription was stopped");
    assert(sent < 20_000, `stopped after ${sent} notifications`);
    assertEquals(source.cleanups, 1);
    // The server stops even though the client still holds its socket open without reading.
    await server.stop();
  } finally {
    conn.close();
    await server.stop();
  }
});

Deno.test("WebSocket upgrade from a browser origin not in wsOrigins is refused", async () => {
  const server = new RpcServer({
    endpoints: [endpoint({ name: "ws", http: false, ws: true, wsOrigins: ["https://app.example"] })],
    limits: DEFAULT_RPC_LIMITS,
    version: "",
  }, { registry: makeRegistry(new HeadSource()) });
  await server.start();
  try {
    const port = server.address("ws").port;
    const evil = await rawHandshake(port, "Origin: https://evil.example\r\n");
    assertStringIncludes(evil.status, "403");
    evil.conn.close();
    const good = await rawHandshake(port, "Origin: https://app.example\r\n");
    assertStringIncludes(good.status, "101");
    good.conn.close();
    const noOrigin = await rawHandshake(port);
    assertStringIncludes(noOrigin.status, "101");
    noOrigin.conn.close();
  } finally {
    await server.stop();
  }
});
