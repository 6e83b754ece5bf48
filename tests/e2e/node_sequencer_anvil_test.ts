/**
 * `keel node --sequencer.enabled` as a real process with anvil as L1: it sequences unsafe L2 blocks
 * from its transaction pool every block time (a transfer sent to its eth RPC is included), reports
 * them as unsafe_l2 in rollupnode_syncStatus, and obeys the admin API (interfaces.md 3.1, 4.4):
 * admin_stopSequencer stops block production, admin_startSequencer resumes it, admin_sequencerActive
 * tells which, and with --rpc.admin-state the stopped state survives a restart.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex } from "../../lib/common/bytes.ts";
import { ACCOUNTS, GWEI } from "../unit/execution/engine/helpers.ts";
import { assert, assertEquals } from "../assert.ts";
import {
  anvilForTest,
  freePort,
  type KeelProcess,
  type RpcAnswer,
  rpcCall,
  sequencerOnAnvil,
  spawnKeel,
  startAnvil,
  until,
} from "./helpers/mod.ts";

const tool = await anvilForTest("node_sequencer_anvil_test");

type Answer = RpcAnswer;

Deno.test({
  name: "keel node sequences unsafe blocks from its pool, stops and starts on the admin API",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-sequencer-" });
    let node: KeelProcess | undefined;
    try {
      const port = freePort();
      const args = [
        ...await sequencerOnAnvil(anvil.url, dir, port),
        "--rpc.enable-admin",
        `--rpc.admin-state=${dir}/admin.json`,
      ];
      node = spawnKeel("node", args);
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
      node = spawnKeel("node", args);
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
