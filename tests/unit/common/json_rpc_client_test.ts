import { isErrorCode } from "../../../lib/common/errors.ts";
import { JsonRpcClient } from "../../../lib/common/json_rpc_client.ts";
import { assert, assertEquals, assertRejects } from "../../assert.ts";

/** A JSON-RPC server on 127.0.0.1: eth_chainId answers, "fail" errors, "slow" never answers in time. */
async function withServer(fn: (url: string, seen: Headers[]) => Promise<void>): Promise<void> {
  const seen: Headers[] = [];
  const ac = new AbortController();
  const answer = (r: { id: number; method: string }) =>
    r.method === "eth_chainId"
      ? { jsonrpc: "2.0", id: r.id, result: "0x385" }
      : { jsonrpc: "2.0", id: r.id, error: { code: -32000, message: `no ${r.method}`, data: "0xdead" } };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    async (req) => {
      seen.push(req.headers);
      const body = await req.json();
      if (!Array.isArray(body) && body.method === "slow") {
        await new Promise((r) => setTimeout(r, 300));
        return Response.json(answer(body));
      }
      if (!Array.isArray(body) && body.method === "http500") return new Response("boom", { status: 500 });
      // Batch answers come back in reverse order: the client matches them by id.
      return Response.json(Array.isArray(body) ? body.map(answer).reverse() : answer(body));
    },
  );
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, seen);
  } finally {
    ac.abort();
    await server.finished;
  }
}

Deno.test("json-rpc client: calls, batches matched by id, headers", async () => {
  await withServer(async (url, seen) => {
    const c = new JsonRpcClient(url, { headers: () => ({ authorization: "Bearer x" }) });
    assertEquals(await c.call("eth_chainId"), "0x385");
    assertEquals(await c.batch([{ method: "eth_chainId" }, { method: "eth_chainId", params: [] }]), [
      "0x385",
      "0x385",
    ]);
    assertEquals(await c.batch([]), []);
    assertEquals(seen[0].get("authorization"), "Bearer x");
  });
});

Deno.test("json-rpc client: server errors, HTTP errors, timeouts and dead servers are BaseErrors", async () => {
  await withServer(async (url) => {
    const c = new JsonRpcClient(url, { timeoutMs: 100 });
    const e1 = await assertRejects(() => c.call("eth_nope"));
    assert(isErrorCode(e1, "RPC_ERROR") && (e1 as Error).message === "eth_nope failed: no eth_nope");
    assertEquals((e1 as { meta?: { code?: number } }).meta?.code, -32000);
    const e2 = await assertRejects(() => c.batch([{ method: "eth_chainId" }, { method: "eth_nope" }]));
    assert(isErrorCode(e2, "RPC_ERROR"));
    const e3 = await assertRejects(() => c.call("http500"));
    assert(isErrorCode(e3, "RPC_TRANSPORT") && (e3 as Error).message.includes("HTTP 500"));
    const e4 = await assertRejects(() => c.call("slow"));
    assert(isErrorCode(e4, "RPC_TRANSPORT"));
  });
  const dead = new JsonRpcClient("http://127.0.0.1:9", { timeoutMs: 500 });
  assert(isErrorCode(await assertRejects(() => dead.call("eth_chainId")), "RPC_TRANSPORT"));
});

/** A server answering eth_chainId after `delayMs`, counting the requests in flight at once. */
async function withCountingServer(
  delayMs: number,
  fn: (url: string, stats: { peak: number; requests: number }) => Promise<void>,
) {
  const stats = { peak: 0, requests: 0 };
  let inFlight = 0;
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    async (req) => {
      inFlight++;
      stats.requests++;
      stats.peak = Math.max(stats.peak, inFlight);
      const body = await req.json();
      await new Promise((r) => setTimeout(r, delayMs));
      inFlight--;
      const one = (r: { id: number }) => ({ jsonrpc: "2.0", id: r.id, result: "0x1" });
      return Response.json(Array.isArray(body) ? body.map(one) : one(body));
    },
  );
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, stats);
  } finally {
    ac.abort();
    await server.finished;
  }
}

Deno.test("json-rpc client: at most maxConcurrency requests in flight (--l1.max-concurrency)", async () => {
  await withCountingServer(50, async (url, stats) => {
    const rpc = new JsonRpcClient(url, { maxConcurrency: 3 });
    const results = await Promise.all(Array.from({ length: 12 }, () => rpc.call("eth_chainId")));
    assertEquals(results.length, 12);
    assertEquals(stats.peak, 3);
  });
  await withCountingServer(50, async (url, stats) => {
    await Promise.all(Array.from({ length: 12 }, () => new JsonRpcClient(url).call("eth_chainId")));
    assert(stats.peak > 3, `peak ${stats.peak} without a limit`);
  });
});

Deno.test("json-rpc client: at most rateLimit requests a second, a batch counting its calls (--l1.rpc-rate-limit)", async () => {
  await withCountingServer(0, async (url) => {
    const rpc = new JsonRpcClient(url, { rateLimit: 20 });
    const t0 = performance.now();
    // A burst of 20 goes at once; 10 more wait for their tokens (~0.5 s); a batch of 10 another ~0.5 s.
    await Promise.all(Array.from({ length: 30 }, () => rpc.call("eth_chainId")));
    const calls = performance.now() - t0;
    assert(calls >= 400 && calls < 1_500, `30 calls took ${calls.toFixed(0)} ms`);
    const t1 = performance.now();
    await rpc.batch(Array.from({ length: 10 }, () => ({ method: "eth_chainId" })));
    const batch = performance.now() - t1;
    assert(batch >= 400, `the batch of 10 took ${batch.toFixed(0)} ms`);
  });
});
