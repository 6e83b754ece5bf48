/**
 * WebSocket endpoints for `keel node` (spec 4.5 `l1`, `l2`): real processes on 127.0.0.1.
 * - `--l1=ws://...`: the node derives the sequencer's chain from anvil (which serves WebSocket
 *   JSON-RPC on its HTTP port) over one WebSocket, as node_verifier_anvil_test.ts does over HTTP.
 * - `--l2=ws://...`: the node drives a separate `keel execution` over its authrpc WebSocket, the JWT in
 *   the upgrade request, while deriving from anvil over ws:// too.
 */
import { bytesToHex } from "../../lib/common/bytes.ts";
import { JsonRpcClient } from "../../lib/common/json_rpc_client.ts";
import { rollupConfigToJson } from "../../lib/protocol/rollup_config_json.ts";
import { L1Client } from "../../lib/rollup/l1/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import {
  anvilForTest,
  freePort,
  opChainOnAnvil,
  type RpcAnswer,
  rpcCall,
  startAnvil,
} from "./helpers/mod.ts";
import { type KeelProcess, spawnKeel } from "./helpers/sequencer.ts";

const tool = await anvilForTest("node_ws_anvil_test");

const L2_BLOCKS = 12;

/** `keel <args>` under the binary's permission set; its output joins `log`. */
function spawn(args: string[], log: Log): KeelProcess {
  const p = spawnKeel(args[0], args.slice(1));
  log.procs.push(p);
  return p;
}

/** The output of every process a test started, in order. */
class Log {
  readonly procs: KeelProcess[] = [];
  get out(): string {
    return this.procs.map((p) => p.output()).join("\n");
  }
}

/** The node's safe head once it reached `number` (or the last seen after two minutes). */
async function waitSafe(rpcUrl: string, number: number): Promise<RpcAnswer["result"]> {
  let safe: RpcAnswer["result"];
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && !(safe?.number >= number)) {
    await new Promise((r) => setTimeout(r, 250));
    safe = await rpcCall(rpcUrl, "rollupnode_syncStatus")
      .then((r) => (r as RpcAnswer).result?.safe_l2, () => undefined);
  }
  return safe;
}

