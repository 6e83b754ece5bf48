/**
 * `keel node --l2 URL --l2.jwt-secret FILE`: the rollup node drives an external engine (a separate
 * `keel execution` process) over the Engine API with the JWT, and reads its blocks over the same
 * authrpc endpoint's eth namespace, while deriving from anvil. The engine ends up with the sequencer's
 * blocks, hash for hash, and its safe label at the derived head.
 */
import { bytesToHex } from "../../lib/common/bytes.ts";
import { JsonRpcClient } from "../../lib/common/json_rpc_client.ts";
import { rollupConfigToJson } from "../../lib/protocol/rollup_config_json.ts";
import { L1Client } from "../../lib/rollup/l1/mod.ts";
import { assertEquals } from "../assert.ts";
import {
  anvilForTest,
  freePort,
  opChainOnAnvil,
  type RpcAnswer,
  rpcCall,
  startAnvil,
} from "./helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const tool = await anvilForTest("node_external_engine_anvil_test");

type Answer = RpcAnswer;

function spawn(args: string[], log: { out: string }) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-P=keel", `--config=${ROOT}deno.json`, `${ROOT}main.ts`, ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const dec = new TextDecoder();
  const pump = async (st: ReadableStream<Uint8Array>) => {
    for await (const chunk of st) log.out += dec.decode(chunk, { stream: true });
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  return {
    async stop(): Promise<number> {
      try {
        child.kill("SIGTERM");
      } catch {
        // exited
      }
      const { code } = await child.status;
      await pumps;
      return code;
    },
  };
}

Deno.test({
  name: "keel node derives into an external engine over the Engine API with the JWT",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-external-" });
    const log = { out: "" };
    const procs: ReturnType<typeof spawn>[] = [];
    try {
      const rpc = new JsonRpcClient(anvil.url);
      const chain = await opChainOnAnvil(rpc, new L1Client(rpc), 12);
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
      procs.push(spawn([
        "node",
        `--rollup.config=${dir}/rollup.json`,
        `--l2=http://127.0.0.1:${authPort}`,
        `--l2.jwt-secret=${dir}/jwt.hex`,
        `--l1=${anvil.url}`,
        "--l1.http-poll-interval=200ms",
        "--rpc.addr=127.0.0.1",
        `--rpc.port=${rpcPort}`,
        `--datadir=${dir}/node`,
        `--p2p.priv.path=${dir}/p2p.txt`,
        "--p2p.peerstore.path=memory",
        "--p2p.listen.ip=127.0.0.1",
        `--p2p.listen.tcp=${freePort()}`,
      ], log));
      let safe: Answer["result"];
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline && !(safe?.number >= 12)) {
        await new Promise((r) => setTimeout(r, 250));
        safe = await rpcCall(`http://127.0.0.1:${rpcPort}`, "rollupnode_syncStatus")
          .then((r) => (r as Answer).result?.safe_l2, () => undefined);
      }
      assertEquals(safe?.number, 12, log.out);
      const last = chain.blocks[11];
      assertEquals(safe.hash, bytesToHex(last.blockHash));
      const onEngine =
        ((await rpcCall(`http://127.0.0.1:${httpPort}`, "eth_getBlockByNumber", ["safe", false])) as Answer)
          .result;
      assertEquals(onEngine.hash, bytesToHex(last.blockHash));
      for (const p of procs.splice(0).reverse()) assertEquals(await p.stop(), 0, log.out);
      await chain.sequencer.close();
    } finally {
      for (const p of procs.reverse()) await p.stop();
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
