/** newHeads wired to a real ExecutionEngine (memory store, dev genesis) and DevMiner, over a real WebSocket. */
import { assertEquals } from "../../../../assert.ts";
import { bytesToHex } from "../../../../../lib/common/mod.ts";
import {
  DEFAULT_RPC_ENDPOINT,
  DEFAULT_RPC_LIMITS,
  MethodRegistry,
  RpcServer,
} from "../../../../../lib/rpc/mod.ts";
import { buildDevGenesis } from "../../../../../lib/execution/genesis/mod.ts";
import { DevMiner, ExecutionEngine } from "../../../../../lib/execution/engine/mod.ts";
import { ethSubscriptions } from "../../../../../lib/execution/rpc/subscriptions/mod.ts";

Deno.test("newHeads from the engine: each sealed block's header, equal to the stored head", async () => {
  const engine = await ExecutionEngine.open({ genesis: buildDevGenesis({ upTo: "isthmus" }) });
  const server = new RpcServer(
    {
      endpoints: [{
        ...DEFAULT_RPC_ENDPOINT,
        name: "ws",
        port: 0,
        http: false,
        ws: true,
        namespaces: ["eth"],
      }],
      limits: DEFAULT_RPC_LIMITS,
      version: "test",
    },
    {
      registry: new MethodRegistry([
        ethSubscriptions({
          onNewHeads: (cb) => engine.onNewHeads(cb),
          onPending: () => () => {},
        }),
      ]),
    },
  );
  await server.start();
  const ws = new WebSocket(server.url("ws", "ws"));
  const messages: Record<string, unknown>[] = [];
  let wake: (() => void) | undefined;
  ws.onmessage = (e) => {
    messages.push(JSON.parse(e.data as string));
    wake?.();
  };
  const closed = new Promise((r) => ws.addEventListener("close", r));
  const next = async () => {
    while (messages.length === 0) await new Promise<void>((r) => (wake = r));
    return messages.shift()!;
  };
  try {
    await new Promise((r) => (ws.onopen = r));
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }));
    const sub = (await next()).result;
    const logsSub = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "eth_subscribe", params: ["logs", {}] });
    ws.send(logsSub);
    const logs = (await next()).result;
    const miner = new DevMiner({ period: 0 }, { engine, now: () => 1_800_000_000 });
    for (let i = 1n; i <= 2n; i++) {
      await miner.mine({ allowEmpty: true });
      const m = await next();
      const params = m.params as { subscription: string; result: Record<string, string> };
      assertEquals(params.subscription, sub);
      const head = engine.head();
      assertEquals(params.result.number, `0x${i.toString(16)}`);
      assertEquals(params.result.hash, bytesToHex(head.hash));
      assertEquals(params.result.stateRoot, bytesToHex(head.header.stateRoot));
      assertEquals(params.result.parentBeaconBlockRoot !== undefined, true);
    }
    // The L1-info deposit emits no logs, so the logs subscription stayed silent.
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "eth_unsubscribe", params: [logs] }));
    assertEquals((await next()).result, true);
    assertEquals(messages.length, 0);
    await miner.stop();
  } finally {
    ws.close();
    await closed;
    await server.stop();
    await engine.close();
  }
});
