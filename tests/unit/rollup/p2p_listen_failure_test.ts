/**
 * A p2p port that cannot be bound stops the host's start with an error naming the port, its option
 * and the reason, at once: a taken TCP port (libp2p's own message named its options and carried a
 * stack trace) and a taken UDP port (discv5 11 waited for ever on the bind, so the node never
 * started and never said why).
 */
import dgram from "node:dgram";
import { assert, assertEquals, assertRejects } from "../../assert.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { isListenFailure, listenFailure } from "../../../lib/rollup/p2p/listen_failure.ts";
import { testHost } from "./p2p_helpers.ts";

/** Rejects after `ms` unless `p` settles first (a start that hangs fails the test instead of stalling it). */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

Deno.test("listenFailure: the usual socket codes in words, from an error's code or its message; else the first line", () => {
  assertEquals(
    listenFailure(Object.assign(new Error("bind EADDRINUSE 0.0.0.0:9222"), { code: "EADDRINUSE" })),
    "address already in use (EADDRINUSE)",
  );
  assertEquals(
    listenFailure(
      new Error(
        "Some configured addresses failed to be listened on, ...:\n\n  /ip4/0.0.0.0/tcp/80: Error: listen EACCES: permission denied 0.0.0.0:80\n    at x (y.ts:1:2)",
      ),
    ),
    "permission denied (ports below 1024 need privileges) (EACCES)",
  );
  assertEquals(
    listenFailure(new Error("bind EADDRNOTAVAIL 10.9.9.9:9222")),
    "no such address on this host (EADDRNOTAVAIL)",
  );
  assertEquals(listenFailure(new Error("something else\n    at x (y.ts:1:2)")), "something else");
  assertEquals(listenFailure("plain"), "plain");
  // What counts as a bind failure (the host words those; anything else it leaves as it is).
  assertEquals(isListenFailure(Object.assign(new Error("x"), { code: "EADDRINUSE" })), true);
  assertEquals(isListenFailure(new Error("Some configured addresses failed to be listened on, ...")), true);
  assertEquals(isListenFailure(new Error("invalid multiaddr")), false);
});

Deno.test("p2p host: a taken TCP port is refused with the port, the options and the reason", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  const host = testHost(901n, { listenTcp: port });
  try {
    const e = await within(assertRejects(() => host.start()), 15_000);
    assert(isErrorCode(e, "P2P_LISTEN"), String(e));
    assertEquals(
      (e as Error).message,
      `Cannot listen for p2p on TCP 127.0.0.1:${port} (--p2p.listen.ip, --p2p.listen.tcp): address already in use (EADDRINUSE)`,
    );
  } finally {
    await host.stop();
    taken.close();
  }
});

Deno.test("p2p host: a taken UDP port stops discovery's start at once, with the port, the options and the reason", async () => {
  const taken = dgram.createSocket({ type: "udp4" });
  await new Promise<void>((resolve) => taken.bind(0, "127.0.0.1", () => resolve()));
  const udp = taken.address().port;
  const host = testHost(901n, {
    discovery: { listenUdp: udp, advertiseTcp: 0, advertiseUdp: 0, bootnodes: [], intervalMs: 300 },
  });
  try {
    const e = await within(assertRejects(() => host.start()), 15_000);
    assert(isErrorCode(e, "DISCOVERY_START"), String(e));
    assertEquals(
      (e as Error).message,
      `Cannot start discovery on UDP 127.0.0.1:${udp} (--p2p.listen.ip, --p2p.listen.udp): address already in use (EADDRINUSE)`,
    );
  } finally {
    await host.stop();
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  }
});
