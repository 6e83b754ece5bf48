/**
 * `keel execution --dev --dev.fork-url URL --dev.fork-block-number N` (anvil's `--fork-url`), on real
 * processes: a fork of anvil (a plain Prague chain) and a fork of another keel dev chain (OP, Isthmus).
 * The fork goes on from block N with the remote's chain id; it reads the remote's accounts, code and
 * slots as they were at block N (not later), writes its own, keeps a zeroed remote slot zero across
 * blocks and snapshots, funds the dev accounts keeping their remote nonce, and a remote that stops
 * answering gives a clear error for what was never read, while what was read still answers.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { type Anvil, anvilForTest, startAnvil } from "./helpers/anvil.ts";
import {
  DEV_ADDRESS,
  DEV_ADDRESS_1,
  freePort,
  rpcCall,
  rpcResult,
  sendAndWait,
  startKeelExecution,
} from "./helpers/mod.ts";

/** Stores calldata word 0 in slot 0 and logs: PUSH1 0 CALLDATALOAD PUSH1 0 SSTORE PUSH1 0 PUSH1 0 LOG0 STOP. */
const STORE_CODE = "0x60003560005560006000a000";
const CONTRACT = "0x00000000000000000000000000000000000c0de1";
const HOLDER = "0x000000000000000000000000000000000000b0b0";
/** An account the fork reads only after anvil_setRpcUrl. */
const UNREAD = "0x000000000000000000000000000000000000b0b1";
const word = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const ETHER = 10n ** 18n;
const hex = (n: bigint) => `0x${n.toString(16)}`;

/** Runs `test` with a fresh anvil (skipped when anvil cannot be installed); stops it after. */
async function withAnvil(test: (anvil: Anvil, binary: string) => Promise<void>): Promise<void> {
  const tool = await anvilForTest("dev_fork_test");
  if (!tool.ok) return;
  const anvil = await startAnvil(tool.binary);
  try {
    await test(anvil, tool.binary);
  } finally {
    await anvil.stop();
  }
}

