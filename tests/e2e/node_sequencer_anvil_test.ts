/**
 * `keel node --sequencer.enabled` as a real process with anvil as L1: it sequences unsafe L2 blocks
 * from its transaction pool every block time (a transfer sent to its eth RPC is included), reports
 * them as unsafe_l2 in rollupnode_syncStatus, and obeys the admin API (interfaces.md 3.1, 4.4):
 * admin_stopSequencer stops block production, admin_startSequencer resumes it, admin_sequencerActive
 * tells which, and with --rpc.admin-state the stopped state survives a restart. In recover mode
 * (--sequencer.recover) blocks carry the deposits only, until admin_setRecoverMode(false). Under
 * op-conductor (a stand-in on 127.0.0.1) it starts stopped, starts only as the leader, commits every block
 * before it becomes the head, stalls while commits fail, and leads alone after admin_overrideLeader.
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
import { fakeConductor } from "../unit/node/fake_conductor.ts";

const tool = await anvilForTest("node_sequencer_anvil_test");

type Answer = RpcAnswer;

/** A signed transfer of ACCOUNTS[2] on the test chain (901). */
function transfer(nonce: bigint): Uint8Array {
  return createFeeMarket1559Tx({
    chainId: 901n,
    nonce,
    to: new Uint8Array(20).fill(7),
    value: 12345n,
    gasLimit: 21_000n,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
  }, { common: new Common({ chain: { ...Mainnet, chainId: 901 }, hardfork: Hardfork.Prague }) }).sign(
    ACCOUNTS[2].privateKey,
  ).serialize();
}

/** A sequencer node on anvil, started and restarted by the test; `call` reaches its RPC. */
interface Run {
  call(method: string, params?: unknown[]): Promise<Answer>;
  /** The unsafe head's number (rollupnode_syncStatus). */
  unsafe(): Promise<number | undefined>;
  start(): void;
  /** Stops the node; its exit code. */
  stop(): Promise<number>;
  out(): string;
}

/** Runs `body` against anvil and `keel node` with the sequencer's arguments and `extra`; cleans up after. */
async function onAnvil(prefix: string, extra: (dir: string) => string[], body: (run: Run) => Promise<void>) {
  const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
  const dir = await Deno.makeTempDir({ prefix });
  let node: KeelProcess | undefined;
  try {
    const port = freePort();
    const args = [...await sequencerOnAnvil(anvil.url, dir, port), "--rpc.enable-admin", ...extra(dir)];
    const url = `http://127.0.0.1:${port}`;
    const call = async (method: string, params: unknown[] = []) =>
      (await rpcCall(url, method, params)) as Answer;
    await body({
      call,
      unsafe: async () =>
        (await call("rollupnode_syncStatus")).result?.unsafe_l2?.number as number | undefined,
      start: () => node = spawnKeel("node", args),
      stop: async () => {
        const code = await node!.stop();
        node = undefined;
        return code;
      },
      out: () => node?.output() ?? "",
    });
  } finally {
    if (node !== undefined) await node.stop();
    await anvil.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "keel node sequences unsafe blocks from its pool, stops and starts on the admin API",
  ignore: !tool.ok,
  sanitizeResources: false,
  fn: () =>
    onAnvil("keel-sequencer-", (dir) => [`--rpc.admin-state=${dir}/admin.json`], async (run) => {
      const { call, unsafe, out } = run;
      run.start();
      await until(async () => ((await unsafe()) ?? 0) >= 2 ? true : undefined, "two sequenced blocks", out);
      assertEquals((await call("admin_sequencerActive")).result, true);
      // A transfer sent to the node's eth RPC lands in a sequenced block.
      const sent = await call("eth_sendRawTransaction", [bytesToHex(transfer(0n))]);
      assertEquals(typeof sent.result, "string", JSON.stringify(sent.error));
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
      assertEquals(await run.stop(), 0, out());
      run.start();
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
      assertEquals(await run.stop(), 0, out());
    }),
});

Deno.test({
  name: "keel node --sequencer.recover sequences deposit-only blocks until admin_setRecoverMode(false)",
  ignore: !tool.ok,
  sanitizeResources: false,
  fn: () =>
    onAnvil("keel-recover-", () => ["--sequencer.recover"], async (run) => {
      const { call, unsafe, out } = run;
      run.start();
      await until(async () => ((await unsafe()) ?? 0) >= 1 ? true : undefined, "a sequenced block", out);
      const sent = await call("eth_sendRawTransaction", [bytesToHex(transfer(0n))]);
      assertEquals(typeof sent.result, "string", JSON.stringify(sent.error));
      const from = (await unsafe())!;
      await until(
        async () => ((await unsafe()) ?? 0) >= from + 3 ? true : undefined,
        "three more blocks",
        out,
      );
      // The pool holds the transfer; the blocks carry the L1-info deposit alone.
      assertEquals((await call("eth_getTransactionReceipt", [sent.result])).result, null);
      for (let n = from; n <= from + 3; n++) {
        const block = (await call("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])).result;
        assertEquals(block.transactions.length, 1, `block ${n}`);
      }
      assertEquals((await call("admin_setRecoverMode", ["no"])).error?.code, -32602);
      assertEquals((await call("admin_setRecoverMode", [false])).result, null);
      const receipt = await until(
        async () => (await call("eth_getTransactionReceipt", [sent.result])).result ?? undefined,
        "the transfer's receipt after recover mode",
        out,
      );
      assertEquals(receipt.status, "0x1");
      assert(Number(receipt.blockNumber) > from + 3);
      assertEquals(await run.stop(), 0, out());
    }),
});

Deno.test({
  name: "keel node under op-conductor: starts as the leader only, commits each block first, overridable",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const conductor = fakeConductor({ leader: false });
    try {
      await onAnvil(
        "keel-conductor-",
        () => ["--conductor.enabled", `--conductor.rpc=${conductor.url}`],
        async (run) => {
          const { call, unsafe, out } = run;
          run.start();
          await until(
            async () => (await call("admin_sequencerActive")).result === false ? true : undefined,
            "the node, stopped",
            out,
          );
          assertEquals((await call("admin_conductorEnabled")).result, true);
          assertEquals(
            (await call("admin_startSequencer")).error?.message,
            "sequencer is not the leader, aborting",
          );
          conductor.state.leader = true;
          assertEquals((await call("admin_startSequencer")).result, null);
          await until(
            async () => ((await unsafe()) ?? 0) >= 2 ? true : undefined,
            "two sequenced blocks",
            out,
          );
          // Every block of the chain went to the conductor before it became the head.
          const committed = new Set(
            conductor.committed.map((e) =>
              Number((e.executionPayload as { blockNumber: string }).blockNumber)
            ),
          );
          const head = (await unsafe())!;
          for (let n = 1; n <= head; n++) assert(committed.has(n), `block ${n} not committed`);
          // Commits refused: no block becomes the head.
          conductor.state.refuseCommits = true;
          await new Promise((r) => setTimeout(r, 1_000));
          const stalled = (await unsafe())!;
          await new Promise((r) => setTimeout(r, 3_000));
          assertEquals(await unsafe(), stalled);
          // Overridden: the node sequences without the conductor.
          const commits = conductor.committed.length;
          assertEquals((await call("admin_overrideLeader")).result, null);
          await until(
            async () => ((await unsafe()) ?? 0) > stalled ? true : undefined,
            "blocks after the override",
            out,
          );
          assertEquals(conductor.committed.length, commits);
          assertEquals(await run.stop(), 0, out());
        },
      );
    } finally {
      await conductor.server.shutdown();
    }
  },
});
