/**
 * `keel node` as a verifier, a real process under the baked permission set: anvil is its L1 (the
 * batches of helpers/op_chain.ts on it), its embedded engine starts from the same L2 genesis, and it
 * derives the sequencer's blocks from L1 alone. rollupnode_syncStatus reports the heads in the spec's
 * shape (interfaces.md 2.5, 2.6), rollupnode_outputAtBlock the [version, output root] of a block, and
 * the node's eth RPC serves the derived blocks with the sequencer's hashes.
 */
import { bytesToHex } from "../../lib/common/bytes.ts";
import { keccak256 } from "../../lib/common/hash.ts";
import { executionPayloadToJson } from "../../lib/execution/engine/wire.ts";
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

const ROOT = new URL("../../", import.meta.url).pathname;
const tool = await anvilForTest("node_verifier_anvil_test");

const L2_BLOCKS = 12;

/** A JSON-RPC answer as the tests read it. */
type Answer = RpcAnswer;

Deno.test({
  name: "keel node derives an L2 chain from anvil and reports it in rollupnode_syncStatus and outputAtBlock",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-verifier-" });
    let child: Deno.ChildProcess | undefined;
    let out = "";
    try {
      const rpc = new JsonRpcClient(anvil.url);
      const chain = await opChainOnAnvil(rpc, new L1Client(rpc), L2_BLOCKS);
      await Deno.writeTextFile(`${dir}/genesis.json`, JSON.stringify(chain.genesisJson));
      await Deno.writeTextFile(`${dir}/rollup.json`, JSON.stringify(rollupConfigToJson(chain.cfg)));
      const port = freePort();
      const authPort = freePort();
      const metricsPort = freePort();
      const spawn = () => {
        const proc = new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-P=keel",
            `--config=${ROOT}deno.json`,
            `${ROOT}main.ts`,
            "node",
            `--rollup.config=${dir}/rollup.json`,
            `--genesis=${dir}/genesis.json`,
            `--l1=${anvil.url}`,
            "--l1.http-poll-interval=200ms",
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
            `--safedb.path=${dir}/safe.db`,
            `--snapshotlog.file=${dir}/snapshot.log`,
            "--rpc.enable-admin",
            "--metrics.enabled",
            "--metrics.addr=127.0.0.1",
            `--metrics.port=${metricsPort}`,
          ],
          cwd: ROOT,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
          env: { NO_COLOR: "1" },
        }).spawn();
        const dec = new TextDecoder();
        const pump = async (st: ReadableStream<Uint8Array>) => {
          for await (const chunk of st) out += dec.decode(chunk, { stream: true });
        };
        return { proc, pumps: Promise.all([pump(proc.stdout), pump(proc.stderr)]) };
      };
      let started = spawn();
      child = started.proc;
      const url = `http://127.0.0.1:${port}`;
      let status: Answer["result"];
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        try {
          const r = await rpcCall(url, "rollupnode_syncStatus") as Answer;
          status = r.result;
          if (status?.safe_l2?.number >= L2_BLOCKS) break;
        } catch {
          // not listening yet
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      assert(status?.safe_l2?.number >= L2_BLOCKS, `safe_l2 ${JSON.stringify(status?.safe_l2)}\n${out}`);
      // The shape of interfaces.md 2.6: exactly these keys; L1 refs with four fields, L2 refs with six.
      assertEquals(Object.keys(status).sort(), [
        "current_l1",
        "current_l1_finalized",
        "engine_sync_target",
        "finalized_l1",
        "finalized_l2",
        "head_l1",
        "pending_safe_l2",
        "queued_unsafe_l2",
        "safe_l1",
        "safe_l2",
        "unsafe_l2",
      ]);
      assertEquals(Object.keys(status.head_l1).sort(), ["hash", "number", "parentHash", "timestamp"]);
      assertEquals(Object.keys(status.safe_l2).sort(), [
        "hash",
        "l1origin",
        "number",
        "parentHash",
        "sequenceNumber",
        "timestamp",
      ]);
      assert(typeof status.head_l1.number === "number" && status.head_l1.number >= 4);
      const last = chain.blocks[L2_BLOCKS - 1];
      const safe12 = chain.blocks.find((b) => Number(b.blockNumber) === status.safe_l2.number)!;
      assertEquals(status.safe_l2.hash, bytesToHex(safe12.blockHash));
      assertEquals(status.safe_l2.l1origin.number >= 1, true);
      // The node's own eth RPC has the sequencer's blocks.
      const block =
        ((await rpcCall(url, "eth_getBlockByNumber", [`0x${L2_BLOCKS.toString(16)}`, false])) as Answer)
          .result;
      assertEquals(block.hash, bytesToHex(last.blockHash));
      // Output root of block 12: keccak(0^32 ++ stateRoot ++ withdrawalsRoot (Isthmus) ++ hash).
      const output =
        ((await rpcCall(url, "rollupnode_outputAtBlock", [`0x${L2_BLOCKS.toString(16)}`])) as Answer).result;
      const want = keccak256(
        new Uint8Array([
          ...new Uint8Array(32),
          ...last.stateRoot,
          ...last.withdrawalsRoot!,
          ...last.blockHash,
        ]),
      );
      assertEquals(output, [bytesToHex(new Uint8Array(32)), bytesToHex(want)]);
      const unknown = ((await rpcCall(url, "rollupnode_outputAtBlock", ["0x1000"])) as Answer).error;
      assertEquals(unknown?.code, -32000);
      // op-node's names and shapes (for op-batcher, op-proposer, op-challenger).
      const opOutput =
        ((await rpcCall(url, "optimism_outputAtBlock", [`0x${L2_BLOCKS.toString(16)}`])) as Answer).result;
      assertEquals(opOutput.version, output[0]);
      assertEquals(opOutput.outputRoot, output[1]);
      assertEquals(opOutput.stateRoot, bytesToHex(last.stateRoot));
      assertEquals(opOutput.withdrawalStorageRoot, bytesToHex(last.withdrawalsRoot!));
      assertEquals(opOutput.blockRef.hash, bytesToHex(last.blockHash));
      assertEquals(opOutput.blockRef.number, L2_BLOCKS);
      assertEquals(opOutput.blockRef.parentHash, bytesToHex(last.parentHash));
      assert(opOutput.blockRef.l1origin.number >= 1);
      const opStatus = ((await rpcCall(url, "optimism_syncStatus")) as Answer).result;
      // op-node's metrics, fed: the refs from the sync status, this node's RPC calls, the pipeline resets,
      // its L1 RPC calls, the channels read, the pipeline idle once it reached the L1 head.
      await rpcCall(url, "eth_chainId"); // the embedded execution client's, on the same port: not op-node's
      let metrics = "";
      const sample = (name: string) => {
        const line = metrics.split("\n").find((l) => l.startsWith(`${name} `));
        return line === undefined ? undefined : Number(line.slice(name.length + 1));
      };
      for (let i = 0; i < 50; i++) {
        metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        if (
          sample('op_node_default_refs_number{layer="l2",type="l2_safe"}') === opStatus.safe_l2.number &&
          sample("op_node_default_derivation_idle") === 1
        ) {
          break;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      assertEquals(sample('op_node_default_refs_number{layer="l2",type="l2_safe"}'), opStatus.safe_l2.number);
      assertEquals(
        sample('op_node_default_refs_number{layer="l2",type="l2_unsafe"}'),
        opStatus.unsafe_l2.number,
      );
      assert(
        (sample('op_node_default_refs_number{layer="l1",type="l1_head"}') ?? 0) >= 1,
        metrics.slice(0, 400),
      );
      assert((sample('op_node_default_rpc_server_requests_total{method="optimism_syncStatus"}') ?? 0) >= 1);
      assertEquals(sample('op_node_default_rpc_server_requests_total{method="eth_chainId"}'), undefined);
      assert((sample("op_node_default_pipeline_resets_total") ?? 0) >= 1, "the start is a pipeline reset");
      assertEquals(sample("op_node_default_derivation_idle"), 1);
      assert((sample("op_node_default_channel_input_bytes") ?? 0) > 0, "the batches' channels were read");
      assert(
        (sample('op_node_default_rpc_client_requests_total{method="eth_getBlockByNumber"}') ?? 0) >= 1,
        "the L1 reads are counted",
      );
      assert(
        (sample('op_node_default_rpc_client_responses_total{method="eth_getBlockByHash",error="<nil>"}') ??
          0) >= 1,
      );
      for (const status of [opStatus, opOutput.syncStatus]) {
        assertEquals(Object.keys(status).sort(), [
          "cross_unsafe_l2",
          "current_l1",
          "current_l1_finalized",
          "finalized_l1",
          "finalized_l2",
          "head_l1",
          "local_safe_l2",
          "pending_safe_l2",
          "safe_l1",
          "safe_l2",
          "unsafe_l2",
        ]);
        assertEquals(status.local_safe_l2, status.safe_l2);
        assertEquals(status.cross_unsafe_l2, status.unsafe_l2);
      }
      assertEquals(
        ((await rpcCall(url, "optimism_outputAtBlock", ["0x1000"])) as Answer).error?.code,
        -32000,
      );
      // --safedb.path: the safe head at the L1 block it was derived up to, and at any later L1 block.
      const l1 = opStatus.current_l1.number;
      const atL1 =
        ((await rpcCall(url, "optimism_safeHeadAtL1Block", [`0x${l1.toString(16)}`])) as Answer).result;
      assertEquals(atL1.safeHead, { hash: opStatus.safe_l2.hash, number: opStatus.safe_l2.number });
      assert(
        atL1.l1Block.number <= l1 && atL1.l1Block.number >= opStatus.safe_l2.l1origin.number,
        JSON.stringify(atL1),
      );
      const later = ((await rpcCall(url, "optimism_safeHeadAtL1Block", ["0x100000"])) as Answer).result;
      assertEquals(later, atL1);
      const early = ((await rpcCall(url, "optimism_safeHeadAtL1Block", ["0x0"])) as Answer).error;
      assertEquals(early?.message, "not found");
      // admin_postUnsafePayload: a block the node has answers null; a payload whose hash is not its
      // contents' is refused, a malformed envelope too.
      const envelope = (p: typeof last) => ({
        executionPayload: executionPayloadToJson(p),
        parentBeaconBlockRoot: bytesToHex(new Uint8Array(32)),
      });
      const known = (await rpcCall(url, "admin_postUnsafePayload", [envelope(last)])) as Answer;
      assertEquals(known.result, null, JSON.stringify(known.error));
      const far = (await rpcCall(url, "admin_postUnsafePayload", [
        envelope({ ...last, blockNumber: last.blockNumber + 5n }),
      ])) as Answer;
      // Its number changed, its hash no longer matches its contents (op-node checks the hash first).
      assert(String(far.error?.message).startsWith("payload has bad block hash"), JSON.stringify(far));
      const malformed =
        (await rpcCall(url, "admin_postUnsafePayload", [{ executionPayload: { x: 1 } }])) as Answer;
      assert(
        String(malformed.error?.message).startsWith("invalid execution payload"),
        JSON.stringify(malformed),
      );
      // --snapshotlog.file: op-node's JSON lines, the last safe head among them.
      const lines = (await Deno.readTextFile(`${dir}/snapshot.log`)).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
      assert(
        lines.every((l) => l.msg === "Rollup State Snapshot" && l.lvl === "info"),
        JSON.stringify(lines[0]),
      );
      const safeLines = lines.filter((l) => l.event === "New safe head");
      assertEquals(JSON.parse(safeLines.at(-1).l2Safe).number, opStatus.safe_l2.number);
      assert(lines.some((l) => l.event === "New L1 Head") && lines.some((l) => l.event === "Pipeline reset"));
      assertEquals(
        ((await rpcCall(url, "optimism_rollupConfig")) as Answer).result,
        ((await rpcCall(url, "rollupnode_rollupConfig")) as Answer).result,
      );
      assertEquals(
        ((await rpcCall(url, "optimism_version")) as Answer).result,
        ((await rpcCall(url, "rollupnode_version")) as Answer).result,
      );
      child.kill("SIGTERM");
      assertEquals((await child.status).code, 0, out);
      await started.pumps;
      // A restart walks the safe head back a sequencing window (op-node sync start) and derives the
      // blocks again: each matches the engine's (consolidated), the same chain, nothing built anew.
      started = spawn();
      child = started.proc;
      const before = out.length;
      let again: Answer["result"];
      for (let i = 0; i < 300 && again?.safe_l2?.number !== L2_BLOCKS; i++) {
        await new Promise((r) => setTimeout(r, 200));
        again = await rpcCall(url, "rollupnode_syncStatus").then(
          (r) => (r as Answer).result,
          () => undefined,
        );
      }
      assertEquals(again?.safe_l2?.number, L2_BLOCKS, out);
      assertEquals(again?.safe_l2?.hash, bytesToHex(last.blockHash));
      const restarted = out.slice(before);
      assert(restarted.includes("Sync start: safe head walked back"), restarted);
      assert(restarted.includes("Consolidated block"), restarted);
      assert(!restarted.includes("Derived block"), restarted);
      // The safe-head database survived the restart; the reset dropped the records past the walked-back
      // safe head and derivation wrote them again.
      const reread = ((await rpcCall(url, "optimism_safeHeadAtL1Block", ["0x100000"])) as Answer).result;
      assertEquals(reread.safeHead, { hash: bytesToHex(last.blockHash), number: L2_BLOCKS });
      child.kill("SIGTERM");
      assertEquals((await child.status).code, 0, out);
      await started.pumps;
      child = undefined;
      await chain.sequencer.close();
    } catch (e) {
      console.error(out.slice(-6000));
      throw e;
    } finally {
      if (child !== undefined) {
        try {
          child.kill("SIGKILL");
        } catch {
          // already gone
        }
        await child.status;
      }
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
