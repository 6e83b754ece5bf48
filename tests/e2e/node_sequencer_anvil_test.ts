/**
 * `keel node --sequencer.enabled` as a real process with anvil as L1: it sequences unsafe L2 blocks
 * from its transaction pool every block time (a transfer sent to its eth RPC is included), reports
 * them as unsafe_l2 in rollupnode_syncStatus, and obeys the admin API (interfaces.md 3.1, 4.4):
 * admin_stopSequencer stops block production, admin_startSequencer resumes it, admin_sequencerActive
 * tells which, and with --rpc.admin-state the stopped state survives a restart.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import { JsonRpcClient } from "../../lib/common/json_rpc_client.ts";
import { buildDevGenesis } from "../../lib/execution/genesis/dev_genesis.ts";
import { rollupConfigToJson } from "../../lib/protocol/rollup_config_json.ts";
import type { RollupConfig } from "../../lib/protocol/rollup_config.ts";
import { encodeEcotoneScalar } from "../../lib/protocol/system_config.ts";
import { ExecutionEngine } from "../../lib/execution/engine/mod.ts";
import { L1Client } from "../../lib/rollup/l1/mod.ts";
import { ACCOUNTS, GWEI } from "../unit/execution/engine/helpers.ts";
import { assert, assertEquals } from "../assert.ts";
import { BATCHER, freePort, INBOX, installAnvil, rpcCall, startAnvil } from "./helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const tool = await installAnvil();
if (!tool.ok && !tool.registryUnreachable) throw new Error(tool.message);
if (!tool.ok) {
  console.warn(`node_sequencer_anvil_test: skipped, the npm registry is unreachable: ${tool.message}`);
}

// deno-lint-ignore no-explicit-any
type Answer = { result?: any; error?: { code: number; message: string } };

function spawnNode(args: string[]): { stop(): Promise<number>; output(): string } {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-P=keel", `--config=${ROOT}deno.json`, `${ROOT}main.ts`, "node", ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  let out = "";
  const dec = new TextDecoder();
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s) out += dec.decode(chunk, { stream: true });
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  return {
    output: () => out,
    async stop() {
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

async function until<T>(
  fn: () => Promise<T | undefined>,
  what: string,
  out: () => string,
  ms = 60_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}\n${out()}`);
}

Deno.test({
  name: "keel node sequences unsafe blocks from its pool, stops and starts on the admin API",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-sequencer-" });
    let node: ReturnType<typeof spawnNode> | undefined;
    try {
      const l1 = new L1Client(new JsonRpcClient(anvil.url));
      const l1Genesis = await l1.blockRef(0n);
      const genesisJson = buildDevGenesis({
        upTo: "isthmus",
        timestamp: l1Genesis.timestamp,
        batcher: BATCHER,
      });
      const engine = await ExecutionEngine.open({ genesis: genesisJson });
      const l2Genesis = engine.head().hash;
      await engine.close();
      const cfg: RollupConfig = {
        genesis: {
          l1: { hash: l1Genesis.hash, number: 0n },
          l2: { hash: l2Genesis, number: 0n },
          l2Time: l1Genesis.timestamp,
          systemConfig: {
            batcherAddr: BATCHER,
            overhead: new Uint8Array(32),
            scalar: encodeEcotoneScalar({ baseFeeScalar: 1368n, blobBaseFeeScalar: 810949n }),
            gasLimit: 30_000_000n,
          },
        },
        blockTime: 2n,
        maxSequencerDrift: 600n,
        seqWindowSize: 3600n,
        channelTimeoutBedrock: 300n,
        l1ChainId: 31337n,
        l2ChainId: 901n,
        forks: {
          regolith: 0n,
          canyon: 0n,
          delta: 0n,
          ecotone: 0n,
          fjord: 0n,
          granite: 0n,
          holocene: 0n,
          isthmus: 0n,
        },
        batchInboxAddress: INBOX,
        depositContractAddress: hexToBytes("0xde00000000000000000000000000000000000901"),
        l1SystemConfigAddress: hexToBytes("0x5c00000000000000000000000000000000000901"),
        protocolVersionsAddress: new Uint8Array(20),
      };
      await Deno.writeTextFile(`${dir}/genesis.json`, JSON.stringify(genesisJson));
      await Deno.writeTextFile(`${dir}/rollup.json`, JSON.stringify(rollupConfigToJson(cfg)));
      const port = freePort();
      const args = [
        `--rollup.config=${dir}/rollup.json`,
        `--genesis=${dir}/genesis.json`,
        `--l1=${anvil.url}`,
        "--l1.http-poll-interval=200ms",
        "--sequencer.enabled",
        "--sequencer.l1-confs=0",
        "--rpc.enable-admin",
        `--rpc.admin-state=${dir}/admin.json`,
        "--rpc.addr=127.0.0.1",
        `--rpc.port=${port}`,
        "--http",
        `--http.port=${port}`,
        `--authrpc.port=${freePort()}`,
        `--datadir=${dir}/data`,
        `--p2p.priv.path=${dir}/p2p.txt`,
      ];
      node = spawnNode(args);
      const url = `http://127.0.0.1:${port}`;
      const call = async (method: string, params: unknown[] = []) =>
        (await rpcCall(url, method, params)) as Answer;
      const unsafe = async () =>
        (await call("rollupnode_syncStatus")).result?.unsafe_l2?.number as number | undefined;
      const out = () => node!.output();
      await until(async () => ((await unsafe()) ?? 0) >= 2 ? true : undefined, "two sequenced blocks", out);
      assertEquals((await call("admin_sequencerActive")).result, true);
      // A transfer sent to the node's eth RPC lands in a sequenced block.
      const tx = createFeeMarket1559Tx({
        chainId: 901n,
        nonce: 0n,
        to: new Uint8Array(20).fill(7),
        value: 12345n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
      }, { common: new Common({ chain: { ...Mainnet, chainId: 901 }, hardfork: Hardfork.Prague }) }).sign(
        ACCOUNTS[2].privateKey,
      );
      const sent = await call("eth_sendRawTransaction", [bytesToHex(tx.serialize())]);
      assertEquals(sent.result, bytesToHex(tx.hash()), JSON.stringify(sent.error));
      const receipt = await until(
        async () => (await call("eth_getTransactionReceipt", [sent.result])).result ?? undefined,
        "the transfer's receipt",
        out,
      );
      assertEquals(receipt.status, "0x1");
      const block = (await call("eth_getBlockByNumber", [receipt.blockNumber, false])).result;
      assertEquals(block.transactions.length, 2, "the L1-info deposit and the transfer");
      // Stop: no more blocks; the state survives a restart; start: blocks again.
      assertEquals((await call("admin_stopSequencer")).result, null);
      assertEquals((await call("admin_sequencerActive")).result, false);
      assertEquals((await call("admin_stopSequencer")).error?.message, "sequencer not running");
      const stoppedAt = (await unsafe())!;
      await new Promise((r) => setTimeout(r, 3000));
      assertEquals(await unsafe(), stoppedAt);
      assertEquals(await node.stop(), 0, out());
      node = spawnNode(args);
      await until(
        async () => (await call("admin_sequencerActive")).result === false ? true : undefined,
        "restart",
        out,
      );
      assertEquals(await unsafe(), stoppedAt);
      assertEquals((await call("admin_startSequencer")).result, null);
      await until(
        async () => ((await unsafe()) ?? 0) > stoppedAt ? true : undefined,
        "blocks after the restart",
        out,
      );
      assertEquals((await call("admin_startSequencer")).error?.message, "sequencer already running");
      // The safe head stays at genesis: nothing was batched to L1.
      assertEquals((await call("rollupnode_syncStatus")).result.safe_l2.number, 0);
      assert((await call("rollupnode_syncStatus")).result.unsafe_l2.l1origin.number >= 0);
      assertEquals(await node.stop(), 0, out());
      node = undefined;
    } finally {
      if (node !== undefined) await node.stop();
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
