/**
 * The L2 genesis alloc: predeploys behind proxies, preinstalls, system contracts, following
 * `L2Genesis.s.sol` of `@eth-optimism/contracts-bedrock@0.17.3` as written up in
 * /work/shared/OP-CONTRACTS.md section 4, and specs/protocol/predeploys.md, preinstalls.md.
 *
 * - Every address 0x4200…0000–0x4200…07FF except WETH (…06) and GovernanceToken (…42) holds the
 *   `Proxy` runtime code with the EIP-1967 admin slot = the L2 ProxyAdmin (0x4200…0018).
 * - A supported predeploy's proxy also has the EIP-1967 implementation slot pointing at
 *   0xc0d3c0d3…c0d3nnnn (nnnn = the last two bytes of the predeploy address), where the
 *   implementation code lives (immutables filled in from the artifact's `immutableReferences`).
 * - Storage that `initialize(...)` would write is set directly, computed from each artifact's
 *   `storageLayout`, in the proxy and (where L2Genesis initializes it too) in the implementation.
 * - L1Block and GasPriceOracle are keel's own Jovian-level contracts (artifacts.ts `KEEL_PREDEPLOYS`:
 *   operator fee values, `setL1BlockValuesIsthmus`, `setL1BlockValuesJovian`, `daFootprintGasScalar`,
 *   `getOperatorFee`, `isIsthmus`, `isJovian`), with the storage layout of the 0.17.3 ones extended; the
 *   OperatorFeeVault (isthmus/predeploys.md, predeploys.md) is the FeeVault code of BaseFeeVault with its
 *   own immutables.
 * - The preinstalls (preinstalls.md) are listed in preinstalls.ts.
 */