Deno.test({
  name:
    "keel execution --dev --dev.fork-url: a fork of anvil reads its state and history up to the fork block, writes its own, keeps zeroed slots zero",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withAnvil(async (anvil, binary) => {
      const a = anvil.url;
      await rpcResult(a, "anvil_setCode", [CONTRACT, STORE_CODE]);
      await rpcResult(a, "anvil_setStorageAt", [CONTRACT, "0x1", word(9)]);
      await rpcResult(a, "anvil_setBalance", [HOLDER, hex(5n * ETHER)]);
      await rpcResult(a, "evm_mine", []);
      // The dev account sends one transaction on anvil (its nonce at the fork is 1): slot 0 = 7, a log.
      // (anvil may answer eth_sendTransaction before it mined: each is awaited by its receipt.)
      const mined = await sendAndWait(a, { from: DEV_ADDRESS, to: CONTRACT, data: word(7) });
      const before: string = mined.transactionHash;
      const forkBlock = BigInt(mined.blockNumber);
      // After the fork block the remote changes (by a transaction: anvil_set* also rewrite anvil's past
      // states): the fork must not see it.
      const after: string = (await sendAndWait(a, { from: DEV_ADDRESS_1, to: CONTRACT, data: word(100) }))
        .transactionHash;
      assertEquals(await rpcResult(a, "eth_getStorageAt", [CONTRACT, "0x0", "latest"]), word(100));

      const node = await startKeelExecution({
        ws: false,
        inMemory: true,
        args: [`--dev.fork-url=${a}`, `--dev.fork-block-number=${forkBlock}`],
      });
      try {
        const k = node.httpUrl;
        assertEquals(BigInt(await rpcResult(k, "eth_chainId", [])), 31337n);
        assertEquals(BigInt(await rpcResult(k, "eth_blockNumber", [])), forkBlock);
        assertEquals(await rpcResult(k, "eth_getCode", [CONTRACT, "latest"]), STORE_CODE);
        assertEquals(await rpcResult(k, "eth_getStorageAt", [CONTRACT, "0x0", "latest"]), word(7));
        assertEquals(await rpcResult(k, "eth_getStorageAt", [CONTRACT, "0x1", "latest"]), word(9));
        assertEquals(BigInt(await rpcResult(k, "eth_getBalance", [HOLDER, "latest"])), 5n * ETHER);
        // The dev account: the remote nonce, --dev.balance's ether.
        assertEquals(await rpcResult(k, "eth_getTransactionCount", [DEV_ADDRESS, "latest"]), "0x1");
        assertEquals(BigInt(await rpcResult(k, "eth_getBalance", [DEV_ADDRESS, "latest"])), 10_000n * ETHER);
        // The block keeps the remote's timestamp and parent; its hash is the fork's own.
        const remoteBlock = await rpcResult(a, "eth_getBlockByNumber", [hex(forkBlock), false]);
        const local = await rpcResult(k, "eth_getBlockByNumber", ["latest", false]);
        assertEquals([local.number, local.timestamp, local.parentHash], [
          remoteBlock.number,
          remoteBlock.timestamp,
          remoteBlock.parentHash,
        ]);
        // History before the fork block is the remote's; what the remote did after it is not the fork's.
        const older = hex(forkBlock - 1n);
        assertEquals(
          await rpcResult(k, "eth_getBlockByNumber", [older, true]),
          await rpcResult(a, "eth_getBlockByNumber", [older, true]),
        );
        assertEquals(
          await rpcResult(k, "eth_getTransactionCount", [DEV_ADDRESS, older]),
          await rpcResult(a, "eth_getTransactionCount", [DEV_ADDRESS, older]),
        );
        assertEquals(
          await rpcResult(k, "eth_getTransactionReceipt", [before]),
          await rpcResult(a, "eth_getTransactionReceipt", [before]),
        );
        assertEquals(await rpcResult(k, "eth_getTransactionReceipt", [after]), null);
        assertEquals(await rpcResult(k, "eth_getTransactionByHash", [after]), null);
        assertEquals(await rpcResult(k, "eth_getRawTransactionByHash", [after]), "0x");
        assertEquals(
          await rpcResult(k, "eth_getRawTransactionByHash", [before]),
          await rpcResult(a, "eth_getRawTransactionByHash", [before]),
        );
        // And so are its traces, as anvil's own answers.
        const tracer = { tracer: "callTracer" };
        assertEquals(
          await rpcResult(k, "debug_traceTransaction", [before, tracer]),
          await rpcResult(a, "debug_traceTransaction", [before, tracer]),
        );
        assertEquals(
          await rpcResult(k, "trace_transaction", [before]),
          await rpcResult(a, "trace_transaction", [before]),
        );
        const notOurs = await rpcCall(k, "debug_traceTransaction", [after, tracer]) as {
          error?: { message: string };
        };
        assertEquals(notOurs.error?.message, "transaction not found");

        // Fee history up to the fork block is the remote's (as anvil's), after it the fork's.
        assertEquals(
          await rpcResult(k, "eth_feeHistory", ["0x4", "latest", [50]]),
          await rpcResult(a, "eth_feeHistory", ["0x4", hex(forkBlock), [50]]),
        );

        const snapshot = await rpcResult(k, "evm_snapshot", []);
        const receipt = await sendAndWait(k, { from: DEV_ADDRESS, to: CONTRACT, data: word(0) });
        assertEquals(receipt.status, "0x1");
        assertEquals(BigInt(receipt.blockNumber), forkBlock + 1n);
        // Zeroed over the remote's 7 and kept zero in the next blocks; slot 1 still the remote's.
        await sendAndWait(k, { from: DEV_ADDRESS_1, to: HOLDER, value: "0x1" });
        assertEquals(await rpcResult(k, "eth_getStorageAt", [CONTRACT, "0x0", "latest"]), word(0));
        assertEquals(await rpcResult(k, "eth_getStorageAt", [CONTRACT, "0x1", "latest"]), word(9));
        assertEquals(BigInt(await rpcResult(k, "eth_getBalance", [HOLDER, "latest"])), 5n * ETHER + 1n);
        const fees = await rpcResult(k, "eth_feeHistory", ["0x4", "latest", [50]]);
        const remoteFees = await rpcResult(a, "eth_feeHistory", ["0x2", hex(forkBlock), [50]]);
        assertEquals(BigInt(fees.oldestBlock), forkBlock - 1n);
        assertEquals(fees.gasUsedRatio.slice(0, 2), remoteFees.gasUsedRatio);
        assertEquals(fees.reward.slice(0, 2), remoteFees.reward);
        assertEquals(fees.baseFeePerGas.slice(0, 2), remoteFees.baseFeePerGas.slice(0, 2));
        const ownBlocks = await rpcResult(k, "eth_getBlockByNumber", [hex(forkBlock + 1n), false]);
        assertEquals(fees.baseFeePerGas[2], ownBlocks.baseFeePerGas);
        assertEquals(fees.gasUsedRatio.length, 4);
        // The fork block's state is still the remote's.
        assertEquals(await rpcResult(k, "eth_getStorageAt", [CONTRACT, "0x0", hex(forkBlock)]), word(7));
        // Logs from the remote's first block on: the remote's up to the fork block, then the fork's.
        const logs = await rpcResult(k, "eth_getLogs", [{ address: CONTRACT, fromBlock: "0x0" }]) as {
          blockNumber: string;
          transactionHash: string;
        }[];
        assertEquals(logs.map((l) => [BigInt(l.blockNumber), l.transactionHash]), [
          [forkBlock, before],
          [forkBlock + 1n, receipt.transactionHash],
        ]);
        // Back to the fork block's state.
        assertEquals(await rpcResult(k, "evm_revert", [snapshot]), true);
        assertEquals(await rpcResult(k, "eth_getStorageAt", [CONTRACT, "0x0", "latest"]), word(7));
        // anvil itself was not written to.
        assertEquals(await rpcResult(a, "eth_getStorageAt", [CONTRACT, "0x0", "latest"]), word(100));

        // anvil_reset with forking: a new fork, of the same remote unless named, at the block named or
        // at the remote's head; the fork before is gone (its blocks and its writes).
        await sendAndWait(k, { from: DEV_ADDRESS, to: CONTRACT, data: word(5) });
        assertEquals(
          await rpcResult(k, "anvil_reset", [{ forking: { blockNumber: hex(forkBlock - 1n) } }]),
          null,
        );
        assertEquals(BigInt(await rpcResult(k, "eth_blockNumber", [])), forkBlock - 1n);
        const parentBlock = hex(forkBlock - 1n);
        for (const slot of ["0x0", "0x1"]) {
          assertEquals(
            await rpcResult(k, "eth_getStorageAt", [CONTRACT, slot, "latest"]),
            await rpcResult(a, "eth_getStorageAt", [CONTRACT, slot, parentBlock]),
          );
        }
        assertEquals(await rpcResult(k, "eth_getTransactionCount", [DEV_ADDRESS, "latest"]), "0x0");
        assertEquals(await rpcResult(k, "eth_getTransactionReceipt", [before]), null);
        assertEquals(
          (await rpcResult(k, "anvil_nodeInfo", [])).forkConfig.forkBlockNumber,
          Number(forkBlock) - 1,
        );
        // No block: the remote's head (the block after the fork block, with its later write).
        assertEquals(await rpcResult(k, "hardhat_reset", [{ forking: { jsonRpcUrl: a } }]), true);
        assertEquals(
          await rpcResult(k, "eth_blockNumber", []),
          await rpcResult(a, "eth_blockNumber", []),
        );
        assertEquals(await rpcResult(k, "eth_getStorageAt", [CONTRACT, "0x0", "latest"]), word(100));
        // Blocks go on from there.
        const next = await sendAndWait(k, { from: DEV_ADDRESS, to: CONTRACT, data: word(3) });
        assertEquals(BigInt(next.blockNumber), BigInt(await rpcResult(a, "eth_blockNumber", [])) + 1n);
        // Back to the fork block, which the rest reads (slot 1 again: the new fork reads it afresh).
        assertEquals(
          await rpcResult(k, "anvil_reset", [{ forking: { jsonRpcUrl: a, blockNumber: Number(forkBlock) } }]),
          null,
        );
        assertEquals(BigInt(await rpcResult(k, "eth_blockNumber", [])), forkBlock);
        assertEquals(await rpcResult(k, "eth_getStorageAt", [CONTRACT, "0x0", "latest"]), word(7));
        assertEquals(await rpcResult(k, "eth_getStorageAt", [CONTRACT, "0x1", "latest"]), word(9));
        // A remote that does not answer: refused, and the fork goes on as it was.
        const dead = await rpcCall(k, "anvil_reset", [{
          forking: { jsonRpcUrl: `http://127.0.0.1:${freePort()}` },
        }]) as {
          error?: { message: string };
        };
        assert(dead.error !== undefined, "a reset to a remote that does not answer must fail");
        assertEquals(BigInt(await rpcResult(k, "eth_blockNumber", [])), forkBlock);
        const bad = await rpcCall(k, "anvil_reset", [{ forking: { blockNumber: "soon" } }]) as {
          error?: { code: number; message: string };
        };
        assertEquals(bad.error?.code, -32602);

        // anvil_metadata's forkedNetwork and anvil_nodeInfo's forkConfig, as anvil forking the same block.
        const meta = await rpcResult(k, "anvil_metadata", []);
        assertEquals(meta.forkedNetwork, {
          chainId: 31337,
          forkBlockNumber: Number(forkBlock),
          forkBlockHash: remoteBlock.hash,
        });
        const info = await rpcResult(k, "anvil_nodeInfo", []);
        assertEquals([info.forkConfig.forkUrl, info.forkConfig.forkBlockNumber], [a, Number(forkBlock)]);
        const theirs = await startAnvil(binary, [
          "--fork-url",
          a,
          "--fork-block-number",
          String(forkBlock),
        ]);
        try {
          const types = (o: Record<string, unknown>) =>
            Object.entries(o).map(([key, v]) => [key, typeof v]).sort();
          const theirMeta = await rpcResult(theirs.url, "anvil_metadata", []);
          assertEquals(theirMeta.forkedNetwork, meta.forkedNetwork);
          const theirInfo = await rpcResult(theirs.url, "anvil_nodeInfo", []);
          assertEquals(types(info.forkConfig), types(theirInfo.forkConfig));
          assertEquals(theirInfo.forkConfig.forkUrl, a);
        } finally {
          await theirs.stop();
        }

        // The remote stops: what was read still answers; what was not is a clear error.
        await anvil.stop();
        assertEquals(await rpcResult(k, "eth_getStorageAt", [CONTRACT, "0x1", "latest"]), word(9));
        const lost = await rpcCall(k, "eth_getBalance", [
          "0x00000000000000000000000000000000000000ff",
          "latest",
        ]) as {
          error?: { message: string };
        };
        assert(lost.error !== undefined, "a read the remote cannot answer must fail");
        assertStringIncludes(lost.error.message, "from the fork's remote");

        // anvil_reset without forking leaves fork mode, as anvil: a new dev chain (keel's chain id).
        assertEquals(await rpcResult(k, "anvil_reset", []), null);
        assertEquals(await rpcResult(k, "eth_blockNumber", []), "0x0");
        assertEquals(BigInt(await rpcResult(k, "eth_chainId", [])), 901n);
        assertEquals((await rpcResult(k, "anvil_nodeInfo", [])).forkConfig.forkUrl, null);
        assertEquals((await rpcResult(k, "anvil_metadata", [])).forkedNetwork, null);
        const own = await sendAndWait(k, { from: DEV_ADDRESS, to: HOLDER, value: "0x1" });
        assertEquals(own.status, "0x1");
        assertEquals(BigInt(await rpcResult(k, "eth_getBalance", [HOLDER, "latest"])), 1n);
      } catch (e) {
        console.error(node.output().slice(-3000));
        throw e;
      } finally {
        await node.stop();
      }
    }),
});

