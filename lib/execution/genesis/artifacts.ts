/**
 * Compiled artifacts the L2 genesis needs, imported as JSON so `deno compile` embeds them in the binary:
 * those of `@eth-optimism/contracts-bedrock@0.17.3`, except L1Block and GasPriceOracle, which predate
 * Isthmus there and come from keel's own Isthmus-level contracts (contracts/*.sol, compiled by
 * scripts/gen_predeploys.ts into keel_predeploys.json).
 */
import BaseFeeVaultJson from "@eth-optimism/contracts-bedrock/forge-artifacts/BaseFeeVault.sol/BaseFeeVault.json" with {
  type: "json",
};
import DeployerWhitelistJson from "@eth-optimism/contracts-bedrock/forge-artifacts/DeployerWhitelist.sol/DeployerWhitelist.json" with {
  type: "json",
};
import EASJson from "@eth-optimism/contracts-bedrock/forge-artifacts/EAS.sol/EAS.json" with { type: "json" };
import EIP712Json from "@eth-optimism/contracts-bedrock/forge-artifacts/draft-EIP712.sol/EIP712.0.8.19.json" with {
  type: "json",
};
import EIP1271VerifierJson from "@eth-optimism/contracts-bedrock/forge-artifacts/EIP1271Verifier.sol/EIP1271Verifier.json" with {
  type: "json",
};
import FeeVaultJson from "@eth-optimism/contracts-bedrock/forge-artifacts/FeeVault.sol/FeeVault.json" with {
  type: "json",
};
import GasPriceOracleJson from "@eth-optimism/contracts-bedrock/forge-artifacts/GasPriceOracle.sol/GasPriceOracle.json" with {
  type: "json",
};
import L1BlockJson from "@eth-optimism/contracts-bedrock/forge-artifacts/L1Block.sol/L1Block.json" with {
  type: "json",
};
import L1BlockNumberJson from "@eth-optimism/contracts-bedrock/forge-artifacts/L1BlockNumber.sol/L1BlockNumber.json" with {
  type: "json",
};
import L1FeeVaultJson from "@eth-optimism/contracts-bedrock/forge-artifacts/L1FeeVault.sol/L1FeeVault.json" with {
  type: "json",
};
import L2CrossDomainMessengerJson from "@eth-optimism/contracts-bedrock/forge-artifacts/L2CrossDomainMessenger.sol/L2CrossDomainMessenger.json" with {
  type: "json",
};
import L2ERC721BridgeJson from "@eth-optimism/contracts-bedrock/forge-artifacts/L2ERC721Bridge.sol/L2ERC721Bridge.json" with {
  type: "json",
};
import L2StandardBridgeJson from "@eth-optimism/contracts-bedrock/forge-artifacts/L2StandardBridge.sol/L2StandardBridge.json" with {
  type: "json",
};
import L2ToL1MessagePasserJson from "@eth-optimism/contracts-bedrock/forge-artifacts/L2ToL1MessagePasser.sol/L2ToL1MessagePasser.json" with {
  type: "json",
};
import LegacyMessagePasserJson from "@eth-optimism/contracts-bedrock/forge-artifacts/LegacyMessagePasser.sol/LegacyMessagePasser.json" with {
  type: "json",
};
import OptimismMintableERC20FactoryJson from "@eth-optimism/contracts-bedrock/forge-artifacts/OptimismMintableERC20Factory.sol/OptimismMintableERC20Factory.json" with {
  type: "json",
};
import OptimismMintableERC721FactoryJson from "@eth-optimism/contracts-bedrock/forge-artifacts/OptimismMintableERC721Factory.sol/OptimismMintableERC721Factory.json" with {
  type: "json",
};
import PreinstallsJson from "@eth-optimism/contracts-bedrock/forge-artifacts/Preinstalls.sol/Preinstalls.0.8.15.json" with {
  type: "json",
};
import ProxyJson from "@eth-optimism/contracts-bedrock/forge-artifacts/Proxy.sol/Proxy.json" with {
  type: "json",
};
import ProxyAdminJson from "@eth-optimism/contracts-bedrock/forge-artifacts/ProxyAdmin.sol/ProxyAdmin.json" with {
  type: "json",
};
import SchemaRegistryJson from "@eth-optimism/contracts-bedrock/forge-artifacts/SchemaRegistry.sol/SchemaRegistry.json" with {
  type: "json",
};
import SequencerFeeVaultJson from "@eth-optimism/contracts-bedrock/forge-artifacts/SequencerFeeVault.sol/SequencerFeeVault.json" with {
  type: "json",
};
import KeelPredeploysJson from "./keel_predeploys.json" with { type: "json" };
import WETHJson from "@eth-optimism/contracts-bedrock/forge-artifacts/WETH.sol/WETH.json" with {
  type: "json",
};

