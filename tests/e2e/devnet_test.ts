/**
 * `keel devnet` as a real process under the baked permission set: an L1 dev chain, an L2 sequencer
 * with its batcher and an L2 verifier. A transfer sent to the sequencer is sequenced, batched to L1 and
 * derived by the verifier, whose block has the sequencer's hash; the verifier's safe head follows.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import {
  createPublicClient,
  createWalletClient,
  decodeFunctionResult,
  defineChain,
  encodeFunctionData,
  http,
  parseAbi,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { publicActionsL1, publicActionsL2, walletActionsL1, walletActionsL2 } from "viem/op-stack";
import { bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import { deriveDevAccounts } from "../../lib/execution/genesis/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import { freePort, type RpcAnswer, rpcCall } from "./helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
type Answer = RpcAnswer;

/** Over a WebSocket on `port`: `first` is answered, then newHeads is subscribed; the first head's number. */
async function overWebSocket(port: number, first: string): Promise<{ answer: unknown; head: number }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}`);
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nothing over the WebSocket on ${port}`)), 30_000);
      const fail = (why: string) => {
        clearTimeout(timer);
        reject(new Error(why));
      };
      let answer: unknown;
      ws.onopen = () => ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: first, params: [] }));
      ws.onerror = () => fail(`WebSocket error on ${port}`);
      ws.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.error !== undefined) return fail(`${port}: ${JSON.stringify(m.error)}`);
        if (m.id === 1) {
          answer = m.result;
          ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "eth_subscribe", params: ["newHeads"] }));
        } else if (m.method === "eth_subscription") {
          clearTimeout(timer);
          resolve({ answer, head: Number(m.params.result.number) });
        }
      };
    });
  } finally {
    ws.close();
  }
}