import { bigIntToBytes, bytesToBigInt, bytesToHex, concatBytes, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import {
  BASE_FEE_VAULT_ADDRESS,
  BEACON_ROOTS_ADDRESS,
  DEPLOYER_WHITELIST_ADDRESS,
  EAS_ADDRESS,
  GAS_PRICE_ORACLE_ADDRESS,
  HISTORY_STORAGE_ADDRESS,
  HISTORY_STORAGE_DEPLOYMENT,
  L1_BLOCK_ADDRESS,
  L1_BLOCK_NUMBER_ADDRESS,
  L1_FEE_VAULT_ADDRESS,
  L2_CROSS_DOMAIN_MESSENGER_ADDRESS,
  L2_ERC721_BRIDGE_ADDRESS,
  L2_STANDARD_BRIDGE_ADDRESS,
  L2_TO_L1_MESSAGE_PASSER_ADDRESS,
  LEGACY_MESSAGE_PASSER_ADDRESS,
  OPERATOR_FEE_VAULT_ADDRESS,
  OPTIMISM_MINTABLE_ERC20_FACTORY_ADDRESS,
  OPTIMISM_MINTABLE_ERC721_FACTORY_ADDRESS,
  PROXY_ADMIN_ADDRESS,
  SCHEMA_REGISTRY_ADDRESS,
  SEQUENCER_FEE_VAULT_ADDRESS,
  WETH9_ADDRESS,
} from "../../protocol/predeploys.ts";
import { L1_BLOCK_SLOTS } from "../../protocol/l1_block_info.ts";
import { type Artifact, type ArtifactName, ARTIFACTS } from "./artifacts.ts";
import { type ImmutableValue, runtimeCode } from "./bytecode.ts";
import type { GenesisAccountJson } from "./genesis.ts";
import { beaconBlockRootsSender, preinstalls } from "./preinstalls.ts";
import { packStorage, type StorageValue } from "./storage_layout.ts";

/** EIP-1967 `bytes32(uint256(keccak256("eip1967.proxy.admin")) - 1)`. */
export const EIP1967_ADMIN_SLOT = hexToBytes(
  "0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103",
);
/** EIP-1967 `bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1)`. */
export const EIP1967_IMPLEMENTATION_SLOT = hexToBytes(
  "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc",
);
/** CrossDomainMessenger `Constants.DEFAULT_L2_SENDER`: xDomainMsgSender outside a relay. */
export const DEFAULT_L2_SENDER = hexToBytes("0x000000000000000000000000000000000000dEaD");
/** Predeploys.GOVERNANCE_TOKEN: in the proxy range but never proxied. */
const GOVERNANCE_TOKEN_LAST_BYTES = 0x42;
/** Number of proxied addresses in the 0x4200… namespace (Predeploys.PREDEPLOY_COUNT). */
export const PREDEPLOY_COUNT = 2048;

/** The code-namespace address of a predeploy's implementation: 0xc0d3…c0d3 ++ last 2 bytes. */
export function implementationAddress(predeploy: Uint8Array): Uint8Array {
  const out = new Uint8Array(20);
  for (let i = 0; i < 18; i += 2) {
    out[i] = 0xc0;
    out[i + 1] = 0xd3;
  }
  out[18] = predeploy[18];
  out[19] = predeploy[19];
  return out;
}

/** Fee vault constructor immutables (FeeVault.sol: RECIPIENT, MIN_WITHDRAWAL_AMOUNT, WITHDRAWAL_NETWORK). */
export interface FeeVaultConfig {
  recipient: Uint8Array;
  minWithdrawalAmount: bigint;
  /** 0 = L1, 1 = L2 (FeeVault.WithdrawalNetwork). */
  withdrawalNetwork: 0 | 1;
}

/**
 * L1Block storage as the L1-info deposit of the L1 origin would leave it
 * (specs/protocol/deposits.md "L1 Attributes Deposited Transaction", ecotone/l1-attributes.md).
 */
export interface L1BlockValues {
  number: bigint;
  timestamp: bigint;
  basefee: bigint;
  hash: Uint8Array;
  sequenceNumber: bigint;
  batcherHash: Uint8Array;
  /** Bedrock-era fee parameters (unused once Ecotone is active). */
  l1FeeOverhead: bigint;
  l1FeeScalar: bigint;
  baseFeeScalar: bigint;
  blobBaseFeeScalar: bigint;
  blobBaseFee: bigint;
}

/**
 * L1Block slot 8 (Isthmus operator fee, Jovian DA footprint scalar), written at op-geth's slot and
 * offsets (protocol/l1_block_info.ts `L1_BLOCK_SLOTS.operatorFee`; isthmus/exec-engine.md,
 * jovian/exec-engine.md "Scalar loading"), where keel's L1Block declares operatorFeeConstant,
 * operatorFeeScalar and daFootprintGasScalar; the L1-info deposits of later blocks overwrite it.
 */
export interface L1BlockOperatorFee {
  operatorFeeConstant: bigint;
  operatorFeeScalar: bigint;
  daFootprintGasScalar: bigint;
}

export interface L2AllocOptions {
  /** The L1 chain id (OptimismMintableERC721Factory.REMOTE_CHAIN_ID). */
  l1ChainId: bigint;
  /** L2 chain id (Permit2's EIP-712 domain). */
  l2ChainId: bigint;
  /** Owner of the L2 ProxyAdmin (slot 0 of proxy and implementation). */
  proxyAdminOwner: Uint8Array;
  sequencerFeeVault: FeeVaultConfig;
  baseFeeVault: FeeVaultConfig;
  l1FeeVault: FeeVaultConfig;
  /** The Isthmus OperatorFeeVault; default: the `baseFeeVault` settings. */
  operatorFeeVault?: FeeVaultConfig;
  /** L1 proxies the L2 bridges point at; the zero address when there is no L1 deployment. */
  l1CrossDomainMessenger: Uint8Array;
  l1StandardBridge: Uint8Array;
  l1ERC721Bridge: Uint8Array;
  /** Preset L1Block storage; undefined leaves it empty, as L2Genesis does. */
  l1Block?: L1BlockValues;
  /** Preset L1Block slot 8; undefined leaves it empty. */
  l1BlockOperatorFee?: L1BlockOperatorFee;
  /**
   * Runtime code to use instead of the artifact's for a predeploy implementation, by table name
   * (e.g. a newer L1Block for Isthmus); its storage is still laid out from the artifact.
   */
  implementationCode?: Record<string, Uint8Array>;
  /**
   * GasPriceOracle flags, as `setEcotone()` / `setFjord()` / `setIsthmus()` / `setJovian()` from the
   * depositor account would set them (each requires the one before; `isthmus` and `jovian` default to false).
   */
  gasPriceOracle: { ecotone: boolean; fjord: boolean; isthmus?: boolean; jovian?: boolean };
  /** Preinstalls (preinstalls.md) with nonce 1; on by default. */
  preinstalls: boolean;
  /** The EIP-2935 history contract (Isthmus) with nonce 1. */
  historyStorage: boolean;
  /** 1 wei for each precompile address 0x00…00–0x00…ff, as L2Genesis does. */
  precompileBalances: boolean;
}

/** Context the table's storage and immutable functions read. */
type Ctx = L2AllocOptions;

/** One predeploy: where it lives, what code it runs, and what its genesis storage holds. */
export interface PredeployEntry {
  name: string;
  address: Uint8Array;
  /** Behind a Proxy with the code at the implementation address; false: code at `address` itself. */
  proxied: boolean;
  artifact: ArtifactName;
  /** Artifacts whose ASTs declare inherited immutables. */
  immutableSources?: ArtifactName[];
  immutables?: (ctx: Ctx) => Record<string, ImmutableValue>;
  /** Storage of the proxy (or of the contract itself when not proxied), by state-variable label. */
  storage?: (ctx: Ctx) => Record<string, StorageValue>;
  /** Storage of the implementation (L2Genesis initializes some implementations too). */
  implementationStorage?: (ctx: Ctx) => Record<string, StorageValue>;
}

const vaultImmutables = (v: FeeVaultConfig): Record<string, ImmutableValue> => ({
  RECIPIENT: v.recipient,
  MIN_WITHDRAWAL_AMOUNT: v.minWithdrawalAmount,
  WITHDRAWAL_NETWORK: BigInt(v.withdrawalNetwork),
});

const utf8 = (s: string) => new TextEncoder().encode(s);

/**
 * EAS's constructor immutables (EAS.sol `EIP1271Verifier("EAS", "1.3.0")`, OpenZeppelin draft-EIP712):
 * the name as a left-aligned bytes32, the EIP-712 hashes, and the domain separator cached for
 * `chainId` and `self`. Calls reach EAS through its proxy, so `self` is the proxy address: the cached
 * separator is then the one EAS uses (any other address only makes EAS recompute it).
 */
export function easImmutables(chainId: bigint, self: Uint8Array): Record<string, ImmutableValue> {
  const typeHash = keccak256(
    utf8("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
  );
  const nameHash = keccak256(utf8("EAS"));
  const versionHash = keccak256(utf8("1.3.0"));
  const name = new Uint8Array(32);
  name.set(utf8("EAS"));
  return {
    _name: name,
    _TYPE_HASH: typeHash,
    _HASHED_NAME: nameHash,
    _HASHED_VERSION: versionHash,
    _CACHED_CHAIN_ID: chainId,
    _CACHED_THIS: self,
    _CACHED_DOMAIN_SEPARATOR: keccak256(
      concatBytes(
        typeHash,
        nameHash,
        versionHash,
        bigIntToBytes(chainId, 32),
        bigIntToBytes(bytesToBigInt(self), 32),
      ),
    ),
  };
}

/** The predeploys keel sets at genesis (OP-CONTRACTS.md section 4 table; specs/protocol/predeploys.md). */
export const PREDEPLOY_TABLE: readonly PredeployEntry[] = [
  {
    name: "LegacyMessagePasser",
    address: LEGACY_MESSAGE_PASSER_ADDRESS,
    proxied: true,
    artifact: "LegacyMessagePasser",
  },
  {
    name: "DeployerWhitelist",
    address: DEPLOYER_WHITELIST_ADDRESS,
    proxied: true,
    artifact: "DeployerWhitelist",
  },
  { name: "WETH", address: WETH9_ADDRESS, proxied: false, artifact: "WETH" },
  {
    name: "L2CrossDomainMessenger",
    address: L2_CROSS_DOMAIN_MESSENGER_ADDRESS,
    proxied: true,
    artifact: "L2CrossDomainMessenger",
    storage: (c) => ({
      _initialized: 1n,
      xDomainMsgSender: DEFAULT_L2_SENDER,
      otherMessenger: c.l1CrossDomainMessenger,
    }),
    implementationStorage: () => ({ _initialized: 1n, xDomainMsgSender: DEFAULT_L2_SENDER }),
  },
  {
    name: "GasPriceOracle",
    address: GAS_PRICE_ORACLE_ADDRESS,
    proxied: true,
    artifact: "GasPriceOracle",
    storage: (c) => ({
      isEcotone: c.gasPriceOracle.ecotone,
      isFjord: c.gasPriceOracle.fjord,
      isIsthmus: c.gasPriceOracle.isthmus ?? false,
      isJovian: c.gasPriceOracle.jovian ?? false,
    }),
  },
  {
    name: "L2StandardBridge",
    address: L2_STANDARD_BRIDGE_ADDRESS,
    proxied: true,
    artifact: "L2StandardBridge",
    storage: (c) => ({
      _initialized: 1n,
      messenger: L2_CROSS_DOMAIN_MESSENGER_ADDRESS,
      otherBridge: c.l1StandardBridge,
    }),
    implementationStorage: () => ({ _initialized: 1n, messenger: L2_CROSS_DOMAIN_MESSENGER_ADDRESS }),
  },
  {
    name: "SequencerFeeVault",
    address: SEQUENCER_FEE_VAULT_ADDRESS,
    proxied: true,
    artifact: "SequencerFeeVault",
    immutableSources: ["FeeVault"],
    immutables: (c) => vaultImmutables(c.sequencerFeeVault),
  },
  {
    name: "OptimismMintableERC20Factory",
    address: OPTIMISM_MINTABLE_ERC20_FACTORY_ADDRESS,
    proxied: true,
    artifact: "OptimismMintableERC20Factory",
    storage: () => ({ _initialized: 1n, bridge: L2_STANDARD_BRIDGE_ADDRESS }),
    implementationStorage: () => ({ _initialized: 1n }),
  },
  { name: "L1BlockNumber", address: L1_BLOCK_NUMBER_ADDRESS, proxied: true, artifact: "L1BlockNumber" },
  {
    name: "L2ERC721Bridge",
    address: L2_ERC721_BRIDGE_ADDRESS,
    proxied: true,
    artifact: "L2ERC721Bridge",
    storage: (c) => ({
      _initialized: 1n,
      messenger: L2_CROSS_DOMAIN_MESSENGER_ADDRESS,
      otherBridge: c.l1ERC721Bridge,
    }),
    implementationStorage: () => ({ _initialized: 1n, messenger: L2_CROSS_DOMAIN_MESSENGER_ADDRESS }),
  },
  {
    name: "L1Block",
    address: L1_BLOCK_ADDRESS,
    proxied: true,
    artifact: "L1Block",
    storage: (c) => (c.l1Block === undefined ? {} : { ...c.l1Block }),
  },
  {
    name: "L2ToL1MessagePasser",
    address: L2_TO_L1_MESSAGE_PASSER_ADDRESS,
    proxied: true,
    artifact: "L2ToL1MessagePasser",
  },
  {
    name: "OptimismMintableERC721Factory",
    address: OPTIMISM_MINTABLE_ERC721_FACTORY_ADDRESS,
    proxied: true,
    artifact: "OptimismMintableERC721Factory",
    immutables: (c) => ({ BRIDGE: L2_ERC721_BRIDGE_ADDRESS, REMOTE_CHAIN_ID: c.l1ChainId }),
  },
  {
    name: "ProxyAdmin",
    address: PROXY_ADMIN_ADDRESS,
    proxied: true,
    artifact: "ProxyAdmin",
    storage: (c) => ({ _owner: c.proxyAdminOwner }),
    implementationStorage: (c) => ({ _owner: c.proxyAdminOwner }),
  },
  {
    name: "BaseFeeVault",
    address: BASE_FEE_VAULT_ADDRESS,
    proxied: true,
    artifact: "BaseFeeVault",
    immutableSources: ["FeeVault"],
    immutables: (c) => vaultImmutables(c.baseFeeVault),
  },
  {
    name: "L1FeeVault",
    address: L1_FEE_VAULT_ADDRESS,
    proxied: true,
    artifact: "L1FeeVault",
    immutableSources: ["FeeVault"],
    immutables: (c) => vaultImmutables(c.l1FeeVault),
  },
  {
    name: "OperatorFeeVault",
    address: OPERATOR_FEE_VAULT_ADDRESS,
    proxied: true,
    // The same FeeVault contract as the other vaults (predeploys.md "OperatorFeeVault").
    artifact: "BaseFeeVault",
    immutableSources: ["FeeVault"],
    immutables: (c) => vaultImmutables(c.operatorFeeVault ?? c.baseFeeVault),
  },
  { name: "SchemaRegistry", address: SCHEMA_REGISTRY_ADDRESS, proxied: true, artifact: "SchemaRegistry" },
  {
    name: "EAS",
    address: EAS_ADDRESS,
    proxied: true,
    artifact: "EAS",
    immutableSources: ["EIP712", "EIP1271Verifier"],
    immutables: (c) => easImmutables(c.l2ChainId, EAS_ADDRESS),
  },
];

/** Packs [value, offset, size] fields into one word (offsets in bytes from the low-order end). */
function packWord(...fields: [bigint, number, number][]): bigint {
  let out = 0n;
  for (const [v, offset, size] of fields) {
    if (v < 0n || v >= 1n << BigInt(8 * size)) {
      throw new BaseError("STORAGE_VALUE_TOO_LARGE", `Cannot pack ${v} into ${size} bytes`);
    }
    out |= v << BigInt(8 * offset);
  }
  return out;
}

/** An account under construction: storage words keyed by 0x slot. */
interface AccountDraft {
  balance: bigint;
  nonce: bigint;
  code?: Uint8Array;
  storage: Map<string, Uint8Array>;
}

/** An address (or any short value) as a right-aligned 32-byte storage word. */
const pad32 = (b: Uint8Array): Uint8Array => bigIntToBytes(bytesToBigInt(b), 32);

/** Hex of shared code arrays (the Proxy runtime is shared by 2,000+ accounts), computed once each. */
const HEX_CACHE = new WeakMap<Uint8Array, string>();
function hexOf(code: Uint8Array): string {
  let hex = HEX_CACHE.get(code);
  if (hex === undefined) {
    hex = bytesToHex(code);
    HEX_CACHE.set(code, hex);
  }
  return hex;
}

function toJson(a: AccountDraft): GenesisAccountJson {
  const out: GenesisAccountJson = { balance: "0x" + a.balance.toString(16) };
  if (a.nonce !== 0n) out.nonce = "0x" + a.nonce.toString(16);
  if (a.code !== undefined && a.code.length > 0) out.code = hexOf(a.code);
  if (a.storage.size > 0) {
    const storage: Record<string, string> = {};
    for (const key of [...a.storage.keys()].sort()) storage[key] = bytesToHex(a.storage.get(key)!);
    out.storage = storage;
  }
  return out;
}

/**
 * The L2 genesis alloc (op-geth JSON form, addresses lower-case 0x hex, sorted): proxies,
 * predeploy implementations and their storage, preinstalls, system contracts and precompile dust.
 * Extra accounts (e.g. funded dev accounts) are added by the caller.
 */
export function buildL2Alloc(options: L2AllocOptions): Record<string, GenesisAccountJson> {
  const gpo = options.gasPriceOracle;
  if ((gpo.fjord && !gpo.ecotone) || (gpo.isthmus && !gpo.fjord) || (gpo.jovian && !gpo.isthmus)) {
    throw new BaseError(
      "INVALID_L2_GENESIS",
      "Cannot build L2 alloc: GasPriceOracle flags need Ecotone before Fjord, Fjord before Isthmus and " +
        "Isthmus before Jovian",
      { meta: { ...gpo } },
    );
  }
  const accounts = new Map<string, AccountDraft>();
  const at = (address: Uint8Array): AccountDraft => {
    const key = bytesToHex(address);
    let a = accounts.get(key);
    if (a === undefined) {
      a = { balance: 0n, nonce: 0n, storage: new Map() };
      accounts.set(key, a);
    }
    return a;
  };
  const setStorage = (a: AccountDraft, words: Map<string, Uint8Array>) => {
    for (const [slot, value] of words) {
      if (value.some((b) => b !== 0)) a.storage.set(slot, value);
    }
  };

  if (options.precompileBalances) {
    for (let i = 0; i < 256; i++) {
      const address = new Uint8Array(20);
      address[19] = i;
      at(address).balance = 1n;
    }
  }

  // Proxies over the whole predeploy namespace (L2Genesis.setPredeployProxies).
  const proxyCode = runtimeCode(ARTIFACTS.Proxy, "Proxy");
  const adminSlot = bytesToHex(EIP1967_ADMIN_SLOT);
  const implSlot = bytesToHex(EIP1967_IMPLEMENTATION_SLOT);
  const notProxied = new Set(PREDEPLOY_TABLE.filter((p) => !p.proxied).map((p) => bytesToHex(p.address)));
  for (let i = 0; i < PREDEPLOY_COUNT; i++) {
    const address = hexToBytes("0x4200000000000000000000000000000000000000");
    address[18] = i >> 8;
    address[19] = i & 0xff;
    if (i === GOVERNANCE_TOKEN_LAST_BYTES || notProxied.has(bytesToHex(address))) continue;
    const a = at(address);
    a.code = proxyCode;
    a.storage.set(adminSlot, pad32(PROXY_ADMIN_ADDRESS));
  }

  for (const p of PREDEPLOY_TABLE) {
    const artifact: Artifact = ARTIFACTS[p.artifact];
    const sources = (p.immutableSources ?? []).map((n) => ARTIFACTS[n]);
    const code = options.implementationCode?.[p.name] ??
      runtimeCode(artifact, p.name, p.immutables?.(options) ?? {}, sources);
    const storage = packStorage(artifact, p.storage?.(options) ?? {}, p.name);
    if (!p.proxied) {
      const a = at(p.address);
      a.code = code;
      setStorage(a, storage);
      continue;
    }
    const implAddress = implementationAddress(p.address);
    const proxy = at(p.address);
    proxy.storage.set(implSlot, pad32(implAddress));
    setStorage(proxy, storage);
    if (p.name === "L1Block" && options.l1BlockOperatorFee !== undefined) {
      const f = options.l1BlockOperatorFee;
      const packed = packWord([f.operatorFeeConstant, 0, 8], [f.operatorFeeScalar, 8, 4], [
        f.daFootprintGasScalar,
        12,
        2,
      ]);
      if (packed !== 0n) {
        proxy.storage.set(
          bytesToHex(bigIntToBytes(L1_BLOCK_SLOTS.operatorFee, 32)),
          bigIntToBytes(packed, 32),
        );
      }
    }
    const impl = at(implAddress);
    impl.code = code;
    setStorage(impl, packStorage(artifact, p.implementationStorage?.(options) ?? {}, p.name));
  }

  if (options.preinstalls) {
    for (const p of preinstalls(options.l2ChainId)) {
      const a = at(p.address);
      a.code = p.code;
      a.nonce = 1n;
    }
    at(beaconBlockRootsSender()).nonce = 1n;
  } else {
    // EIP-4788 is required from Ecotone whatever else is preinstalled.
    const beacon = preinstalls(options.l2ChainId).find((p) => p.name === "BeaconBlockRoots")!;
    const a = at(BEACON_ROOTS_ADDRESS);
    a.code = beacon.code;
    a.nonce = 1n;
  }
  if (options.historyStorage) {
    // isthmus/derivation.md "EIP-2935 Contract Deployment": the runtime follows the 9-byte initcode prefix.
    const a = at(HISTORY_STORAGE_ADDRESS);
    a.code = HISTORY_STORAGE_DEPLOYMENT.data.subarray(9);
    a.nonce = 1n;
  }

  const out: Record<string, GenesisAccountJson> = {};
  for (const key of [...accounts.keys()].sort()) out[key] = toJson(accounts.get(key)!);
  return out;
}