Deno.test({
  name: "keel execution --dev --dev.fork-url: a fork of an OP dev chain runs its OP fork, with the L1 fee",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const remote = await startKeelExecution({ ws: true, inMemory: true, args: ["--dev.hardfork=jovian"] });
    try {
      const r = remote.httpUrl;
      await sendAndWait(r, { from: DEV_ADDRESS, to: HOLDER, value: "0x5" });
      // Over WebSocket, as anvil's --fork-url also takes.
      const fork = await startKeelExecution({
        ws: false,
        inMemory: true,
        args: [`--dev.fork-url=${remote.wsUrl}`],
      });
      try {
        const k = fork.httpUrl;
        assertStringIncludes(fork.output(), "rules=jovian");
        assertEquals(await rpcResult(k, "eth_chainId", []), await rpcResult(r, "eth_chainId", []));
        assertEquals(BigInt(await rpcResult(k, "eth_getBalance", [HOLDER, "latest"])), 5n);
        // The remote's L1Block and GasPriceOracle: the fork's receipts carry the L1 fee fields.
        const receipt = await sendAndWait(k, { from: DEV_ADDRESS, to: HOLDER, value: "0x1" });
        assertEquals(receipt.status, "0x1");
        assert(BigInt(receipt.l1Fee) > 0n, "an OP fork charges the L1 fee");
        assert(
          "daFootprintGasScalar" in receipt || "operatorFeeScalar" in receipt,
          "Isthmus/Jovian receipt fields",
        );
        const block = await rpcResult(k, "eth_getBlockByNumber", [receipt.blockNumber, true]);
        // The block starts with the L1-info deposit, as on the remote.
        assertEquals(block.transactions[0].type, "0x7e");
        assertEquals(BigInt(await rpcResult(k, "eth_getBalance", [HOLDER, "latest"])), 6n);
        assertEquals(BigInt(await rpcResult(r, "eth_getBalance", [HOLDER, "latest"])), 5n);
      } finally {
        await fork.stop();
      }
    } finally {
      await remote.stop();
    }
  },
});