export interface StorageEntry {
  label: string;
  slot: string;
  offset: number;
  type: string;
}

/** The parts of a forge artifact the genesis builder reads. */
export interface Artifact {
  abi: unknown[];
  bytecode: { object: string };
  deployedBytecode: {
    object: string;
    immutableReferences?: Record<string, { start: number; length: number }[]>;
  };
  storageLayout: {
    storage: StorageEntry[];
    types: Record<string, { numberOfBytes: string; encoding?: string; label?: string }>;
  };
  ast: unknown;
}

const as = (json: unknown) => json as Artifact;

/** keel's compiled contracts (no AST: they declare no immutables). */
export const KEEL_PREDEPLOYS = {
  /** solc version the bytecode was compiled with. */
  compiler: KeelPredeploysJson.compiler,
  L1Block: as({ ...KeelPredeploysJson.contracts.L1Block, ast: null }),
  GasPriceOracle: as({ ...KeelPredeploysJson.contracts.GasPriceOracle, ast: null }),
} as const;

/**
 * contracts-bedrock 0.17.3's (pre-Isthmus) L1Block and GasPriceOracle, kept to check that keel's
 * contracts keep their storage layout and public interface.
 */
export const BEDROCK_PREDEPLOYS = {
  L1Block: as(L1BlockJson),
  GasPriceOracle: as(GasPriceOracleJson),
} as const;

/** Artifacts by contract name. */
export const ARTIFACTS = {
  BaseFeeVault: as(BaseFeeVaultJson),
  DeployerWhitelist: as(DeployerWhitelistJson),
  EAS: as(EASJson),
  EIP712: as(EIP712Json),
  EIP1271Verifier: as(EIP1271VerifierJson),
  FeeVault: as(FeeVaultJson),
  GasPriceOracle: KEEL_PREDEPLOYS.GasPriceOracle,
  L1Block: KEEL_PREDEPLOYS.L1Block,
  L1BlockNumber: as(L1BlockNumberJson),
  L1FeeVault: as(L1FeeVaultJson),
  L2CrossDomainMessenger: as(L2CrossDomainMessengerJson),
  L2ERC721Bridge: as(L2ERC721BridgeJson),
  L2StandardBridge: as(L2StandardBridgeJson),
  L2ToL1MessagePasser: as(L2ToL1MessagePasserJson),
  LegacyMessagePasser: as(LegacyMessagePasserJson),
  OptimismMintableERC20Factory: as(OptimismMintableERC20FactoryJson),
  OptimismMintableERC721Factory: as(OptimismMintableERC721FactoryJson),
  Preinstalls: as(PreinstallsJson),
  Proxy: as(ProxyJson),
  ProxyAdmin: as(ProxyAdminJson),
  SchemaRegistry: as(SchemaRegistryJson),
  SequencerFeeVault: as(SequencerFeeVaultJson),
  WETH: as(WETHJson),
} as const;

export type ArtifactName = keyof typeof ARTIFACTS;
