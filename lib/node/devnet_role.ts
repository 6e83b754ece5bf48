/**
 * `keel devnet`: a local OP devnet in one process. Under `--datadir`:
 * - `l1/`: the L1 dev chain (keel's execution client on a plain Ethereum Prague genesis, sealing every
 *   `--l1.block-time` seconds), HTTP on `--l1.port`;
 * - `sequencer/`: an L2 node sequencing every `--l2.block-time` seconds from its pool, with the batch
 *   submitter posting its blocks to the L1 batch inbox; eth and rollupnode RPC on `--l2.port`, admin on;
 * - `verifier/`: an L2 node deriving the chain from L1 alone; RPC on `--verifier.port`;
 * - `l1-genesis.json`, `l1-deployment.json` (the OP L1 contracts' addresses), `l2-genesis.json`,
 *   `rollup.json`: written on the first run, reused after;
 * - with `--altda` on the first run, an Alt-DA chain: the DataAvailabilityChallenge on L1, a DA server
 *   on `--da.port` keeping inputs in `da/`, the batcher posting keccak256 commitments, both nodes
 *   resolving them.
 * On the first run the OP L1 contracts are deployed (op_l1_deployment.ts) and L2 starts at the L1 block
 * after them: deposits through the OptimismPortal reach L2. Accounts: the test mnemonic's, funded on
 * both chains, with the OP devnet's roles (0 deployer, 1 proposer, 2 batcher, 4 challenger, 5
 * sequencer and guardian, 9 owner). The sequencer node also proposes output roots to the L2OutputOracle
 * (batcher/proposer.ts). Not included yet: p2p between the nodes.
 */
