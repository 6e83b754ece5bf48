import { assertEquals, assertStringIncludes } from "../../assert.ts";
import {
  createRpcApp,
  DEFAULT_RPC_LIMITS,
  isHostAllowed,
  isWsOriginAllowed,
  type ListenerConfig,
} from "../../../lib/rpc/http_app.ts";
import { createJwtToken } from "../../../lib/rpc/jwt.ts";
import { defineMethod, MethodRegistry } from "../../../lib/rpc/registry.ts";
import { NOOP_LOGGER } from "../../../lib/rpc/types.ts";

const registry = new MethodRegistry([{
  chainId: defineMethod({ name: "eth_chainId", params: [], handler: () => "0x385" }),
}]);
const BASE: ListenerConfig = {
  httpRegistry: registry,
  wsRegistry: registry,
  corsDomains: [],
  vhosts: ["localhost"],
  limits: DEFAULT_RPC_LIMITS,
  version: "v-test",
};
const NOW = 1_700_000_000;
const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] });

function app(overrides: Partial<ListenerConfig> = {}) {
  const config = { ...BASE, ...overrides };
  return createRpcApp(() => config, { logger: NOOP_LOGGER, now: () => NOW }).app;
}

function post(headers: Record<string, string> = {}, body: BodyInit = BODY): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", host: "localhost:8545", ...headers },
    body,
  };
}

Deno.test("POST JSON-RPC answers with application/json", async () => {
  const res = await app().request("http://localhost:8545/", post());
  assertEquals(res.status, 200);
  assertEquals(res.headers.get("content-type"), "application/json");
  assertEquals(await res.json(), { jsonrpc: "2.0", id: 1, result: "0x385" });
  const charset = await app().request("/", post({ "content-type": "application/json; charset=utf-8" }));
  assertEquals(charset.status, 200);
  await charset.body?.cancel();
});

Deno.test("all-notification request: 200 with an empty body", async () => {
  const res = await app().request("/", post({}, JSON.stringify({ jsonrpc: "2.0", method: "eth_chainId" })));
  assertEquals(res.status, 200);
  assertEquals(await res.text(), "");
});

Deno.test("GET /healthz is 200 with the version; plain GET / is 200; PUT is 405", async () => {
  const h = await app().request("/healthz");
  assertEquals(h.status, 200);
  assertEquals(await h.json(), { version: "v-test" });
  const g = await app().request("/", { headers: { host: "localhost" } });
  assertEquals(g.status, 200);
  await g.body?.cancel();
  const p = await app().request("/", { method: "PUT", headers: { host: "localhost" } });
  assertEquals(p.status, 405);
  await p.body?.cancel();
});

Deno.test("GET routes (restGet): their answer for their paths, 200 for others, after the vhost and JWT checks", async () => {
  const seen: string[] = [];
  const restGet = (path: string, query: URLSearchParams) => {
    seen.push(`${path}?${query}`);
    return path === "/eth/v1/beacon/genesis" ? Response.json({ data: { genesis_time: "7" } }) : undefined;
  };
  const a = app({ restGet });
  const hit = await a.request("/eth/v1/beacon/genesis?x=1", { headers: { host: "localhost" } });
  assertEquals([hit.status, await hit.json()], [200, { data: { genesis_time: "7" } }]);
  const other = await a.request("/other", { headers: { host: "localhost" } });
  assertEquals([other.status, await other.text()], [200, ""]);
  assertEquals(seen, ["/eth/v1/beacon/genesis?x=1", "/other?"]);
  const badHost = await a.request("/eth/v1/beacon/genesis", { headers: { host: "evil.example" } });
  assertEquals(badHost.status, 403);
  await badHost.body?.cancel();
  const jwt = await app({ restGet, jwtSecret: new Uint8Array(32).fill(7) }).request(
    "/eth/v1/beacon/genesis",
    {
      headers: { host: "localhost" },
    },
  );
  assertEquals(jwt.status, 401);
  await jwt.body?.cancel();
  assertEquals(seen.length, 2);
});

Deno.test("Content-Type other than JSON -> 415", async () => {
  const res = await app().request("/", post({ "content-type": "text/plain" }));
  assertEquals(res.status, 415);
  assertEquals(await res.text(), "invalid content type, only application/json is supported\n");
  const none = await app().request("/", { method: "POST", body: BODY, headers: { host: "localhost" } });
  assertEquals(none.status, 415);
  await none.body?.cancel();
});

Deno.test("body above the limit -> 413 (declared length and streamed body)", async () => {
  const small = { ...DEFAULT_RPC_LIMITS, bodyLimit: 100 };
  const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: ["x".repeat(200)] });
  const res = await app({ limits: small }).request("/", post({ "content-length": String(big.length) }, big));
  assertEquals(res.status, 413);
  assertStringIncludes(await res.text(), "content length too large");
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode(big));
      c.close();
    },
  });
  const streamed = await app({ limits: small }).request("/", post({}, stream));
  assertEquals(streamed.status, 413);
  await streamed.body?.cancel();
  // The default is geth's 5 MiB.
  assertEquals(DEFAULT_RPC_LIMITS.bodyLimit, 5 * 1024 * 1024);
});

