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
