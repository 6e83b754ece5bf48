/**
 * The OP Stack's L1 contracts (`@eth-optimism/contracts-bedrock@0.17.3`) deployed on an L1 over
 * JSON-RPC, as OP-CONTRACTS.md lays the deployment out (Deploy.s.sol's order, without the Safe and the
 * fault-proof contracts): AddressManager, ProxyAdmin, the proxies, the implementations, and each proxy
 * initialised through `ProxyAdmin.upgradeAndCall`. All 34 transactions come from one deployer and are
 * sent at once with consecutive nonces, so every address follows from the deployer's nonce; then every
 * receipt is awaited. Used by `keel devnet`.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createAddressFromPrivateKey } from "@ethereumjs/util";
import { type Abi, encodeDeployData, encodeFunctionData, type Hex } from "viem";
import { bytesToHex, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import type { JsonRpcClient } from "../../common/json_rpc_client.ts";
import { rlpEncode } from "../../common/rlp.ts";

/** The proxies a deployment answers (the addresses users and the rollup config need). */
export interface OpL1Deployment {
  addressManager: Uint8Array;
  proxyAdmin: Uint8Array;
  superchainConfig: Uint8Array;
  protocolVersions: Uint8Array;
  optimismPortal: Uint8Array;
  systemConfig: Uint8Array;
  l1StandardBridge: Uint8Array;
  l1CrossDomainMessenger: Uint8Array;
  optimismMintableERC20Factory: Uint8Array;
  l1ERC721Bridge: Uint8Array;
  l2OutputOracle: Uint8Array;
  /** Alt-DA deployments only: the DataAvailabilityChallenge proxy. */
  dataAvailabilityChallenge?: Uint8Array;
  /** The L1 block that holds the last deployment transaction. */
  blockNumber: bigint;
}

export interface OpL1DeploymentConfig {
  /** The deployer (and L1 ProxyAdmin owner) key: OP devnet account 0. */
  deployerKey: Uint8Array;
  l1ChainId: bigint;
  batcher: Uint8Array;
  /** Unsafe block signer and guardian (account 5). */
  sequencer: Uint8Array;
  proposer: Uint8Array;
  challenger: Uint8Array;
  /** SystemConfig and ProtocolVersions owner (account 9). */
  finalOwner: Uint8Array;
  batchInbox: Uint8Array;
  l2BlockTime: bigint;
  gasLimit: bigint;
  baseFeeScalar: number;
  blobBaseFeeScalar: number;
  /**
   * Alt-DA (specs/experimental/alt-da.md): also the DataAvailabilityChallenge behind a proxy, owned by
   * `finalOwner`, with these windows (L1 blocks), bond (wei) and resolver refund (percent).
   */
  altda?: {
    challengeWindow: bigint;
    resolveWindow: bigint;
    bondSize: bigint;
    resolverRefundPercentage: bigint;
  };
}

type Artifact = { abi: Abi; bytecode: { object: Hex } };