Deno.test({
  name:
    "keel execution --dev --dev.fork-url: a remote that does not answer stops the start, its URL's key kept out",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const url = `http://127.0.0.1:${freePort()}/v2/secret-api-key`;
    const failed = await startKeelExecution({ ws: false, inMemory: true, args: [`--dev.fork-url=${url}`] })
      .then(
        async (n) => {
          await n.stop();
          return undefined;
        },
        (e: Error) => e,
      );
    assert(failed !== undefined, "a fork of a remote that does not answer must not start");
    assertStringIncludes(failed.message, "Cannot fork: the remote does not answer eth_chainId");
    assertEquals(failed.message.includes("secret-api-key"), false);
  },
});

Deno.test({
  name:
    "keel execution --dev --dev.fork-url --state: a fork's writes, a zeroed remote slot included, survive a restart",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withAnvil(async (anvil) => {
      const dir = await Deno.makeTempDir({ prefix: "keel-fork-state-" });
      try {
        const a = anvil.url;
        await rpcResult(a, "anvil_setCode", [CONTRACT, STORE_CODE]);
        await rpcResult(a, "anvil_setStorageAt", [CONTRACT, "0x0", word(7)]);
        await rpcResult(a, "evm_mine", []);
        const args = [`--dev.fork-url=${a}`, `--state=${dir}/state.json`];
        let node = await startKeelExecution({ ws: false, inMemory: true, args });
        try {
          await sendAndWait(node.httpUrl, { from: DEV_ADDRESS, to: CONTRACT, data: word(0) });
          await sendAndWait(node.httpUrl, { from: DEV_ADDRESS, to: HOLDER, value: "0x3" });
          assertEquals(
            await rpcResult(node.httpUrl, "eth_getStorageAt", [CONTRACT, "0x0", "latest"]),
            word(0),
          );
        } finally {
          await node.stop();
        }
        node = await startKeelExecution({ ws: false, inMemory: true, args });
        try {
          assertEquals(
            await rpcResult(node.httpUrl, "eth_getStorageAt", [CONTRACT, "0x0", "latest"]),
            word(0),
          );
          assertEquals(BigInt(await rpcResult(node.httpUrl, "eth_getBalance", [HOLDER, "latest"])), 3n);
        } finally {
          await node.stop();
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }),
});

/** The next eth_subscription notification on `ws` whose result passes `want` (within 30 s). */
function notification(
  ws: WebSocket,
  want: (result: { number: string }) => boolean,
): Promise<{ number: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no newHeads notification within 30 s")), 30_000);
    const onMessage = (e: MessageEvent) => {
      const msg = JSON.parse(e.data as string);
      if (msg.method !== "eth_subscription" || !want(msg.params.result)) return;
      clearTimeout(timer);
      ws.removeEventListener("message", onMessage);
      resolve(msg.params.result);
    };
    ws.addEventListener("message", onMessage);
  });
}