Deno.test({
  name: "keel devnet: a transfer on the sequencer reaches L1 and the verifier derives it",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "keel-devnet-" });
    const [l1Port, l2Port, verifierPort, p2pPort] = [freePort(), freePort(), freePort(), freePort()];
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-P=keel",
        `--config=${ROOT}deno.json`,
        `${ROOT}main.ts`,
        "devnet",
        `--datadir=${dir}/devnet`,
        `--l1.port=${l1Port}`,
        `--l2.port=${l2Port}`,
        `--verifier.port=${verifierPort}`,
        `--p2p.port=${p2pPort}`,
        "--l1.block-time=1",
        "--l2.block-time=1",
      ],
      cwd: ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).spawn();
    let out = "";
    const dec = new TextDecoder();
    const pump = async (st: ReadableStream<Uint8Array>) => {
      for await (const chunk of st) out += dec.decode(chunk, { stream: true });
    };
    const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
    const call = async (port: number, method: string, params: unknown[] = []) =>
      (await rpcCall(`http://127.0.0.1:${port}`, method, params)) as Answer;
    const until = async <T>(what: string, fn: () => Promise<T | undefined>): Promise<T> => {
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        const v = await fn().catch(() => undefined);
        if (v !== undefined && v !== null) return v;
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`timed out waiting for ${what}\n${out}`);
    };
    try {
      await until(
        "the verifier's safe head",
        async () =>
          ((await call(verifierPort, "rollupnode_syncStatus")).result?.safe_l2?.number ?? 0) >= 2
            ? true
            : undefined,
      );
      // Unsafe blocks reach the verifier over p2p, ahead of the batches on L1.
      await until("the verifier's unsafe head ahead of its safe head", async () => {
        const st = (await call(verifierPort, "rollupnode_syncStatus")).result;
        return st !== undefined && st.unsafe_l2.number > st.safe_l2.number ? true : undefined;
      });
      const verifierPeers = (await call(verifierPort, "nodep2p_peers", [true])).result;
      assertEquals(verifierPeers.totalConnected, 1);
      // Each node serves WebSocket on its HTTP port, as anvil: eth_subscribe beside the node's methods.
      assertEquals((await overWebSocket(l1Port, "eth_chainId")).answer, "0x384");
      assertEquals((await overWebSocket(l2Port, "eth_chainId")).answer, "0x385");
      const overWs = await overWebSocket(verifierPort, "rollupnode_syncStatus");
      assert((overWs.answer as { unsafe_l2: { number: number } }).unsafe_l2.number >= 2);
      assert(overWs.head >= 2);
      assertEquals((await call(l1Port, "eth_chainId")).result, "0x384");
      assertEquals((await call(l2Port, "eth_chainId")).result, "0x385");
      // The L1 dev chain serves anvil's dev methods and the dev accounts, as anvil as an L1 would.
      assertEquals((await call(l1Port, "anvil_nodeInfo")).result.environment.chainId, 900);
      assertEquals((await call(l1Port, "eth_accounts")).result.length, 10);
      const key = deriveDevAccounts(2)[1].privateKey;
      const tx = createFeeMarket1559Tx({
        chainId: 901n,
        nonce: 0n,
        to: new Uint8Array(20).fill(0x77),
        value: 10n ** 15n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 10n ** 9n,
      }, { common: new Common({ chain: { ...Mainnet, chainId: 901 }, hardfork: Hardfork.Prague }) }).sign(
        key,
      );
      const hash = (await call(l2Port, "eth_sendRawTransaction", [bytesToHex(tx.serialize())])).result;
      assertEquals(hash, bytesToHex(tx.hash()));
      const onSequencer = await until(
        "the sequencer's receipt",
        async () => (await call(l2Port, "eth_getTransactionReceipt", [hash])).result,
      );
      const onVerifier = await until(
        "the verifier's receipt",
        async () => (await call(verifierPort, "eth_getTransactionReceipt", [hash])).result,
      );
      assertEquals(onVerifier.blockHash, onSequencer.blockHash);
      assertEquals(onVerifier.status, "0x1");
      assert(onVerifier.l1Fee !== undefined, "the receipt carries the L1 fee");
      const status = await until("the verifier's safe head past the transfer", async () => {
        const st = (await call(verifierPort, "rollupnode_syncStatus")).result;
        return st?.safe_l2?.number >= Number(onVerifier.blockNumber) ? st : undefined;
      });
      assert(status.current_l1.number >= 1);
      // The dev L1 finalizes each block it seals and the devnet reads L1's safe and finalized blocks
      // every L1 block (--l1.epoch-poll-interval), so the transfer's block becomes finalized.
      const final = await until("the verifier's finalized head past the transfer", async () => {
        const st = (await call(verifierPort, "rollupnode_syncStatus")).result;
        return st?.finalized_l2?.number >= Number(onVerifier.blockNumber) ? st : undefined;
      });
      assert(final.finalized_l1.number >= 1);
      const batches = await call(l1Port, "eth_getBlockByNumber", ["latest", false]);
      assert(Number(batches.result.number) >= 1);
      // A deposit through the OptimismPortal on L1 mints on L2 (deposits.md), on both nodes.
      const rollup = JSON.parse(await Deno.readTextFile(`${dir}/devnet/rollup.json`));
      const portal = rollup.deposit_contract_address as `0x${string}`;
      const recipient = `0x${"42".repeat(20)}` as const;
      const data = encodeFunctionData({
        abi: parseAbi(["function depositTransaction(address,uint256,uint64,bool,bytes) payable"]),
        functionName: "depositTransaction",
        args: [recipient, 10n ** 18n, 100_000n, false, "0x"],
      });
      const l1Key = deriveDevAccounts(4)[3].privateKey;
      const deposit = createFeeMarket1559Tx({
        chainId: 900n,
        nonce: BigInt(
          (await call(l1Port, "eth_getTransactionCount", [
            bytesToHex(deriveDevAccounts(4)[3].address),
            "pending",
          ])).result,
        ),
        to: hexToBytes(portal),
        value: 10n ** 18n,
        data: hexToBytes(data),
        gasLimit: 300_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
      }, { common: new Common({ chain: { ...Mainnet, chainId: 900 }, hardfork: Hardfork.Prague }) }).sign(
        l1Key,
      );
      const depositHash =
        (await call(l1Port, "eth_sendRawTransaction", [bytesToHex(deposit.serialize())])).result;
      const l1Receipt = await until(
        "the deposit's L1 receipt",
        async () => (await call(l1Port, "eth_getTransactionReceipt", [depositHash])).result,
      );
      assertEquals(l1Receipt.status, "0x1");
      assertEquals(l1Receipt.logs.length, 1, "TransactionDeposited");
      // The proposer submits output roots to the L2OutputOracle (every 4 L2 blocks once safe).
      const deployment = JSON.parse(await Deno.readTextFile(`${dir}/devnet/l1-deployment.json`));
      const oracleAbi = parseAbi([
        "function latestBlockNumber() view returns (uint256)",
        "function getL2Output(uint256) view returns ((bytes32 outputRoot, uint128 timestamp, uint128 l2BlockNumber))",
      ]);
      const ethCall = async (data: `0x${string}`) =>
        (await call(l1Port, "eth_call", [{ to: deployment.l2OutputOracle, data }, "latest"]))
          .result as `0x${string}`;
      await until("an output proposal", async () => {
        const raw = await ethCall(encodeFunctionData({ abi: oracleAbi, functionName: "latestBlockNumber" }));
        return decodeFunctionResult({ abi: oracleAbi, functionName: "latestBlockNumber", data: raw }) >= 4n
          ? true
          : undefined;
      });
      const first = decodeFunctionResult({
        abi: oracleAbi,
        functionName: "getL2Output",
        data: await ethCall(encodeFunctionData({ abi: oracleAbi, functionName: "getL2Output", args: [0n] })),
      });
      assertEquals(first.l2BlockNumber, 4n);
      const [, root] = (await call(l2Port, "rollupnode_outputAtBlock", ["0x4"])).result;
      assertEquals(first.outputRoot, root);
      for (const port of [l2Port, verifierPort]) {
        await until(
          `the deposit on L2 (port ${port})`,
          async () =>
            (await call(port, "eth_getBalance", [recipient, "latest"])).result === "0xde0b6b3a7640000"
              ? true
              : undefined,
        );
      }

      // A withdrawal, end to end with viem's OP Stack actions: initiated on L2, proven on L1 against a
      // proposed output root (eth_getProof on L2), finalized after the 12 s finalization period.
      const l1Chain = defineChain({
        id: 900,
        name: "keel devnet L1",
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [`http://127.0.0.1:${l1Port}`] } },
        contracts: { multicall3: { address: "0xcA11bde05977b3631167028862bE2a173976CA11" } },
      });
      const l2Chain = defineChain({
        id: 901,
        name: "keel devnet L2",
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [`http://127.0.0.1:${l2Port}`] } },
        sourceId: 900,
        contracts: {
          portal: { 900: { address: portal } },
          l2OutputOracle: { 900: { address: deployment.l2OutputOracle } },
        },
      });
      const account = privateKeyToAccount(bytesToHex(deriveDevAccounts(5)[4].privateKey) as `0x${string}`);
      const l1Http = http(`http://127.0.0.1:${l1Port}`);
      const l2Http = http(`http://127.0.0.1:${l2Port}`);
      const l1Public = createPublicClient({ chain: l1Chain, transport: l1Http, pollingInterval: 250 })
        .extend(publicActionsL1());
      const l1Wallet = createWalletClient({
        account,
        chain: l1Chain,
        transport: l1Http,
        pollingInterval: 250,
      })
        .extend(walletActionsL1());
      const l2Public = createPublicClient({ chain: l2Chain, transport: l2Http, pollingInterval: 250 })
        .extend(publicActionsL2());
      const l2Wallet = createWalletClient({
        account,
        chain: l2Chain,
        transport: l2Http,
        pollingInterval: 250,
      })
        .extend(walletActionsL2());
      const l1Recipient = `0x${"4b".repeat(20)}` as const;
      const initiate = await l2Wallet.initiateWithdrawal({
        request: { gas: 21_000n, to: l1Recipient, value: 5n * 10n ** 17n },
      });
      const receipt = await l2Public.waitForTransactionReceipt({ hash: initiate });
      assertEquals(receipt.status, "success");
      const { output, withdrawal } = await l1Public.waitToProve({ receipt, targetChain: l2Chain });
      const proveArgs = await l2Public.buildProveWithdrawal({ output, withdrawal });
      const prove = await l1Wallet.proveWithdrawal(proveArgs);
      assertEquals((await l1Public.waitForTransactionReceipt({ hash: prove })).status, "success");
      await l1Public.waitToFinalize({ targetChain: l2Chain, withdrawalHash: withdrawal.withdrawalHash });
      const finalize = await l1Wallet.finalizeWithdrawal({ targetChain: l2Chain, withdrawal });
      assertEquals((await l1Public.waitForTransactionReceipt({ hash: finalize })).status, "success");
      assertEquals(await l1Public.getBalance({ address: l1Recipient }), 5n * 10n ** 17n);
    } finally {
      // The devnet may have exited already (then its output below says why).
      try {
        child.kill("SIGTERM");
      } catch {
        // already terminated
      }
      const { code } = await child.status;
      await pumps;
      await Deno.remove(dir, { recursive: true });
      assertEquals(code, 0, out);
    }
  },
});