import { bytesToHex, hexToBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import { getLogger } from "../common/logger.ts";
import { pathExists } from "../common/files.ts";
import { JsonRpcClient } from "../common/json_rpc_client.ts";
import { type DevnetOptions, parseArgs } from "../config/mod.ts";
import { ExecutionEngine } from "../execution/engine/mod.ts";
import {
  buildDevGenesis,
  buildL1DevGenesis,
  deployOpL1,
  deriveDevAccounts,
  preinstalls,
} from "../execution/genesis/mod.ts";
import { forksAtGenesis } from "../protocol/hardforks.ts";
import type { RollupConfig } from "../protocol/rollup_config.ts";
import { rollupConfigToJson } from "../protocol/rollup_config_json.ts";
import { encodeEcotoneScalar } from "../protocol/system_config.ts";
import { startExecutionRole } from "./execution_role.ts";
import { startNodeRole } from "./node_role.ts";
import { p2pPeerId } from "../rollup/p2p/mod.ts";
import { FileDaStore, startDaServer } from "../rollup/altda/mod.ts";
import type { RunningRole } from "./role.ts";

/** The L1 genesis entries of the preinstalls every L1 tool expects (Multicall3), nonce 1 as on L2. */
function l1Preinstalls(): Record<string, { code: string; nonce: string; balance: string }> {
  const out: Record<string, { code: string; nonce: string; balance: string }> = {};
  for (const p of preinstalls(DEVNET_L1_CHAIN_ID)) {
    if (p.name !== "MultiCall3") continue;
    out[bytesToHex(p.address).toLowerCase()] = { code: bytesToHex(p.code), nonce: "0x1", balance: "0x0" };
  }
  return out;
}

/** The devnet's L2 chain id and batch inbox (OP devnet conventions). */
export const DEVNET_L2_CHAIN_ID = 901n;
export const DEVNET_L1_CHAIN_ID = 900n;
export const DEVNET_BATCH_INBOX = hexToBytes("0xff00000000000000000000000000000000000901");
/**
 * The DataAvailabilityChallenge of an Alt-DA devnet (`--altda`): windows of 16 L1 blocks each (about a
 * minute at the default block time), no bond, half the resolving cost refunded.
 */
export const DEVNET_ALTDA = {
  challengeWindow: 16n,
  resolveWindow: 16n,
  bondSize: 0n,
  resolverRefundPercentage: 50n,
};

export async function startDevnetRole(o: DevnetOptions): Promise<RunningRole> {
  const log = getLogger(["devnet"]);
  const d = o.datadir;
  const accounts = deriveDevAccounts(10);
  const batcher = accounts[2];
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  const endpoints: Record<string, string> = {};
  try {
    // L1.
    const l1GenesisPath = `${d}/l1-genesis.json`;
    if (!(await pathExists(l1GenesisPath))) {
      const genesis = buildL1DevGenesis({
        chainId: DEVNET_L1_CHAIN_ID,
        timestamp: BigInt(Math.floor(Date.now() / 1000)),
        // Multicall3 at its usual address, which viem's L1 actions (waitToFinalize) batch their reads through.
        extraAlloc: l1Preinstalls(),
      });
      await Deno.writeTextFile(l1GenesisPath, JSON.stringify(genesis));
    }
    const l1Args = parseArgs([
      "execution",
      `--datadir=${d}/l1`,
      `--genesis=${l1GenesisPath}`,
      "--dev",
      `--dev.period=${o.l1BlockTime}`,
      "--http",
      "--http.addr=127.0.0.1",
      `--http.port=${o.l1Port}`,
      // WebSocket on the same port, as anvil: eth_subscribe for viem's and ethers' WebSocket clients.
      "--ws",
      "--ws.addr=127.0.0.1",
      `--ws.port=${o.l1Port}`,
      "--authrpc.port=0",
      `--log.level=${o.logLevel}`,
    ], {});
    if (l1Args.command !== "execution") throw new Error("devnet: bad L1 arguments");
    const l1 = await startExecutionRole(l1Args.options, l1Args.sources);
    stops.push(() => l1.stop());
    const l1Url = `http://127.0.0.1:${o.l1Port}`;
    endpoints.l1 = l1Url;
    const l1Rpc = new JsonRpcClient(l1Url);

    // L2 genesis and rollup config.
    const l2GenesisPath = `${d}/l2-genesis.json`;
    const rollupPath = `${d}/rollup.json`;
    if (!(await pathExists(rollupPath))) {
      // The OP L1 contracts (OP-CONTRACTS.md), with the OP devnet's roles; L2 starts after them.
      log.info("Deploying the OP L1 contracts");
      const deployment = await deployOpL1(l1Rpc, {
        deployerKey: accounts[0].privateKey,
        l1ChainId: DEVNET_L1_CHAIN_ID,
        batcher: batcher.address,
        sequencer: accounts[5].address,
        proposer: accounts[1].address,
        challenger: accounts[4].address,
        finalOwner: accounts[9].address,
        batchInbox: DEVNET_BATCH_INBOX,
        l2BlockTime: BigInt(o.l2BlockTime),
        gasLimit: 30_000_000n,
        baseFeeScalar: 1368,
        blobBaseFeeScalar: 810949,
        altda: o.altda ? DEVNET_ALTDA : undefined,
      });
      await Deno.writeTextFile(
        `${d}/l1-deployment.json`,
        JSON.stringify(
          Object.fromEntries(
            Object.entries(deployment).map((
              [k, v],
            ) => [k, v instanceof Uint8Array ? bytesToHex(v) : Number(v)]),
          ),
          null,
          2,
        ),
      );
      const anchor = await l1Rpc.call<{ hash: string; timestamp: string; number: string }>(
        "eth_getBlockByNumber",
        [
          `0x${deployment.blockNumber.toString(16)}`,
          false,
        ],
      );
      const l2Time = BigInt(anchor.timestamp);
      const genesis = buildDevGenesis({
        chainId: DEVNET_L2_CHAIN_ID,
        l1ChainId: DEVNET_L1_CHAIN_ID,
        upTo: "isthmus",
        timestamp: l2Time,
        batcher: batcher.address,
        l1Addresses: {
          l1CrossDomainMessenger: deployment.l1CrossDomainMessenger,
          l1StandardBridge: deployment.l1StandardBridge,
          l1ERC721Bridge: deployment.l1ERC721Bridge,
        },
      });
      const engine = await ExecutionEngine.open({ genesis });
      const l2Hash = engine.head().hash;
      await engine.close();
      const cfg: RollupConfig = {
        genesis: {
          l1: { hash: hexToBytes(anchor.hash), number: BigInt(anchor.number) },
          l2: { hash: l2Hash, number: 0n },
          l2Time,
          systemConfig: {
            batcherAddr: batcher.address,
            overhead: new Uint8Array(32),
            scalar: encodeEcotoneScalar({ baseFeeScalar: 1368n, blobBaseFeeScalar: 810949n }),
            gasLimit: 30_000_000n,
            eip1559Params: new Uint8Array(8),
            operatorFeeParams: new Uint8Array(32),
          },
        },
        blockTime: BigInt(o.l2BlockTime),
        maxSequencerDrift: 600n,
        seqWindowSize: 3600n,
        channelTimeoutBedrock: 300n,
        l1ChainId: DEVNET_L1_CHAIN_ID,
        l2ChainId: DEVNET_L2_CHAIN_ID,
        forks: forksAtGenesis("isthmus"),
        batchInboxAddress: DEVNET_BATCH_INBOX,
        depositContractAddress: deployment.optimismPortal,
        l1SystemConfigAddress: deployment.systemConfig,
        protocolVersionsAddress: deployment.protocolVersions,
      };
      if (deployment.dataAvailabilityChallenge !== undefined) {
        cfg.altDA = {
          commitmentType: "KeccakCommitment",
          daChallengeAddress: deployment.dataAvailabilityChallenge,
          daChallengeWindow: DEVNET_ALTDA.challengeWindow,
          daResolveWindow: DEVNET_ALTDA.resolveWindow,
        };
      }
      await Deno.writeTextFile(l2GenesisPath, JSON.stringify(genesis));
      await Deno.writeTextFile(rollupPath, JSON.stringify(rollupConfigToJson(cfg), null, 2));
    }

    const deployed = JSON.parse(await Deno.readTextFile(`${d}/l1-deployment.json`)) as {
      l2OutputOracle: string;
      dataAvailabilityChallenge?: string;
    };
    // Alt-DA is fixed when the devnet is made (its rollup config); the DA server keeps inputs in da/.
    const altda: string[] = [];
    if (deployed.dataAvailabilityChallenge !== undefined) {
      await Deno.mkdir(`${d}/da`, { recursive: true });
      const da = startDaServer("127.0.0.1", o.daPort, new FileDaStore(`${d}/da`), {
        genericCommitments: false,
      });
      stops.push(() => da.close());
      endpoints.da = da.url;
      altda.push("--altda.enabled", `--altda.da-server=${da.url}`);
    } else if (o.altda) {
      throw new BaseError(
        "DEVNET_ALTDA",
        `Cannot start the devnet in ${d} with --altda: it was made without Alt-DA (start with a new --datadir)`,
      );
    }

    // The two L2 nodes.
    const node = async (name: "sequencer" | "verifier", port: number, extra: string[]) => {
      const parsed = parseArgs([
        "node",
        `--rollup.config=${rollupPath}`,
        `--genesis=${l2GenesisPath}`,
        `--datadir=${d}/${name}`,
        `--l1=${l1Url}`,
        "--l1.http-poll-interval=500ms",
        // The dev L1 finalizes each block as it seals it: read safe and finalized every L1 block.
        `--l1.epoch-poll-interval=${o.l1BlockTime}s`,
        "--rpc.addr=127.0.0.1",
        `--rpc.port=${port}`,
        "--http",
        "--http.addr=127.0.0.1",
        `--http.port=${port}`,
        "--ws",
        "--ws.addr=127.0.0.1",
        `--ws.port=${port}`,
        "--authrpc.port=0",
        `--p2p.priv.path=${d}/${name}/p2p.txt`,
        `--p2p.peerstore.path=${d}/${name}/peerstore`,
        `--p2p.discovery.path=${d}/${name}/discovery`,
        "--p2p.listen.ip=127.0.0.1",
        `--log.level=${o.logLevel}`,
        ...altda,
        // Blob batches: the nodes read them through the dev L1's beacon API (blob_sidecars by slot).
        ...(o.dataAvailabilityType === "blobs" ? [`--l1.beacon=${l1Url}`] : []),
        ...extra,
      ], {});
      if (parsed.command !== "node") throw new Error("devnet: bad node arguments");
      await Deno.mkdir(`${d}/${name}`, { recursive: true });
      const role = await startNodeRole({
        role: "node",
        options: parsed.options,
        execution: parsed.execution,
        sources: parsed.sources,
        batcherKey: name === "sequencer" ? bytesToHex(batcher.privateKey) : undefined,
        batcherDa: o.dataAvailabilityType,
        proposer: name === "sequencer"
          ? { key: bytesToHex(accounts[1].privateKey), oracle: deployed.l2OutputOracle }
          : undefined,
      });
      stops.push(() => role.stop());
      endpoints[name] = `http://127.0.0.1:${port}`;
    };
    // Unsafe blocks over p2p: the sequencer signs with the SystemConfig's unsafe block signer (account
    // 5) and the verifier dials it, so it follows the sequencer before the batches reach L1.
    await Deno.mkdir(`${d}/sequencer`, { recursive: true });
    const sequencerPeer = await p2pPeerId(`${d}/sequencer/p2p.txt`);
    await node("sequencer", o.l2Port, [
      "--sequencer.enabled",
      "--sequencer.l1-confs=0",
      "--rpc.enable-admin",
      `--rpc.admin-state=${d}/sequencer/admin.json`,
      `--p2p.listen.tcp=${o.p2pPort}`,
      `--p2p.sequencer.key=${bytesToHex(accounts[5].privateKey)}`,
    ]);
    await node("verifier", o.verifierPort, [
      "--p2p.listen.tcp=0",
      `--p2p.static=/ip4/127.0.0.1/tcp/${o.p2pPort}/p2p/${sequencerPeer}`,
    ]);
    log.info("Devnet ready", {
      l1: endpoints.l1,
      sequencer: endpoints.sequencer,
      verifier: endpoints.verifier,
      ...(endpoints.da === undefined ? {} : { da: endpoints.da }),
    });
  } catch (err) {
    await stopAll();
    throw err;
  }
  let stopped: Promise<void> | undefined;
  return {
    endpoints,
    stop() {
      stopped ??= stopAll();
      return stopped;
    },
  };
}
