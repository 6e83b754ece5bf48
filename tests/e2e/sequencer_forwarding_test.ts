/**
 * `--rollup.sequencerhttp` (op-geth): a node that does not build blocks forwards the signed transactions
 * it is sent to the sequencer and keeps a copy in its own pool. Two real processes: a dev-mode sequencer
 * (automine) and a node on the same genesis pointed at it. The sequencer mines what the node forwards;
 * the sequencer's refusal is the caller's answer, unchanged; an unreachable sequencer is a clear error.
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  DEV_ADDRESS_1,
  DEV_CHAIN_ID,
  DEV_PRIVATE_KEY,
  rpcCall,
  rpcResult,
  startKeelExecution,
} from "./helpers/mod.ts";

function signed(nonce: bigint): string {
  return bytesToHex(
    createFeeMarket1559Tx({
      chainId: BigInt(DEV_CHAIN_ID),
      nonce,
      to: DEV_ADDRESS_1,
      value: 7n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
    }, { common: createCustomCommon({ chainId: DEV_CHAIN_ID }, Mainnet, { hardfork: Hardfork.Prague }) })
      .sign(hexToBytes(DEV_PRIVATE_KEY)).serialize(),
  );
}

Deno.test({
  name: "--rollup.sequencerhttp: transactions go to the sequencer, its answer is the caller's",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const sequencer = await startKeelExecution({
      ws: false,
      args: ["--rollup.sequencertxconditionalenabled"],
    });
    let node: Awaited<ReturnType<typeof startKeelExecution>> | undefined;
    try {
      node = await startKeelExecution({
        dev: false,
        ws: false,
        args: [
          `--genesis=${sequencer.dataDir}/genesis.json`,
          `--rollup.sequencerhttp=${sequencer.httpUrl}`,
          "--rollup.sequencertxconditionalenabled",
          "--http.api=eth,net,web3,txpool",
        ],
      });
      const raw = signed(0n);
      const hash = await rpcResult(node.httpUrl, "eth_sendRawTransaction", [raw]);
      // Mined by the sequencer (automine); kept pending in the node's own pool.
      let receipt;
      for (let i = 0; i < 100 && !receipt; i++) {
        receipt = await rpcResult(sequencer.httpUrl, "eth_getTransactionReceipt", [hash]);
        if (!receipt) await new Promise((r) => setTimeout(r, 50));
      }
      assertEquals(receipt?.status, "0x1");
      const content = await rpcResult(node.httpUrl, "txpool_content");
      const pending = Object.values(content.pending as Record<string, Record<string, { hash: string }>>);
      assertEquals(pending.flatMap((byNonce) => Object.values(byNonce).map((t) => t.hash)), [hash]);
      // The same transaction again: the sequencer's refusal, as it gave it.
      const direct = await rpcCall(sequencer.httpUrl, "eth_sendRawTransaction", [raw]) as {
        error: { code: number; message: string };
      };
      const forwarded = await rpcCall(node.httpUrl, "eth_sendRawTransaction", [raw]) as {
        error: { code: number; message: string };
      };
      assert(direct.error !== undefined, JSON.stringify(direct));
      assertEquals(forwarded.error, direct.error);
      // A conditional transaction goes to the sequencer as one, and is mined there.
      const conditional = await rpcResult(node.httpUrl, "eth_sendRawTransactionConditional", [signed(1n), {
        knownAccounts: {},
        blockNumberMin: "0x0",
      }]);
      let mined;
      for (let i = 0; i < 100 && !mined; i++) {
        mined = await rpcResult(sequencer.httpUrl, "eth_getTransactionReceipt", [conditional]);
        if (!mined) await new Promise((r) => setTimeout(r, 50));
      }
      assertEquals(mined?.status, "0x1");
      const refused = await rpcCall(node.httpUrl, "eth_sendRawTransactionConditional", [signed(2n), {
        knownAccounts: {},
        blockNumberMax: "0x0",
      }]) as { error: { code: number; message: string } };
      assertEquals(refused.error.code, -32003);
      // The sequencer gone: a clear error, nothing kept.
      await sequencer.stop();
      const down = await rpcCall(node.httpUrl, "eth_sendRawTransaction", [signed(2n)]) as {
        error: { code: number; message: string };
      };
      assertEquals(down.error.code, -32000);
      assertStringIncludes(down.error.message, "Cannot forward the transaction to the sequencer");
      const after = await rpcResult(node.httpUrl, "txpool_status");
      assertEquals(after.pending, "0x1");
    } catch (e) {
      console.error(sequencer.output().slice(-3000), node?.output().slice(-3000));
      throw e;
    } finally {
      await node?.stop();
      await sequencer.stop();
    }
  },
});
