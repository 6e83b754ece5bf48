/**
 * An L1 reorg under a sequencing `keel node` (anvil as L1, mining a block a second): anvil goes back
 * to a snapshot (evm_revert) after the sequencer built unsafe blocks on L1 origins the revert takes
 * away. The sequencer must notice (the next L1 block does not build on its origin), walk its unsafe
 * head back to a block whose L1 origin is canonical (op-node sync/start.go FindL2Heads) and go on
 * sequencing on the new L1 chain. With a batcher: the batches in the L1 blocks the revert took away
 * are sent again, and the node derives its safe head again past them.
 */
import { assert } from "../assert.ts";
import {
  anvilForTest,
  DEV_PRIVATE_KEY,
  freePort,
  type KeelProcess,
  type RpcAnswer,
  rpcCall,
  sequencerOnAnvil,
  spawnKeel,
  startAnvil,
  until,
} from "./helpers/mod.ts";

const tool = await anvilForTest("l1_reorg_anvil_test");

/**
 * The L1 origin in an L2 block's L1-info deposit (Isthmus calldata, specs/protocol/isthmus/l1-attributes.md:
 * selector 4, scalars 8, sequence number 8, timestamp 8, number 8, base fee 32, blob base fee 32, hash 32).
 */
function l1OriginOf(block: { transactions: { input: string }[] }): { number: number; hash: string } {
  const data = block.transactions[0].input.slice(2);
  const at = (offset: number, bytes: number) => data.slice(offset * 2, (offset + bytes) * 2);
  return { number: parseInt(at(28, 8), 16), hash: `0x${at(100, 32)}` };
}

Deno.test({
  name: "keel node: an L1 reorg under the unsafe chain walks the unsafe head back and sequencing goes on",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    if (!tool.ok) return;
    const anvil = await startAnvil(tool.binary, ["--block-time", "1"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-l1-reorg-" });
    const port = freePort();
    const args = await sequencerOnAnvil(anvil.url, dir, port);
    const node = spawnKeel("node", args);
    const l1 = async (method: string, params: unknown[] = []) =>
      ((await rpcCall(anvil.url, method, params)) as RpcAnswer).result;
    const l2 = async (method: string, params: unknown[] = []) =>
      ((await rpcCall(`http://127.0.0.1:${port}`, method, params)) as RpcAnswer).result;
    const unsafe = async () => (await l2("rollupnode_syncStatus").catch(() => undefined))?.unsafe_l2;
    try {
      await until(
        async () => ((await unsafe())?.l1origin?.number >= 2 ? true : undefined),
        "an L1 origin at 2",
        node.output,
      );
      const snapshot = await l1("evm_snapshot");
      const l1AtSnapshot = Number(await l1("eth_blockNumber"));
      // Unsafe blocks on L1 origins after the snapshot.
      await until(
        async () => ((await unsafe())?.l1origin?.number >= l1AtSnapshot + 2 ? true : undefined),
        "unsafe blocks on origins after the snapshot",
        node.output,
      );
      const before = await unsafe();
      assert(await l1("evm_revert", [snapshot]));
      // anvil mines on: new blocks at the reverted heights, with other hashes.
      await until(
        async () => (Number(await l1("eth_blockNumber")) >= before.l1origin.number + 2 ? true : undefined),
        "the new L1 chain past the old origins",
        node.output,
      );
      // The sequencer goes on, on canonical origins.
      const after = await until(
        async () => {
          const u = await unsafe();
          if (u === undefined || u.l1origin.number <= before.l1origin.number) return undefined;
          const onL1 = await l1("eth_getBlockByNumber", [`0x${u.l1origin.number.toString(16)}`, false]);
          return onL1?.hash === u.l1origin.hash ? u : undefined;
        },
        "unsafe blocks on the new L1 chain",
        node.output,
        90_000,
      );
      // The blocks whose origins the revert took are gone from the L2 chain: every L1 origin from the
      // snapshot on is canonical now.
      let checked = 0;
      for (let n = after.number; n > 0; n--) {
        const origin = l1OriginOf(await l2("eth_getBlockByNumber", [`0x${n.toString(16)}`, true]));
        if (origin.number < l1AtSnapshot - 1) break;
        const onL1 = await l1("eth_getBlockByNumber", [`0x${origin.number.toString(16)}`, false]);
        assert(onL1?.hash === origin.hash, `L2 block ${n} has a non-canonical L1 origin ${origin.number}`);
        checked++;
      }
      assert(checked > 0);
      assert(node.output().includes("L1 reorg: unsafe head walked back"), "no walk-back in the log");
    } catch (e) {
      console.error(node.output().slice(-6000));
      throw e;
    } finally {
      await node.stop();
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "keel node and keel batcher: batches an L1 reorg took away are sent again and derived again",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    if (!tool.ok) return;
    const anvil = await startAnvil(tool.binary, ["--block-time", "1"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-l1-reorg-batches-" });
    const port = freePort();
    const url = `http://127.0.0.1:${port}`;
    const node = spawnKeel("node", await sequencerOnAnvil(anvil.url, dir, port));
    let batcher: KeelProcess | undefined;
    const out = () => `${node.output()}\n--- batcher ---\n${batcher?.output()}`;
    const l1 = async (method: string, params: unknown[] = []) =>
      ((await rpcCall(anvil.url, method, params)) as RpcAnswer).result;
    const status = async () =>
      (await rpcCall(url, "rollupnode_syncStatus").catch(() => undefined) as RpcAnswer)
        ?.result;
    try {
      await until(
        async () => ((await status())?.unsafe_l2?.number >= 2 ? true : undefined),
        "sequencing",
        out,
      );
      batcher = spawnKeel("batcher", [
        `--l1-eth-rpc=${anvil.url}`,
        `--l2-eth-rpc=${url}`,
        `--rollup-rpc=${url}`,
        `--private-key=${DEV_PRIVATE_KEY}`,
        "--poll-interval=500ms",
      ]);
      await until(
        async () => ((await status())?.safe_l2?.number >= 2 ? true : undefined),
        "a safe head",
        out,
        120_000,
      );
      const snapshot = await l1("evm_snapshot");
      const safeAtSnapshot = (await status()).safe_l2.number;
      await until(
        async () => ((await status())?.safe_l2?.number >= safeAtSnapshot + 4 ? true : undefined),
        "batches after the snapshot",
        out,
      );
      const unsafeAtRevert = (await status()).unsafe_l2.number;
      assert(await l1("evm_revert", [snapshot]));
      // The batches after the snapshot are gone from L1: sent again, the safe head gets past where
      // the unsafe head was, on blocks of the node's chain.
      const safe = await until(
        async () => {
          const st = await status();
          return st?.safe_l2?.number > unsafeAtRevert ? st.safe_l2 : undefined;
        },
        "the safe head past the unsafe head of the revert",
        out,
        120_000,
      );
      const block =
        ((await rpcCall(url, "eth_getBlockByNumber", [`0x${safe.number.toString(16)}`, false])) as RpcAnswer)
          .result;
      assert(block.hash === safe.hash);
      assert(batcher.output().includes("An L1 reorg took batcher transactions away"), out());
    } catch (e) {
      console.error(out().slice(-8000));
      throw e;
    } finally {
      await batcher?.stop();
      await node.stop();
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
