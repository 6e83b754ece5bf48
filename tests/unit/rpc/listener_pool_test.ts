import { assertEquals, assertNotEquals, assertRejects } from "../../assert.ts";
import { BaseError } from "../../../lib/common/mod.ts";
import { DEFAULT_RPC_LIMITS } from "../../../lib/rpc/http_app.ts";
import { type ListenerMount, ListenerPool } from "../../../lib/rpc/listener_pool.ts";
import { defineMethod, MethodRegistry } from "../../../lib/rpc/registry.ts";

const a = new MethodRegistry([{ m: defineMethod({ name: "a_one", params: [], handler: () => "a" }) }]);
const b = new MethodRegistry([{ m: defineMethod({ name: "b_one", params: [], handler: () => "b" }) }]);
const clash = new MethodRegistry([{
  m: defineMethod({ name: "a_one", params: [], handler: () => "other" }),
}]);

function mount(port: number, overrides: Partial<ListenerMount> = {}): ListenerMount {
  return {
    owner: "test",
    addr: "127.0.0.1",
    port,
    httpRegistry: a,
    corsDomains: [],
    vhosts: ["localhost"],
    limits: DEFAULT_RPC_LIMITS,
    version: "",
    ...overrides,
  };
}

async function call(port: number, method: string): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${port}/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method }),
  });
  return await res.json();
}

Deno.test("port 0 mounts never share; fixed ports do", async () => {
  const pool = new ListenerPool();
  const m1 = await pool.attach(mount(0));
  const m2 = await pool.attach(mount(0, { httpRegistry: b }));
  try {
    assertNotEquals(m1.address.port, m2.address.port);
    assertEquals(pool.size, 2);
    // A port-0 listener is private: a fixed-port mount on its port does not join it.
    const err = await assertRejects(
      () => pool.attach(mount(m1.address.port, { httpRegistry: b })),
      BaseError,
    );
    assertEquals((err as BaseError).code, "RPC_LISTEN_FAILED");
    assertEquals(pool.size, 2);
  } finally {
    await m1.detach();
    await m2.detach();
    await m1.detach();
  }
  assertEquals(pool.size, 0);
});

Deno.test("conflicting method definitions on one port are refused; the listener keeps serving", async () => {
  const pool = new ListenerPool();
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const first = await pool.attach(mount(port));
  try {
    await assertRejects(
      () => pool.attach(mount(port, { owner: "second", httpRegistry: clash })),
      BaseError,
      "a_one",
    );
    const second = await pool.attach(mount(port, { httpRegistry: b, corsDomains: ["*"] }));
    assertEquals(await call(port, "b_one"), { jsonrpc: "2.0", id: 1, result: "b" });
    assertEquals(await call(port, "a_one"), { jsonrpc: "2.0", id: 1, result: "a" });
    await second.detach();
    assertEquals((await call(port, "b_one") as { error: { code: number } }).error.code, -32601);
  } finally {
    await first.detach();
  }
  assertEquals(pool.size, 0);
});

Deno.test("closeAll closes every listener", async () => {
  const pool = new ListenerPool();
  await pool.attach(mount(0));
  await pool.attach(mount(0));
  assertEquals(pool.size, 2);
  await pool.closeAll();
  assertEquals(pool.size, 0);
});

Deno.test("call hooks: each role sharing a port hears the calls of its own methods, with a duration", async () => {
  const pool = new ListenerPool();
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const heard: string[] = [];
  const first = await pool.attach(mount(port, {
    onCall: (method, seconds) => heard.push(`first ${method} ${seconds >= 0}`),
  }));
  const second = await pool.attach(mount(port, {
    owner: "second",
    httpRegistry: b,
    onCall: (method) => heard.push(`second ${method}`),
  }));
  try {
    await call(port, "a_one");
    await call(port, "b_one");
    await call(port, "none_such");
    assertEquals(heard, ["first a_one true", "second b_one"]);
  } finally {
    await second.detach();
    await first.detach();
  }
});

Deno.test("rpc_modules (geth's): the namespaces a port serves, of every role on it, and rpc; each transport its own", async () => {
  const pool = new ListenerPool();
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const first = await pool.attach(mount(port));
  const second = await pool.attach(mount(port, { owner: "second", httpRegistry: undefined, wsRegistry: b }));
  const alone = await pool.attach(mount(0, { httpRegistry: b }));
  try {
    assertEquals(await call(port, "rpc_modules"), {
      jsonrpc: "2.0",
      id: 1,
      result: { a: "1.0", rpc: "1.0" },
    });
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
    const answer = await new Promise<unknown>((resolve, reject) => {
      ws.onopen = () => ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "rpc_modules" }));
      ws.onmessage = (e) => resolve(JSON.parse(e.data));
      ws.onerror = () => reject(new Error("ws error"));
    });
    ws.close();
    assertEquals(answer, { jsonrpc: "2.0", id: 1, result: { b: "1.0", rpc: "1.0" } });
    assertEquals(await call(alone.address.port, "rpc_modules"), {
      jsonrpc: "2.0",
      id: 1,
      result: { b: "1.0", rpc: "1.0" },
    });
    // A role leaving takes its namespaces with it.
    await second.detach();
    const third = await pool.attach(mount(port, { owner: "third", httpRegistry: b }));
    assertEquals(await call(port, "rpc_modules"), {
      jsonrpc: "2.0",
      id: 1,
      result: { a: "1.0", b: "1.0", rpc: "1.0" },
    });
    await third.detach();
  } finally {
    await second.detach();
    await first.detach();
    await alone.detach();
  }
});