Deno.test({
  name: "keel node derives an L2 chain from anvil over --l1=ws://",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-ws-l1-" });
    const log = new Log();
    const procs: ReturnType<typeof spawn>[] = [];
    try {
      const rpc = new JsonRpcClient(anvil.url);
      const chain = await opChainOnAnvil(rpc, new L1Client(rpc), L2_BLOCKS);
      await Deno.writeTextFile(`${dir}/genesis.json`, JSON.stringify(chain.genesisJson));
      await Deno.writeTextFile(`${dir}/rollup.json`, JSON.stringify(rollupConfigToJson(chain.cfg)));
      const [port, authPort, metricsPort] = [freePort(), freePort(), freePort()];
      const wsL1 = anvil.url.replace(/^http:/, "ws:");
      procs.push(spawn([
        "node",
        `--rollup.config=${dir}/rollup.json`,
        `--genesis=${dir}/genesis.json`,
        `--l1=${wsL1}`,
        // Longer than the test waits below: a new L1 head must come by the newHeads subscription.
        "--l1.http-poll-interval=30s",
        "--l1.max-concurrency=4",
        "--l1.rpc-rate-limit=500",
        "--rpc.addr=127.0.0.1",
        `--rpc.port=${port}`,
        "--http",
        `--http.port=${port}`,
        `--authrpc.port=${authPort}`,
        `--datadir=${dir}/data`,
        `--p2p.priv.path=${dir}/p2p.txt`,
        "--p2p.peerstore.path=memory",
        "--p2p.listen.ip=127.0.0.1",
        `--p2p.listen.tcp=${freePort()}`,
        "--metrics.enabled",
        "--metrics.addr=127.0.0.1",
        `--metrics.port=${metricsPort}`,
      ], log));
      const url = `http://127.0.0.1:${port}`;
      const safe = await waitSafe(url, L2_BLOCKS);
      assertEquals(safe?.number, L2_BLOCKS, log.out);
      const last = chain.blocks[L2_BLOCKS - 1];
      assertEquals(safe.hash, bytesToHex(last.blockHash));
      const block =
        ((await rpcCall(url, "eth_getBlockByNumber", [`0x${L2_BLOCKS.toString(16)}`, false])) as RpcAnswer)
          .result;
      assertEquals(block.hash, bytesToHex(last.blockHash));
      // A new L1 block reaches the node by its newHeads subscription, long before the next poll.
      const headL1 = async () =>
        Number(((await rpcCall(url, "rollupnode_syncStatus")) as RpcAnswer).result.head_l1.number);
      const before = await headL1();
      await rpcCall(anvil.url, "evm_mine");
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && await headL1() === before) await new Promise((r) => setTimeout(r, 100));
      assertEquals(await headL1(), before + 1, log.out.slice(-4000));
      // Over the WebSocket: the client said so, and the scheme error of the HTTP client is gone.
      assert(log.out.includes("WebSocket RPC connected"), log.out.slice(-4000));
      assert(!log.out.includes("not supported"), log.out.slice(-4000));
      // The L1 reads over it are counted as op-node counts them, the batched ones included.
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      assert(
        /op_node_default_rpc_client_requests_total\{method="eth_getBlockByNumber"\} [1-9]/.test(metrics),
        metrics.slice(0, 2000),
      );
      for (const p of procs.splice(0)) assertEquals(await p.stop(), 0, log.out);
      await chain.sequencer.close();
    } catch (e) {
      console.error(log.out.slice(-6000));
      throw e;
    } finally {
      for (const p of procs) await p.stop();
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "keel node drives an external engine over --l2=ws:// with the JWT in the upgrade, L1 over ws://",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-ws-l2-" });
    const log = new Log();
    const procs: ReturnType<typeof spawn>[] = [];
    try {
      const rpc = new JsonRpcClient(anvil.url);
      const chain = await opChainOnAnvil(rpc, new L1Client(rpc), L2_BLOCKS);
      await Deno.writeTextFile(`${dir}/genesis.json`, JSON.stringify(chain.genesisJson));
      await Deno.writeTextFile(`${dir}/rollup.json`, JSON.stringify(rollupConfigToJson(chain.cfg)));
      await Deno.writeTextFile(`${dir}/jwt.hex`, `0x${"5a".repeat(32)}`);
      const [authPort, httpPort, rpcPort] = [freePort(), freePort(), freePort()];
      procs.push(spawn([
        "execution",
        `--datadir=${dir}/exec`,
        `--genesis=${dir}/genesis.json`,
        "--http",
        `--http.port=${httpPort}`,
        `--authrpc.port=${authPort}`,
        `--authrpc.jwtsecret=${dir}/jwt.hex`,
      ], log));
      // The authrpc WebSocket refuses an upgrade without a valid token.
      for (let i = 0; i < 240; i++) {
        const up = await fetch(`http://127.0.0.1:${authPort}/healthz`).then(
          (r) => r.body?.cancel(),
          () => "down",
        );
        if (up !== "down") break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const refused = await new Promise<boolean>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${authPort}`);
        ws.onopen = () => {
          ws.close();
          resolve(false);
        };
        ws.onerror = () => resolve(true);
      });
      assert(refused, "an upgrade without a JWT was accepted");
      procs.push(spawn([
        "node",
        `--rollup.config=${dir}/rollup.json`,
        `--l2=ws://127.0.0.1:${authPort}`,
        `--l2.jwt-secret=${dir}/jwt.hex`,
        `--l1=${anvil.url.replace(/^http:/, "ws:")}`,
        "--l1.http-poll-interval=200ms",
        "--rpc.addr=127.0.0.1",
        `--rpc.port=${rpcPort}`,
        `--datadir=${dir}/node`,
        `--p2p.priv.path=${dir}/p2p.txt`,
        "--p2p.peerstore.path=memory",
        "--p2p.listen.ip=127.0.0.1",
        `--p2p.listen.tcp=${freePort()}`,
      ], log));
      const safe = await waitSafe(`http://127.0.0.1:${rpcPort}`, L2_BLOCKS);
      assertEquals(safe?.number, L2_BLOCKS, log.out);
      const last = chain.blocks[L2_BLOCKS - 1];
      assertEquals(safe.hash, bytesToHex(last.blockHash));
      const onEngine = ((await rpcCall(`http://127.0.0.1:${httpPort}`, "eth_getBlockByNumber", [
        "safe",
        false,
      ])) as RpcAnswer)
        .result;
      assertEquals(onEngine.hash, bytesToHex(last.blockHash));
      for (const p of procs.splice(0).reverse()) assertEquals(await p.stop(), 0, log.out);
      await chain.sequencer.close();
    } catch (e) {
      console.error(log.out.slice(-6000));
      throw e;
    } finally {
      for (const p of procs.reverse()) await p.stop();
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