Deno.test("vhosts: names must be listed, IPs always pass, '*' lets all pass -> else 403", async () => {
  const bad = await app().request("/", post({ host: "evil.example:8545" }));
  assertEquals(bad.status, 403);
  assertEquals(await bad.text(), "invalid host specified\n");
  const ip = await app().request("/", post({ host: "10.1.2.3:8545" }));
  assertEquals(ip.status, 200);
  await ip.body?.cancel();
  const star = await app({ vhosts: ["*"] }).request("/", post({ host: "evil.example" }));
  assertEquals(star.status, 200);
  await star.body?.cancel();
  assertEquals(isHostAllowed("LocalHost:1", ["localhost"]), true);
  assertEquals(isHostAllowed("[::1]:8545", []), true);
  assertEquals(isHostAllowed("node.internal", ["a", "node.internal"]), true);
  assertEquals(isHostAllowed("node.internal", ["a"]), false);
});

Deno.test("CORS: preflight and response headers for allowed origins only", async () => {
  const a = app({ corsDomains: ["https://app.example"] });
  const pre = await a.request("/", {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type",
    },
  });
  assertEquals(pre.status, 204);
  assertEquals(pre.headers.get("access-control-allow-origin"), "https://app.example");
  assertStringIncludes(pre.headers.get("access-control-allow-methods") ?? "", "POST");
  assertEquals(pre.headers.get("access-control-allow-headers"), "content-type");

  const other = await a.request("/", { method: "OPTIONS", headers: { origin: "https://evil.example" } });
  assertEquals(other.headers.get("access-control-allow-origin"), null);

  const res = await a.request("/", post({ origin: "https://app.example" }));
  assertEquals(res.headers.get("access-control-allow-origin"), "https://app.example");
  await res.body?.cancel();
  const res2 = await a.request("/", post({ origin: "https://evil.example" }));
  assertEquals(res2.headers.get("access-control-allow-origin"), null);
  await res2.body?.cancel();

  const any = await app({ corsDomains: ["*"] }).request("/", post({ origin: "https://x.example" }));
  assertEquals(any.headers.get("access-control-allow-origin"), "https://x.example");
  await any.body?.cancel();

  const off = await app().request("/", { method: "OPTIONS", headers: { origin: "https://app.example" } });
  assertEquals(off.status, 405);
  await off.body?.cancel();
});

Deno.test("JWT listener: 401 without a valid token, 200 with one, /healthz open", async () => {
  const secret = new Uint8Array(32).fill(7);
  const a = app({ jwtSecret: secret });
  const missing = await a.request("/", post());
  assertEquals(missing.status, 401);
  assertEquals(await missing.text(), "missing token\n");
  const stale = await a.request(
    "/",
    post({ authorization: `Bearer ${await createJwtToken(secret, NOW - 120)}` }),
  );
  assertEquals(stale.status, 401);
  assertEquals(await stale.text(), "stale token\n");
  const garbage = await a.request("/", post({ authorization: "Bearer abc.def.ghi" }));
  assertEquals(garbage.status, 401);
  await garbage.body?.cancel();
  const ok = await a.request("/", post({ authorization: `Bearer ${await createJwtToken(secret, NOW)}` }));
  assertEquals(ok.status, 200);
  assertEquals(await ok.json(), { jsonrpc: "2.0", id: 1, result: "0x385" });
  const health = await a.request("/healthz");
  assertEquals(health.status, 200);
  await health.body?.cancel();
});

Deno.test("a listener without HTTP JSON-RPC answers 404 to POST", async () => {
  const res = await app({ httpRegistry: undefined }).request("/", post());
  assertEquals(res.status, 404);
  await res.body?.cancel();
});

Deno.test("WebSocket origins follow geth's rule", () => {
  assertEquals(isWsOriginAllowed(undefined, []), true);
  assertEquals(isWsOriginAllowed("http://localhost", []), true);
  assertEquals(isWsOriginAllowed("http://localhost:3000", []), true);
  assertEquals(isWsOriginAllowed("https://evil.example", []), false);
  assertEquals(isWsOriginAllowed("https://evil.example", ["*"]), true);
  assertEquals(isWsOriginAllowed("https://app.example", ["app.example"]), true);
  assertEquals(isWsOriginAllowed("https://app.example", ["http://app.example"]), false);
  assertEquals(isWsOriginAllowed("https://app.example:8443", ["https://app.example:8443"]), true);
  assertEquals(isWsOriginAllowed("https://app.example:9000", ["https://app.example:8443"]), false);
  assertEquals(isWsOriginAllowed("not a url", ["app.example"]), false);
});