async function artifact(name: string): Promise<Artifact> {
  // Loaded when a devnet deploys (each artifact embeds its AST: hundreds of KiB).
  const loaders: Record<string, () => Promise<{ default: unknown }>> = {
    AddressManager: () =>
      import("@eth-optimism/contracts-bedrock/forge-artifacts/AddressManager.sol/AddressManager.json", {
        with: { type: "json" },
      }),
    ProxyAdmin: () =>
      import("@eth-optimism/contracts-bedrock/forge-artifacts/ProxyAdmin.sol/ProxyAdmin.json", {
        with: { type: "json" },
      }),
    Proxy: () =>
      import("@eth-optimism/contracts-bedrock/forge-artifacts/Proxy.sol/Proxy.json", {
        with: { type: "json" },
      }),
    SuperchainConfig: () =>
      import("@eth-optimism/contracts-bedrock/forge-artifacts/SuperchainConfig.sol/SuperchainConfig.json", {
        with: { type: "json" },
      }),
    ProtocolVersions: () =>
      import("@eth-optimism/contracts-bedrock/forge-artifacts/ProtocolVersions.sol/ProtocolVersions.json", {
        with: { type: "json" },
      }),
    L1ChugSplashProxy: () =>
      import("@eth-optimism/contracts-bedrock/forge-artifacts/L1ChugSplashProxy.sol/L1ChugSplashProxy.json", {
        with: { type: "json" },
      }),
    ResolvedDelegateProxy: () =>
      import(
        "@eth-optimism/contracts-bedrock/forge-artifacts/ResolvedDelegateProxy.sol/ResolvedDelegateProxy.json",
        {
          with: { type: "json" },
        }
      ),
    L1CrossDomainMessenger: () =>
      import(
        "@eth-optimism/contracts-bedrock/forge-artifacts/L1CrossDomainMessenger.sol/L1CrossDomainMessenger.json",
        {
          with: { type: "json" },
        }
      ),
    OptimismMintableERC20Factory: () =>
      import(
        "@eth-optimism/contracts-bedrock/forge-artifacts/OptimismMintableERC20Factory.sol/OptimismMintableERC20Factory.json",
        { with: { type: "json" } }
      ),
    SystemConfig: () =>
      import("@eth-optimism/contracts-bedrock/forge-artifacts/SystemConfig.sol/SystemConfig.json", {
        with: { type: "json" },
      }),
    L1StandardBridge: () =>
      import("@eth-optimism/contracts-bedrock/forge-artifacts/L1StandardBridge.sol/L1StandardBridge.json", {
        with: { type: "json" },
      }),
    L1ERC721Bridge: () =>
      import("@eth-optimism/contracts-bedrock/forge-artifacts/L1ERC721Bridge.sol/L1ERC721Bridge.json", {
        with: { type: "json" },
      }),
    OptimismPortal: () =>
      import("@eth-optimism/contracts-bedrock/forge-artifacts/OptimismPortal.sol/OptimismPortal.json", {
        with: { type: "json" },
      }),
    DataAvailabilityChallenge: () =>
      import(
        "@eth-optimism/contracts-bedrock/forge-artifacts/DataAvailabilityChallenge.sol/DataAvailabilityChallenge.json",
        { with: { type: "json" } }
      ),
    L2OutputOracle: () =>
      import("@eth-optimism/contracts-bedrock/forge-artifacts/L2OutputOracle.sol/L2OutputOracle.json", {
        with: { type: "json" },
      }),
  };
  return (await loaders[name]()).default as Artifact;
}

/** The address a CREATE from `deployer` at `nonce` gets. */
export function createAddressOf(deployer: Uint8Array, nonce: bigint): Uint8Array {
  return keccak256(rlpEncode([deployer, nonce])).slice(12);
}

const hex = (b: Uint8Array) => bytesToHex(b) as Hex;

