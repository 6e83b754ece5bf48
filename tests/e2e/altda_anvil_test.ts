/**
 * Alt-DA derivation end to end (specs/experimental/alt-da.md), with anvil (the real binary) as L1 and a
 * DA server on 127.0.0.1: the batcher stores each frame on the DA server and posts its commitment; a
 * verifier resolves the commitments and derives the sequencer's chain block hash for block hash. With
 * the DataAvailabilityChallenge contract of @eth-optimism/contracts-bedrock deployed on anvil (behind
 * its Proxy), an input the DA server lost is taken from the transaction that resolved its challenge,
 * and one whose challenge expired unresolved is dropped.
 */
import { type Abi, encodeAbiParameters, encodeFunctionData, type Hex } from "viem";
import DacJson from "@eth-optimism/contracts-bedrock/forge-artifacts/DataAvailabilityChallenge.sol/DataAvailabilityChallenge.json" with {
  type: "json",
};
import { bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import { JsonRpcClient } from "../../lib/common/json_rpc_client.ts";
import { ARTIFACTS } from "../../lib/execution/genesis/artifacts.ts";
import {
  ChallengeStatus,
  type Commitment,
  decodeCommitment,
  encodeCommitment,
  GENERIC_COMMITMENT,
  KECCAK256_COMMITMENT,
} from "../../lib/protocol/altda.ts";
import { systemConfigFromGenesis } from "../../lib/protocol/system_config.ts";
import { AltDaManager, DaClient } from "../../lib/rollup/altda/mod.ts";
import { DerivationPipeline } from "../../lib/rollup/derive/mod.ts";
import { L1Client } from "../../lib/rollup/l1/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import { fakeDaServer } from "../unit/rollup/altda/fake_da_server.ts";
import {
  anvilForTest,
  BATCHER,
  INBOX,
  type OpChain,
  opChainOnAnvil,
  startAnvil,
  verifyFromL1,
  waitForReceipt,
} from "./helpers/mod.ts";

const tool = await anvilForTest("altda_anvil_test");
const L2_BLOCKS = 12;
const WINDOW = 20n;
/** anvil's accounts 3 and 4 (unlocked): the contract's deployer and a challenger. */
const DEPLOYER = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const CHALLENGER = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
const dacAbi = DacJson.abi as Abi;

function client(url: string, daService: boolean): DaClient {
  return new DaClient({
    url,
    verifyOnRead: true,
    daService,
    getTimeoutMs: 5_000,
    putTimeoutMs: 5_000,
    maxConcurrent: 2,
  });
}

async function send(
  rpc: JsonRpcClient,
  from: string,
  data: Hex,
  to?: Hex,
): Promise<{ contractAddress?: string }> {
  const hash = await rpc.call<string>("eth_sendTransaction", [{ from, to, data, gas: "0x1e8480" }]);
  const receipt = await waitForReceipt(rpc, hash) as { status: string; contractAddress?: string };
  assertEquals(receipt.status, "0x1", `transaction ${hash}`);
  return receipt;
}

/** The DataAvailabilityChallenge behind a Proxy, initialized with windows of WINDOW blocks and no bond. */
async function deployChallengeContract(rpc: JsonRpcClient): Promise<Hex> {
  const impl = await send(rpc, DEPLOYER, DacJson.bytecode.object as Hex);
  const proxyAbi = ARTIFACTS.Proxy.abi as Abi;
  const args = encodeAbiParameters([{ type: "address" }], [DEPLOYER as Hex]).slice(2);
  const proxy = await send(rpc, DEPLOYER, `${ARTIFACTS.Proxy.bytecode.object}${args}` as Hex);
  const init = encodeFunctionData({
    abi: dacAbi,
    functionName: "initialize",
    args: [DEPLOYER, WINDOW, WINDOW, 0n, 0n],
  });
  await send(
    rpc,
    DEPLOYER,
    encodeFunctionData({
      abi: proxyAbi,
      functionName: "upgradeToAndCall",
      args: [impl.contractAddress, init],
    }),
    proxy.contractAddress as Hex,
  );
  return proxy.contractAddress as Hex;
}

/** The batcher's commitments on L1, with their inclusion blocks. */
async function commitments(rpc: JsonRpcClient, l1: L1Client): Promise<{ block: bigint; c: Commitment }[]> {
  const head = BigInt(await rpc.call<string>("eth_blockNumber"));
  const out: { block: bigint; c: Commitment }[] = [];
  for (let n = 1n; n <= head; n++) {
    const { txs } = await l1.blockWithTxs((await l1.blockRef(n)).hash);
    for (const tx of txs) {
      if (bytesToHex(tx.from) !== bytesToHex(BATCHER) || tx.to === null) continue;
      if (bytesToHex(tx.to) !== bytesToHex(INBOX)) continue;
      assertEquals(tx.input[0], 1, "batcher transactions carry commitments (version 1), not frames");
      out.push({ block: n, c: decodeCommitment(tx.input.subarray(1)) });
    }
  }
  return out;
}

Deno.test({
  name:
    "alt-da: a verifier derives the sequencer's chain through the DA server (keccak256 and generic commitments)",
  ignore: !tool.ok,
  sanitizeResources: false,
  fn: async () => {
    for (const daService of [false, true]) {
      const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
      const da = fakeDaServer();
      try {
        const rpc = new JsonRpcClient(anvil.url);
        const l1 = new L1Client(rpc);
        const chain = await opChainOnAnvil(rpc, l1, L2_BLOCKS, "calldata", client(da.url, daService));
        const posted = await commitments(rpc, l1);
        assert(posted.length >= 2, `${posted.length} commitments`);
        for (const { c } of posted) {
          assertEquals(c.type, daService ? GENERIC_COMMITMENT : KECCAK256_COMMITMENT);
          assert(da.store.has(bytesToHex(encodeCommitment(c))));
        }
        const manager = new AltDaManager(
          {
            commitmentType: daService ? GENERIC_COMMITMENT : KECCAK256_COMMITMENT,
            challengeAddress: daService ? undefined : hexToBytes("0x" + "da".repeat(20)),
            challengeWindow: WINDOW,
            resolveWindow: WINDOW,
          },
          client(da.url, daService),
          l1,
        );
        await verifyFromL1(l1, chain, undefined, manager);
        assertEquals(da.state.gets, posted.length);
        await chain.sequencer.close();
      } finally {
        await da.close();
        await anvil.stop();
      }
    }
  },
});

/**
 * An Alt-DA chain on a fresh anvil with keccak256 commitments whose first input the DA server lost,
 * the challenge contract deployed and that commitment challenged; `run` gets it with a verifier's
 * manager reading that contract.
 */
async function withChallengedInput(
  run: (t: {
    rpc: JsonRpcClient;
    l1: L1Client;
    chain: OpChain;
    first: { block: bigint; c: Commitment };
    key: Hex;
    input: Uint8Array;
    contract: Hex;
    manager: AltDaManager;
  }) => Promise<void>,
): Promise<void> {
  const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
  const da = fakeDaServer();
  try {
    const rpc = new JsonRpcClient(anvil.url);
    const l1 = new L1Client(rpc);
    const chain = await opChainOnAnvil(rpc, l1, L2_BLOCKS, "calldata", client(da.url, false));
    const [first] = await commitments(rpc, l1);
    const key = bytesToHex(encodeCommitment(first.c)) as Hex;
    const input = da.store.get(key)!;
    da.withheld.add(key);
    const contract = await deployChallengeContract(rpc);
    await send(
      rpc,
      CHALLENGER,
      encodeFunctionData({ abi: dacAbi, functionName: "challenge", args: [first.block, key] }),
      contract,
    );
    const manager = new AltDaManager(
      {
        commitmentType: KECCAK256_COMMITMENT,
        challengeAddress: hexToBytes(contract),
        challengeWindow: WINDOW,
        resolveWindow: WINDOW,
      },
      client(da.url, false),
      l1,
    );
    await run({ rpc, l1, chain, first, key, input, contract, manager });
    await chain.sequencer.close();
  } finally {
    await da.close();
    await anvil.stop();
  }
}

Deno.test({
  name: "alt-da: an input the DA server lost comes from the L1 transaction that resolved its challenge",
  ignore: !tool.ok,
  sanitizeResources: false,
  fn: () =>
    withChallengedInput(async ({ rpc, l1, chain, first, key, input, contract, manager }) => {
      await send(
        rpc,
        DEPLOYER,
        encodeFunctionData({
          abi: dacAbi,
          functionName: "resolve",
          args: [first.block, key, bytesToHex(input)],
        }),
        contract,
      );
      await verifyFromL1(l1, chain, undefined, manager);
      assertEquals(manager.state.status(first.c, first.block), ChallengeStatus.Resolved);
    }),
});

Deno.test({
  name: "alt-da: an input whose challenge expired unresolved is dropped; its blocks are derived without it",
  ignore: !tool.ok,
  sanitizeResources: false,
  fn: () =>
    withChallengedInput(async ({ rpc, l1, chain, first, manager }) => {
      // Past the resolve window and the sequencing window of the first epochs.
      await rpc.call("anvil_mine", ["0x30"]);
      const drops: string[] = [];
      const { cfg, genesisRef } = chain;
      const pipeline = new DerivationPipeline(
        cfg,
        {
          l1,
          l2: {
            l2BlockRefByNumber: () => Promise.resolve(genesisRef),
            transactionsByNumber: () => Promise.resolve([]),
            systemConfigOf: () => Promise.resolve(systemConfigFromGenesis(cfg.genesis.systemConfig)),
          },
          onDrop: (stage, reason) => drops.push(`${stage}: ${reason}`),
          altda: manager,
        },
        await l1.blockRef(0n),
        systemConfigFromGenesis(cfg.genesis.systemConfig),
      );
      // The first block after genesis: without the lost frame the channel never completes, so the
      // epoch's blocks are derived empty once its sequencing window is over (only the L1-info deposit).
      const r = await pipeline.next(genesisRef);
      assert(r !== "idle");
      assertEquals(r.attributes.transactions?.length, 1);
      assertEquals(chain.blocks[0].transactions.length, 3, "the sequencer's block had two transfers");
      assertEquals(manager.state.status(first.c, first.block), ChallengeStatus.Expired);
      assert(drops.some((d) => d.startsWith("altda: input skipped")), drops.join("; "));
    }),
});
