import { assertEquals, assertRejects } from "../../../assert.ts";
import { BeaconClient } from "../../../../lib/rollup/l1/mod.ts";

Deno.test("beacon client: the node version (the start-up health check), a fallback, and a dead endpoint", async () => {
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    (req) =>
      new URL(req.url).pathname === "/eth/v1/node/version"
        ? Response.json({ data: { version: "Lighthouse/v7.0.0" } })
        : new Response("no", { status: 404 }),
  );
  const dead = "http://127.0.0.1:9"; // discard port: nothing answers
  try {
    const url = `http://127.0.0.1:${server.addr.port}`;
    assertEquals(await new BeaconClient(url).version(), "Lighthouse/v7.0.0");
    assertEquals(await new BeaconClient(dead, { fallbacks: [url] }).version(), "Lighthouse/v7.0.0");
    await assertRejects(() => new BeaconClient(dead, { timeoutMs: 2_000 }).version(), Error, "beacon node");
  } finally {
    ac.abort();
    await server.finished;
  }
});