Deno.test({
  name:
    "keel execution --dev: anvil_reset with forking turns a dev chain into a fork of anvil; eth_subscribe goes on; a --datadir chain refuses",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withAnvil(async (anvil) => {
      const a = anvil.url;
      await rpcResult(a, "anvil_setBalance", [HOLDER, hex(3n * ETHER)]);
      await rpcResult(a, "anvil_setBalance", [UNREAD, hex(7n * ETHER)]);
      await rpcResult(a, "anvil_mine", ["0x5"]);
      const node = await startKeelExecution({ ws: true, inMemory: true });
      try {
        const k = node.httpUrl;
        assertEquals(BigInt(await rpcResult(k, "eth_chainId", [])), 901n);
        // Not a fork: nothing to move (anvil answers null too).
        assertEquals(await rpcResult(k, "anvil_setRpcUrl", [a]), null);
        assertEquals((await rpcResult(k, "anvil_nodeInfo", [])).forkConfig.forkUrl, null);
        // Not a fork, and no remote named: anvil's error.
        const none = await rpcCall(k, "anvil_reset", [{ forking: {} }]) as {
          error?: { code: number; message: string };
        };
        assertEquals(none.error, {
          code: -32602,
          message: "Forking not enabled and RPC URL not provided to start forking",
        });
        const ws = new WebSocket(node.wsUrl);
        await new Promise((resolve, reject) => {
          ws.onopen = resolve;
          ws.onerror = reject;
        });
        try {
          const subscribed = new Promise((resolve) => {
            ws.addEventListener("message", (e) => {
              const msg = JSON.parse(e.data as string);
              if (msg.id === 1) resolve(msg.result);
            });
          });
          ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }));
          assert(typeof await subscribed === "string", "a subscription id");
          assertEquals(await rpcResult(k, "anvil_reset", [{ forking: { jsonRpcUrl: a } }]), null);
          const head = BigInt(await rpcResult(a, "eth_blockNumber", []));
          assertEquals(BigInt(await rpcResult(k, "eth_blockNumber", [])), head);
          assertEquals(BigInt(await rpcResult(k, "eth_chainId", [])), 31337n);
          assertEquals(BigInt(await rpcResult(k, "eth_getBalance", [HOLDER, "latest"])), 3n * ETHER);
          assertEquals((await rpcResult(k, "anvil_nodeInfo", [])).forkConfig.forkUrl, a);
          // The subscription made on the dev chain hears the fork's next block.
          const heard = notification(ws, (h) => BigInt(h.number) === head + 1n);
          await rpcResult(k, "evm_mine", []);
          assertEquals(BigInt((await heard).number), head + 1n);
          // anvil_setRpcUrl: the same remote through another URL; what was not read yet comes from there.
          const other = a.replace("127.0.0.1", "localhost");
          assertEquals(await rpcResult(k, "anvil_setRpcUrl", [other]), null);
          assertEquals((await rpcResult(k, "anvil_nodeInfo", [])).forkConfig.forkUrl, other);
          assertEquals(BigInt(await rpcResult(k, "eth_getBalance", [UNREAD, "latest"])), 7n * ETHER);
          assertEquals(
            (await rpcCall(k, "anvil_setRpcUrl", ["ftp://x"]) as { error?: { code: number } }).error?.code,
            -32602,
          );
          // A remote that does not answer: reads not made yet fail, clearly.
          assertEquals(await rpcResult(k, "anvil_setRpcUrl", [`http://127.0.0.1:${freePort()}`]), null);
          const gone = await rpcCall(k, "eth_getBalance", [
            "0x00000000000000000000000000000000000000fe",
            "latest",
          ]) as {
            error?: { message: string };
          };
          assertStringIncludes(gone.error?.message ?? "", "from the fork's remote");
          assertEquals(await rpcResult(k, "anvil_setRpcUrl", [a]), null);
        } finally {
          ws.close();
        }
      } catch (e) {
        console.error(node.output().slice(-3000));
        throw e;
      } finally {
        await node.stop();
      }

      // anvil --fork-block-number: a negative number counts back from the remote's head.
      const head = BigInt(await rpcResult(a, "eth_blockNumber", []));
      const back = await startKeelExecution({
        ws: false,
        inMemory: true,
        args: [`--dev.fork-url=${a}`, "--dev.fork-block-number=-2"],
      });
      try {
        assertEquals(BigInt(await rpcResult(back.httpUrl, "eth_blockNumber", [])), head - 2n);
        assertEquals(
          (await rpcResult(back.httpUrl, "anvil_nodeInfo", [])).forkConfig.forkBlockNumber,
          Number(head - 2n),
        );
      } finally {
        await back.stop();
      }
      const before = await startKeelExecution({
        ws: false,
        inMemory: true,
        args: [`--dev.fork-url=${a}`, `--dev.fork-block-number=-${head + 1n}`],
      }).then(async (n) => {
        await n.stop();
        return undefined;
      }, (e: Error) => e);
      assert(before !== undefined, "a fork before the remote's genesis must not start");
      assertStringIncludes(
        before.message,
        `Cannot fork at block -${head + 1n}: the remote's head is block ${head}`,
      );

      // A dev chain kept in --datadir cannot become a fork (a fork lives in memory).
      const kept = await startKeelExecution({ ws: false });
      try {
        const refused = await rpcCall(kept.httpUrl, "anvil_reset", [{ forking: { jsonRpcUrl: a } }]) as {
          error?: { code: number; message: string };
        };
        assertEquals(refused.error?.code, -32602);
        assertStringIncludes(refused.error!.message, "--datadir");
        assertEquals(await rpcResult(kept.httpUrl, "anvil_reset", []), null);
      } finally {
        await kept.stop();
      }
    }),
});