/** Deploys the OP L1 contracts; resolves once every transaction is mined. */
export async function deployOpL1(rpc: JsonRpcClient, cfg: OpL1DeploymentConfig): Promise<OpL1Deployment> {
  const deployer = createAddressFromPrivateKey(cfg.deployerKey).bytes;
  const common = new Common({
    chain: { ...Mainnet, chainId: Number(cfg.l1ChainId) },
    hardfork: Hardfork.Prague,
  });
  const start = BigInt(await rpc.call<string>("eth_getTransactionCount", [bytesToHex(deployer), "pending"]));
  const latest = await rpc.call<{ timestamp: string }>("eth_getBlockByNumber", ["latest", false]);
  const gasPrice = BigInt(await rpc.call<string>("eth_gasPrice"));
  const txs: { data: Uint8Array; to?: Uint8Array; gas: bigint }[] = [];
  const at = (i: number) => createAddressOf(deployer, start + BigInt(i));
  const deploy = async (name: string, args: unknown[] = [], gas = 3_000_000n) => {
    const a = await artifact(name);
    const index = txs.length;
    txs.push({ data: hexToBytes(encodeDeployData({ abi: a.abi, bytecode: a.bytecode.object, args })), gas });
    return at(index);
  };
  const call = async (to: Uint8Array, name: string, fn: string, args: unknown[], gas = 500_000n) => {
    const a = await artifact(name);
    txs.push({ to, data: hexToBytes(encodeFunctionData({ abi: a.abi, functionName: fn, args })), gas });
  };
  const initData = async (name: string, args: unknown[]) =>
    encodeFunctionData({ abi: (await artifact(name)).abi, functionName: "initialize", args });

  const addressManager = await deploy("AddressManager");
  const proxyAdmin = await deploy("ProxyAdmin", [hex(deployer)], 2_500_000n);
  await call(proxyAdmin, "ProxyAdmin", "setAddressManager", [hex(addressManager)]);
  const upgrade = async (proxy: Uint8Array, impl: Uint8Array, data: Hex) =>
    await call(proxyAdmin, "ProxyAdmin", "upgradeAndCall", [hex(proxy), hex(impl), data], 1_000_000n);
  const superchainConfig = await deploy("Proxy", [hex(proxyAdmin)]);
  const superchainImpl = await deploy("SuperchainConfig");
  await upgrade(
    superchainConfig,
    superchainImpl,
    await initData("SuperchainConfig", [hex(cfg.sequencer), false]),
  );
  const protocolVersions = await deploy("Proxy", [hex(proxyAdmin)]);
  const protocolVersionsImpl = await deploy("ProtocolVersions");
  await upgrade(
    protocolVersions,
    protocolVersionsImpl,
    await initData("ProtocolVersions", [hex(cfg.finalOwner), 0n, 0n]),
  );
  const optimismPortal = await deploy("Proxy", [hex(proxyAdmin)]);
  const systemConfig = await deploy("Proxy", [hex(proxyAdmin)]);
  const l1StandardBridge = await deploy("L1ChugSplashProxy", [hex(proxyAdmin)]);
  const l1CrossDomainMessenger = await deploy("ResolvedDelegateProxy", [
    hex(addressManager),
    "OVM_L1CrossDomainMessenger",
  ]);
  const optimismMintableERC20Factory = await deploy("Proxy", [hex(proxyAdmin)]);
  const l1ERC721Bridge = await deploy("Proxy", [hex(proxyAdmin)]);
  const l2OutputOracle = await deploy("Proxy", [hex(proxyAdmin)]);
  await call(addressManager, "AddressManager", "transferOwnership", [hex(proxyAdmin)]);
  const messengerImpl = await deploy("L1CrossDomainMessenger");
  const factoryImpl = await deploy("OptimismMintableERC20Factory");
  const systemConfigImpl = await deploy("SystemConfig", [], 4_000_000n);
  const bridgeImpl = await deploy("L1StandardBridge", [], 4_000_000n);
  const erc721Impl = await deploy("L1ERC721Bridge");
  const portalImpl = await deploy("OptimismPortal", [], 7_500_000n);
  const oracleImpl = await deploy("L2OutputOracle");
  await upgrade(
    optimismPortal,
    portalImpl,
    await initData("OptimismPortal", [hex(l2OutputOracle), hex(systemConfig), hex(superchainConfig)]),
  );
  const batcherHash = `0x${"00".repeat(12)}${bytesToHex(cfg.batcher).slice(2)}` as Hex;
  await upgrade(
    systemConfig,
    systemConfigImpl,
    await initData("SystemConfig", [
      hex(cfg.finalOwner),
      cfg.baseFeeScalar,
      cfg.blobBaseFeeScalar,
      batcherHash,
      cfg.gasLimit,
      hex(cfg.sequencer),
      {
        maxResourceLimit: 20_000_000,
        elasticityMultiplier: 10,
        baseFeeMaxChangeDenominator: 8,
        minimumBaseFee: 1_000_000_000,
        systemTxMaxGas: 1_000_000,
        maximumBaseFee: (1n << 128n) - 1n,
      },
      hex(cfg.batchInbox),
      {
        l1CrossDomainMessenger: hex(l1CrossDomainMessenger),
        l1ERC721Bridge: hex(l1ERC721Bridge),
        l1StandardBridge: hex(l1StandardBridge),
        disputeGameFactory: hex(new Uint8Array(20)),
        optimismPortal: hex(optimismPortal),
        optimismMintableERC20Factory: hex(optimismMintableERC20Factory),
        gasPayingToken: "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE",
      },
    ]),
  );
  await call(proxyAdmin, "ProxyAdmin", "setProxyType", [hex(l1StandardBridge), 1]);
  await upgrade(
    l1StandardBridge,
    bridgeImpl,
    await initData("L1StandardBridge", [
      hex(l1CrossDomainMessenger),
      hex(superchainConfig),
      hex(systemConfig),
    ]),
  );
  await upgrade(
    l1ERC721Bridge,
    erc721Impl,
    await initData("L1ERC721Bridge", [hex(l1CrossDomainMessenger), hex(superchainConfig)]),
  );
  await upgrade(
    optimismMintableERC20Factory,
    factoryImpl,
    await initData("OptimismMintableERC20Factory", [hex(l1StandardBridge)]),
  );
  await call(proxyAdmin, "ProxyAdmin", "setProxyType", [hex(l1CrossDomainMessenger), 2]);
  await call(proxyAdmin, "ProxyAdmin", "setImplementationName", [
    hex(l1CrossDomainMessenger),
    "OVM_L1CrossDomainMessenger",
  ]);
  await upgrade(
    l1CrossDomainMessenger,
    messengerImpl,
    await initData("L1CrossDomainMessenger", [hex(superchainConfig), hex(optimismPortal), hex(systemConfig)]),
  );
  await upgrade(
    l2OutputOracle,
    oracleImpl,
    await initData("L2OutputOracle", [
      4n,
      cfg.l2BlockTime,
      0n,
      BigInt(latest.timestamp),
      hex(cfg.proposer),
      hex(cfg.challenger),
      12n,
    ]),
  );
  let dataAvailabilityChallenge: Uint8Array | undefined;
  if (cfg.altda !== undefined) {
    const a = cfg.altda;
    dataAvailabilityChallenge = await deploy("Proxy", [hex(proxyAdmin)]);
    const dacImpl = await deploy("DataAvailabilityChallenge", [], 3_000_000n);
    await upgrade(
      dataAvailabilityChallenge,
      dacImpl,
      await initData("DataAvailabilityChallenge", [
        hex(cfg.finalOwner),
        a.challengeWindow,
        a.resolveWindow,
        a.bondSize,
        a.resolverRefundPercentage,
      ]),
    );
  }

  const hashes: string[] = [];
  for (const [i, t] of txs.entries()) {
    const tx = createFeeMarket1559Tx({
      chainId: cfg.l1ChainId,
      nonce: start + BigInt(i),
      to: t.to,
      data: t.data,
      gasLimit: t.gas,
      maxFeePerGas: gasPrice * 4n + 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    }, { common }).sign(cfg.deployerKey);
    hashes.push(await rpc.call<string>("eth_sendRawTransaction", [bytesToHex(tx.serialize())]));
  }
  let blockNumber = 0n;
  for (const [i, hash] of hashes.entries()) {
    for (let tries = 0;; tries++) {
      const r = await rpc.call<{ status: string; blockNumber: string } | null>("eth_getTransactionReceipt", [
        hash,
      ]);
      if (r !== null) {
        if (r.status !== "0x1") {
          throw new BaseError(
            "OP_L1_DEPLOY",
            `Cannot deploy the OP L1 contracts: transaction ${i + 1} of ${txs.length} reverted`,
          );
        }
        if (BigInt(r.blockNumber) > blockNumber) blockNumber = BigInt(r.blockNumber);
        break;
      }
      if (tries > 1200) {
        throw new BaseError(
          "OP_L1_DEPLOY",
          `Cannot deploy the OP L1 contracts: transaction ${i + 1} not mined`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    addressManager,
    proxyAdmin,
    superchainConfig,
    protocolVersions,
    optimismPortal,
    systemConfig,
    l1StandardBridge,
    l1CrossDomainMessenger,
    optimismMintableERC20Factory,
    l1ERC721Bridge,
    l2OutputOracle,
    ...(dataAvailabilityChallenge === undefined ? {} : { dataAvailabilityChallenge }),
    blockNumber,
  };
}
