import { BaseError } from "../../../lib/common/errors.ts";
import { Metrics } from "../../../lib/common/metrics.ts";
import { MetricsServer } from "../../../lib/node/metrics_server.ts";
import { assertEquals, assertRejects, assertStringIncludes, assertThrows } from "../../assert.ts";

Deno.test("GET /metrics serves Prometheus text on a real port; start and stop are idempotent", async () => {
  const metrics = new Metrics({ lagProbeIntervalMs: 0 });
  metrics.recordUp();
  metrics.recordRpcServerRequest("eth_chainId", 0.001);
  const server = new MetricsServer({ addr: "127.0.0.1", port: 0 }, { metrics });
  assertThrows(() => server.port, BaseError, "not started");
  await server.start();
  await server.start();
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const res = await fetch(`${base}/metrics`);
    assertEquals(res.status, 200);
    assertStringIncludes(res.headers.get("content-type")!, "text/plain; version=0.0.4");
    const text = await res.text();
    assertStringIncludes(text, "op_node_default_up 1\n");
    assertStringIncludes(text, 'op_node_default_rpc_server_requests_total{method="eth_chainId"} 1\n');
    assertStringIncludes(text, "process_resident_memory_bytes ");

    const missing = await fetch(`${base}/other`);
    assertEquals(missing.status, 404);
    await missing.body?.cancel();
    const post = await fetch(`${base}/metrics`, { method: "POST" });
    assertEquals(post.status, 405);
    await post.body?.cancel();
  } finally {
    await server.stop();
    await server.stop();
  }
  assertThrows(() => server.port, BaseError, "not started");
});

Deno.test("a taken port fails start with a clear error", async () => {
  const metrics = new Metrics({ lagProbeIntervalMs: 0 });
  const first = new MetricsServer({ addr: "127.0.0.1", port: 0 }, { metrics });
  await first.start();
  try {
    const second = new MetricsServer({ addr: "127.0.0.1", port: first.port }, { metrics });
    await assertRejects(
      () => second.start(),
      BaseError,
      `Cannot start the metrics server on 127.0.0.1:${first.port}`,
    );
  } finally {
    await first.stop();
  }
});
