/**
 * `--http.api miner,admin` on `keel execution`: op-batcher's throttling call, miner_setMaxDASize, reaches
 * the block builder (a transaction over the per-transaction DA limit waits in the pool until the limit is
 * lifted); admin_nodeInfo, admin_peers and admin_datadir answer geth's shapes and adding a peer is refused
 * (no devp2p), admin_exportChain writes a chain file in the data dir and nowhere else; neither namespace is served unless asked for, nor eth_sendRawTransactionConditional
 * unless enabled; `--txpool.pricelimit` holds in dev mode too, and `--gpo.minsuggestedpriorityfee` sets the
 * suggested tip.
 */
import { assertEquals } from "../assert.ts";
import { DEV_ADDRESS, rpcCall, rpcResult, startKeelExecution } from "./helpers/mod.ts";

Deno.test({
  name: "miner_setMaxDASize over HTTP: a transaction over the limit waits until it is lifted",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const node = await startKeelExecution({
      ws: false,
      args: [
        "--http.api=eth,net,web3,miner,admin",
        "--txpool.pricelimit=3000000000",
        "--gpo.minsuggestedpriorityfee=5000000",
      ],
    });
    try {
      const url = node.httpUrl;
      assertEquals(await rpcResult(url, "miner_setMaxDASize", ["0x96", "0x0"]), true);
      // 1,000 bytes of calldata that does not compress: estimated far above 150 bytes.
      const data = "0x" +
        Array.from(crypto.getRandomValues(new Uint8Array(1_000)), (b) => b.toString(16).padStart(2, "0"))
          .join("");
      const big = await rpcResult(url, "eth_sendTransaction", [{
        from: DEV_ADDRESS,
        to: DEV_ADDRESS,
        data,
        maxFeePerGas: "0x2540be400",
        maxPriorityFeePerGas: "0xb2d05e00",
      }]);
      await rpcResult(url, "evm_mine");
      assertEquals(await rpcResult(url, "eth_getTransactionReceipt", [big]), null);
      assertEquals(await rpcResult(url, "miner_setMaxDASize", [0, 0]).catch(() => "refused"), "refused");
      assertEquals(await rpcResult(url, "miner_setMaxDASize", ["0x0", "0x0"]), true);
      await rpcResult(url, "evm_mine");
      const receipt = await rpcResult(url, "eth_getTransactionReceipt", [big]);
      assertEquals(receipt?.status, "0x1");
      // --txpool.pricelimit: a tip below 3 gwei is refused, even in dev mode.
      const cheap = await rpcCall(url, "eth_sendTransaction", [{
        from: DEV_ADDRESS,
        to: DEV_ADDRESS,
        maxFeePerGas: "0x2540be400",
        maxPriorityFeePerGas: "0x3b9aca00",
      }]) as { error: { message: string } };
      assertEquals(
        cheap.error.message,
        "transaction gas price below minimum: gas tip cap 1000000000, minimum needed 3000000000",
      );
      // --gpo.minsuggestedpriorityfee: the tip suggested on a chain whose blocks are not full.
      assertEquals(await rpcResult(url, "eth_maxPriorityFeePerGas"), "0x4c4b40");
      const info = await rpcResult(url, "admin_nodeInfo");
      assertEquals(info.protocols.eth.network, 901);
      assertEquals(
        info.protocols.eth.genesis,
        (await rpcResult(url, "eth_getBlockByNumber", ["0x0", false])).hash,
      );
      assertEquals(
        info.protocols.eth.head,
        (await rpcResult(url, "eth_getBlockByNumber", ["latest", false])).hash,
      );
      assertEquals(info.protocols.eth.config.chainId, 901);
      assertEquals(info.name, await rpcResult(url, "web3_clientVersion"));
      assertEquals(await rpcResult(url, "admin_peers"), []);
      assertEquals(await rpcResult(url, "admin_datadir"), node.dataDir);
      const add = await rpcCall(url, "admin_addPeer", ["enode://abc@127.0.0.1:30303"]) as {
        error: { message: string };
      };
      assertEquals(add.error.message.includes("no devp2p network"), true);
      // admin_exportChain: into the data dir; elsewhere the binary's permission set refuses, in keel's words.
      assertEquals(await rpcResult(url, "admin_exportChain", [`${node.dataDir}/chain.rlp`]), true);
      assertEquals((await Deno.stat(`${node.dataDir}/chain.rlp`)).size > 0, true);
      const outside = await rpcCall(url, "admin_exportChain", ["/tmp/keel-outside-export.rlp"]) as {
        error: { message: string };
      };
      assertEquals(outside.error.message.startsWith("keel: cannot"), true, outside.error.message);
      assertEquals(outside.error.message.includes("outside the allowed paths"), true, outside.error.message);
      assertEquals(await rpcResult(url, "admin_importChain", [`${node.dataDir}/chain.rlp`]), true);
    } catch (e) {
      console.error(node.output().slice(-4000));
      throw e;
    } finally {
      await node.stop();
    }
    const plain = await startKeelExecution({ ws: false });
    try {
      for (
        const [method, params] of [
          ["miner_setMaxDASize", ["0x0", "0x0"]],
          ["admin_nodeInfo", []],
          ["eth_sendRawTransactionConditional", ["0x00", {}]], // only with --rollup.sequencertxconditionalenabled
        ] as const
      ) {
        const body = await rpcCall(plain.httpUrl, method, [...params]) as { error: { code: number } };
        assertEquals(body.error.code, -32601, method);
      }
    } finally {
      await plain.stop();
    }
  },
});
