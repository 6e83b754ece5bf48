/**
 * The node's L1 request limits are global (spec 4.5 `l1.rpc-rate-limit`: a "self-imposed global L1
 * request limit"; `l1.max-concurrency`): the L1 clients a node builds take from one RequestLimiter
 * (lib/node/l1_rpc.ts l1Limiter), so together they stay within --l1.max-concurrency and
 * --l1.rpc-rate-limit; and a ws:// --l1 gets the WebSocket client.
 */
import { parseArgs, type ParsedNode } from "../../../lib/config/mod.ts";
import { InstrumentedRpcClient, l1Limiter, l1Rpc } from "../../../lib/node/l1_rpc.ts";
import { WsJsonRpcClient } from "../../../lib/rpc/mod.ts";
import { assert, assertEquals } from "../../assert.ts";

function node(...argv: string[]): ParsedNode["options"] {
  const parsed = parseArgs(["node", "--network=op-mainnet", ...argv], {});
  if (parsed.command !== "node") throw new Error(parsed.command);
  return parsed.options;
}

/** An HTTP JSON-RPC server answering after `delayMs`: the requests in flight at most, and when each came. */
async function withCountingServer(
  delayMs: number,
  fn: (url: string, stats: { peak: number; times: number[] }) => Promise<void>,
): Promise<void> {
  const stats = { peak: 0, times: [] as number[] };
  let inFlight = 0;
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    async (req) => {
      const body = await req.json();
      const n = Array.isArray(body) ? body.length : 1;
      inFlight += n;
      stats.peak = Math.max(stats.peak, inFlight);
      for (let i = 0; i < n; i++) stats.times.push(performance.now());
      await new Promise((r) => setTimeout(r, delayMs));
      inFlight -= n;
      const answer = (r: { id: number }) => ({ jsonrpc: "2.0", id: r.id, result: "0x1" });
      return Response.json(Array.isArray(body) ? body.map(answer) : answer(body));
    },
  );
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, stats);
  } finally {
    ac.abort();
    await server.finished;
  }
}

Deno.test("l1 rpc: two clients on the node's limiter stay within --l1.max-concurrency together", async () => {
  await withCountingServer(30, async (url, stats) => {
    const options = node(`--l1=${url}`, "--l1.max-concurrency=3");
    const limiter = l1Limiter(options);
    // As the node builds them: derivation's (counted) and another reader's (the p2p signer's).
    const metrics = { recordRpcClientRequest() {}, recordRpcClientBatch() {} };
    const a = l1Rpc(options, metrics, limiter);
    const b = l1Rpc(options, undefined, limiter);
    assert(a instanceof InstrumentedRpcClient && a.inner.limiter === limiter && b.limiter === limiter);
    await Promise.all([
      ...Array.from({ length: 6 }, () => a.call("eth_blockNumber")),
      ...Array.from({ length: 6 }, () => b.call("eth_blockNumber")),
      b.batch([{ method: "eth_blockNumber" }]),
    ]);
    assertEquals(stats.times.length, 13);
    assertEquals(stats.peak, 3);
  });
});

Deno.test("l1 rpc: two clients on the node's limiter stay within --l1.rpc-rate-limit together", async () => {
  await withCountingServer(0, async (url, stats) => {
    // 10 a second with bursts of 10: 20 requests need about a second, whichever clients send them.
    const options = node(`--l1=${url}`, "--l1.rpc-rate-limit=10", "--l1.max-concurrency=100");
    const limiter = l1Limiter(options);
    const a = l1Rpc(options, undefined, limiter);
    const b = l1Rpc(options, undefined, limiter);
    const start = performance.now();
    await Promise.all([
      ...Array.from({ length: 5 }, () => a.call("eth_blockNumber")),
      a.batch(Array.from({ length: 5 }, () => ({ method: "eth_blockNumber" }))),
      ...Array.from({ length: 10 }, () => b.call("eth_blockNumber")),
    ]);
    assertEquals(stats.times.length, 20);
    // Within any 500 ms window at most the burst plus what refills in it: 10 + 5.
    const t = stats.times.toSorted((x, y) => x - y);
    for (let i = 0; i < t.length; i++) {
      const inWindow = t.filter((x) => x >= t[i] && x < t[i] + 500).length;
      assert(inWindow <= 15, `${inWindow} requests within 500 ms`);
    }
    assert(performance.now() - start >= 900, `${performance.now() - start} ms`);
  });
});

Deno.test("l1 rpc: a ws:// --l1 gets the WebSocket client, http:// the HTTP one", async () => {
  const ws = l1Rpc(node("--l1=ws://127.0.0.1:1"));
  assert(ws instanceof WsJsonRpcClient);
  assertEquals(ws.options.timeoutMs, 30_000);
  await ws.close();
  const counted = l1Rpc(node("--l1=wss://l1.example/key"), {
    recordRpcClientRequest() {},
    recordRpcClientBatch() {},
  });
  assert(counted instanceof InstrumentedRpcClient && counted.inner instanceof WsJsonRpcClient);
  await counted.close();
  assert(!(l1Rpc(node("--l1=http://127.0.0.1:1")) instanceof WsJsonRpcClient));
});
