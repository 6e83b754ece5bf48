/**
 * The network upgrade automation transactions: the deposits the derivation pipeline appends, after
 * the L1-info deposit and the user deposits, to the first L2 block of a fork
 * (specs/protocol/ecotone/derivation.md, fjord/derivation.md, isthmus/derivation.md "Network upgrade
 * automation transactions"; jovian/derivation.md "Network Upgrade Transactions"). Regolith, Canyon,
 * Delta, Granite and Holocene have none. Every one has mint 0, value 0, isSystemTx false and the
 * upgrade-deposited source hash of its intent (deposits.md "Source hash computation").
 *
 * Deviation from the specs text, on purpose: for Jovian's first four transactions jovian/derivation.md
 * gives the intents "Jovian: L1Block Deployment", "Jovian: L1Block Proxy Update",
 * "Jovian: GasPriceOracle Deployment" and "Jovian: GasPriceOracle Proxy Update" (source hashes
 * 0x98faf23b…, 0x08447273…, 0xd939cca6…, 0x46b597e2…), but op-node
 * (op-node/rollup/derive/jovian_upgrade_transactions.go) and kona build them with
 * "Jovian: L1 Block Deployment", "Jovian: L1 Block Proxy Update", "Jovian: Gas Price Oracle Deployment"
 * and "Jovian: Gas Price Oracle Proxy Update" (0xbb1a656f…, 0xf3275f82…, 0x239b7021…, 0xa70c60aa…).
 * The chains run op-node's transactions, so this file does too: any other source hash changes the
 * transactions root and the block hash of the Jovian activation block.
 *
 * Interop's upgrade transactions (specs/interop/derivation.md) are not built here: interop is not
 * activated on any chain and its rules are still moving; asking for them throws.
 */
import { concatBytes, hexToBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import { keccak256 } from "../common/hash.ts";
import { rlpEncode } from "../common/rlp.ts";
import { type DepositTx, encodeDepositTx, upgradeDepositSourceHash } from "./deposit_tx.ts";
import type { OpFork } from "./hardforks.ts";
import {
  BEACON_ROOTS_DEPLOYMENT,
  GAS_PRICE_ORACLE_ADDRESS,
  HISTORY_STORAGE_DEPLOYMENT,
  L1_ATTRIBUTES_DEPOSITOR_ADDRESS,
  L1_BLOCK_ADDRESS,
  OPERATOR_FEE_VAULT_ADDRESS,
} from "./predeploys.ts";
import {
  ECOTONE_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE,
  ECOTONE_L1_BLOCK_DEPLOYMENT_BYTECODE,
  FJORD_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE,
  ISTHMUS_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE,
  ISTHMUS_L1_BLOCK_DEPLOYMENT_BYTECODE,
  ISTHMUS_OPERATOR_FEE_DEPLOYMENT_BYTECODE,
  JOVIAN_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE,
  JOVIAN_L1_BLOCK_DEPLOYMENT_BYTECODE,
} from "./upgrade_bytecode.ts";

/** The forks whose activation block carries upgrade transactions built here. */
export type UpgradeFork = "ecotone" | "fjord" | "isthmus" | "jovian";
export const UPGRADE_FORKS: readonly UpgradeFork[] = ["ecotone", "fjord", "isthmus", "jovian"];

/** The address a CREATE from `deployer` with account nonce `nonce` yields: `keccak256(rlp([deployer, nonce]))[12:]`. */
export function createAddress(deployer: Uint8Array, nonce: bigint): Uint8Array {
  if (deployer.length !== 20) {
    throw new BaseError(
      "INVALID_ADDRESS",
      `Cannot compute CREATE address: deployer length is ${deployer.length}`,
    );
  }
  return keccak256(rlpEncode([deployer, nonce])).slice(12);
}

/** 4-byte selector of `upgradeTo(address)` on the ERC-1967 proxies. */
export const UPGRADE_TO_SELECTOR: Uint8Array = keccak256(new TextEncoder().encode("upgradeTo(address)"))
  .slice(0, 4);

/** ABI calldata of `upgradeTo(implementation)`: the selector and the address left-padded to 32 bytes. */
export function upgradeToCalldata(implementation: Uint8Array): Uint8Array {
  if (implementation.length !== 20) {
    throw new BaseError(
      "INVALID_ADDRESS",
      `Cannot encode upgradeTo: implementation length is ${implementation.length}`,
    );
  }
  return concatBytes(UPGRADE_TO_SELECTOR, new Uint8Array(12), implementation);
}

function selector(signature: string): Uint8Array {
  return keccak256(new TextEncoder().encode(signature)).slice(0, 4);
}

const addr = (hex: string): Uint8Array => hexToBytes(hex);
const ZERO_ADDRESS = new Uint8Array(20);

// Deployers (accounts with no transactions; each deploys once, at nonce 0) and what they deploy.
export const ECOTONE_L1_BLOCK_DEPLOYER = addr("0x4210000000000000000000000000000000000000");
export const ECOTONE_GAS_PRICE_ORACLE_DEPLOYER = addr("0x4210000000000000000000000000000000000001");
export const FJORD_GAS_PRICE_ORACLE_DEPLOYER = addr("0x4210000000000000000000000000000000000002");
export const ISTHMUS_L1_BLOCK_DEPLOYER = addr("0x4210000000000000000000000000000000000003");
export const ISTHMUS_GAS_PRICE_ORACLE_DEPLOYER = addr("0x4210000000000000000000000000000000000004");
export const ISTHMUS_OPERATOR_FEE_VAULT_DEPLOYER = addr("0x4210000000000000000000000000000000000005");
export const JOVIAN_L1_BLOCK_DEPLOYER = addr("0x4210000000000000000000000000000000000006");
export const JOVIAN_GAS_PRICE_ORACLE_DEPLOYER = addr("0x4210000000000000000000000000000000000007");

/** 0x07dbe8500fc591d1852B76feE44d5a05e13097Ff */
export const ECOTONE_L1_BLOCK_ADDRESS = createAddress(ECOTONE_L1_BLOCK_DEPLOYER, 0n);
/** 0xb528D11cC114E026F138fE568744c6D45ce6Da7A */
export const ECOTONE_GAS_PRICE_ORACLE_ADDRESS = createAddress(ECOTONE_GAS_PRICE_ORACLE_DEPLOYER, 0n);
/** 0xa919894851548179A0750865e7974DA599C0Fac7 */
export const FJORD_GAS_PRICE_ORACLE_ADDRESS = createAddress(FJORD_GAS_PRICE_ORACLE_DEPLOYER, 0n);
/** 0xFf256497D61dcd71a9e9Ff43967C13fdE1F72D12 */
export const ISTHMUS_L1_BLOCK_ADDRESS = createAddress(ISTHMUS_L1_BLOCK_DEPLOYER, 0n);
/** 0x93e57A196454CB919193fa9946f14943cf733845 */
export const ISTHMUS_GAS_PRICE_ORACLE_ADDRESS = createAddress(ISTHMUS_GAS_PRICE_ORACLE_DEPLOYER, 0n);
/** 0x4fa2Be8cd41504037F1838BcE3bCC93bC68Ff537 */
export const ISTHMUS_OPERATOR_FEE_VAULT_ADDRESS = createAddress(ISTHMUS_OPERATOR_FEE_VAULT_DEPLOYER, 0n);
/** 0x3Ba4007f5C922FBb33C454B41ea7a1f11E83df2C */
export const JOVIAN_L1_BLOCK_ADDRESS = createAddress(JOVIAN_L1_BLOCK_DEPLOYER, 0n);
/** 0x4f1db3c6AbD250ba86E0928471A8F7DB3AFd88F1 */
export const JOVIAN_GAS_PRICE_ORACLE_ADDRESS = createAddress(JOVIAN_GAS_PRICE_ORACLE_DEPLOYER, 0n);

/** The fields of one upgrade transaction that vary; the rest (mint, value, isSystemTx) are fixed. */
export interface UpgradeTxParams {
  /** The upgrade-deposited source-hash intent. */
  intent: string;
  from: Uint8Array;
  /** null for a contract deployment. */
  to: Uint8Array | null;
  gas: bigint;
  data: Uint8Array;
  /** For a deployment: the address it yields (from, nonce 0). */
  deployedAddress?: Uint8Array;
  /** For a deployment, where the spec states it: keccak256 of the deployed runtime code. */
  codeHash?: Uint8Array;
}

function deployment(
  intent: string,
  from: Uint8Array,
  gas: bigint,
  bytecode: string,
  codeHash: string,
): UpgradeTxParams {
  return {
    intent,
    from,
    to: null,
    gas,
    data: hexToBytes(bytecode),
    deployedAddress: createAddress(from, 0n),
    codeHash: hexToBytes(codeHash),
  };
}

function proxyUpdate(intent: string, proxy: Uint8Array, implementation: Uint8Array): UpgradeTxParams {
  return { intent, from: ZERO_ADDRESS, to: proxy, gas: 50_000n, data: upgradeToCalldata(implementation) };
}

function gasPriceOracleCall(intent: string, gas: bigint, signature: string): UpgradeTxParams {
  return {
    intent,
    from: L1_ATTRIBUTES_DEPOSITOR_ADDRESS,
    to: GAS_PRICE_ORACLE_ADDRESS,
    gas,
    data: selector(signature),
  };
}

/** The upgrade transactions of each fork, in block order. */
export const UPGRADE_TXS: Readonly<Record<UpgradeFork, readonly UpgradeTxParams[]>> = {
  // ecotone/derivation.md "Network upgrade automation transactions"
  ecotone: [
    deployment(
      "Ecotone: L1 Block Deployment",
      ECOTONE_L1_BLOCK_DEPLOYER,
      375_000n,
      ECOTONE_L1_BLOCK_DEPLOYMENT_BYTECODE,
      "0xc88a313aa75dc4fbf0b6850d9f9ae41e04243b7008cf3eadb29256d4a71c1dfd",
    ),
    deployment(
      "Ecotone: Gas Price Oracle Deployment",
      ECOTONE_GAS_PRICE_ORACLE_DEPLOYER,
      1_000_000n,
      ECOTONE_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE,
      "0x8b71360ea773b4cfaf1ae6d2bd15464a4e1e2e360f786e475f63aeaed8da0ae5",
    ),
    proxyUpdate("Ecotone: L1 Block Proxy Update", L1_BLOCK_ADDRESS, ECOTONE_L1_BLOCK_ADDRESS),
    proxyUpdate(
      "Ecotone: Gas Price Oracle Proxy Update",
      GAS_PRICE_ORACLE_ADDRESS,
      ECOTONE_GAS_PRICE_ORACLE_ADDRESS,
    ),
    gasPriceOracleCall("Ecotone: Gas Price Oracle Set Ecotone", 80_000n, "setEcotone()"),
    {
      intent: BEACON_ROOTS_DEPLOYMENT.intent,
      from: BEACON_ROOTS_DEPLOYMENT.from,
      to: null,
      gas: BEACON_ROOTS_DEPLOYMENT.gas,
      data: BEACON_ROOTS_DEPLOYMENT.data,
      deployedAddress: BEACON_ROOTS_DEPLOYMENT.address,
    },
  ],
  // fjord/derivation.md "Network upgrade automation transactions"
  fjord: [
    deployment(
      "Fjord: Gas Price Oracle Deployment",
      FJORD_GAS_PRICE_ORACLE_DEPLOYER,
      1_450_000n,
      FJORD_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE,
      "0xa88fa50a2745b15e6794247614b5298483070661adacb8d32d716434ed24c6b2",
    ),
    proxyUpdate(
      "Fjord: Gas Price Oracle Proxy Update",
      GAS_PRICE_ORACLE_ADDRESS,
      FJORD_GAS_PRICE_ORACLE_ADDRESS,
    ),
    gasPriceOracleCall("Fjord: Gas Price Oracle Set Fjord", 90_000n, "setFjord()"),
  ],
  // isthmus/derivation.md "Network upgrade automation transactions"
  isthmus: [
    deployment(
      "Isthmus: L1 Block Deployment",
      ISTHMUS_L1_BLOCK_DEPLOYER,
      425_000n,
      ISTHMUS_L1_BLOCK_DEPLOYMENT_BYTECODE,
      "0x8e3fe7a416d3e5f3b7be74ddd4e7e58e516fa3f80b67c6d930e3cd7297da4a4b",
    ),
    deployment(
      "Isthmus: Gas Price Oracle Deployment",
      ISTHMUS_GAS_PRICE_ORACLE_DEPLOYER,
      1_625_000n,
      ISTHMUS_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE,
      "0x4d195a9d7caf9fb6d4beaf80de252c626c853afd5868c4f4f8d19c9d301c2679",
    ),
    deployment(
      "Isthmus: Operator Fee Vault Deployment",
      ISTHMUS_OPERATOR_FEE_VAULT_DEPLOYER,
      500_000n,
      ISTHMUS_OPERATOR_FEE_DEPLOYMENT_BYTECODE,
      "0x57dc55c9c09ca456fa728f253fe7b895d3e6aae0706104935fe87c7721001971",
    ),
    proxyUpdate("Isthmus: L1 Block Proxy Update", L1_BLOCK_ADDRESS, ISTHMUS_L1_BLOCK_ADDRESS),
    proxyUpdate(
      "Isthmus: Gas Price Oracle Proxy Update",
      GAS_PRICE_ORACLE_ADDRESS,
      ISTHMUS_GAS_PRICE_ORACLE_ADDRESS,
    ),
    proxyUpdate(
      "Isthmus: Operator Fee Vault Proxy Update",
      OPERATOR_FEE_VAULT_ADDRESS,
      ISTHMUS_OPERATOR_FEE_VAULT_ADDRESS,
    ),
    gasPriceOracleCall("Isthmus: Gas Price Oracle Set Isthmus", 90_000n, "setIsthmus()"),
    {
      intent: HISTORY_STORAGE_DEPLOYMENT.intent,
      from: HISTORY_STORAGE_DEPLOYMENT.from,
      to: null,
      gas: HISTORY_STORAGE_DEPLOYMENT.gas,
      data: HISTORY_STORAGE_DEPLOYMENT.data,
      deployedAddress: HISTORY_STORAGE_DEPLOYMENT.address,
      codeHash: hexToBytes("0x6e49e66782037c0555897870e29fa5e552daf4719552131a0abce779daec0a5d"),
    },
  ],
  // jovian/derivation.md "Network Upgrade Transactions", with op-node's intents (see the file comment)
  jovian: [
    deployment(
      "Jovian: L1 Block Deployment",
      JOVIAN_L1_BLOCK_DEPLOYER,
      447_315n,
      JOVIAN_L1_BLOCK_DEPLOYMENT_BYTECODE,
      "0x5f885ca815d2cf27a203123e50b8ae204fdca910b6995d90b2d7700cbb9240d1",
    ),
    proxyUpdate("Jovian: L1 Block Proxy Update", L1_BLOCK_ADDRESS, JOVIAN_L1_BLOCK_ADDRESS),
    deployment(
      "Jovian: Gas Price Oracle Deployment",
      JOVIAN_GAS_PRICE_ORACLE_DEPLOYER,
      1_750_714n,
      JOVIAN_GAS_PRICE_ORACLE_DEPLOYMENT_BYTECODE,
      "0xe9fc7c96c4db0d6078e3d359d7e8c982c350a513cb2c31121adf5e1e8a446614",
    ),
    proxyUpdate(
      "Jovian: Gas Price Oracle Proxy Update",
      GAS_PRICE_ORACLE_ADDRESS,
      JOVIAN_GAS_PRICE_ORACLE_ADDRESS,
    ),
    gasPriceOracleCall("Jovian: Gas Price Oracle Set Jovian", 90_000n, "setJovian()"),
  ],
};

function isUpgradeFork(fork: OpFork): fork is UpgradeFork {
  return (UPGRADE_FORKS as readonly string[]).includes(fork);
}

/**
 * The upgrade deposits of `fork`'s activation block, in order: fresh objects on every call.
 * Empty for a fork without any; throws UPGRADE_TXS_UNSUPPORTED for interop.
 */
export function upgradeDepositTxs(fork: OpFork): DepositTx[] {
  if (fork === "interop") {
    throw new BaseError(
      "UPGRADE_TXS_UNSUPPORTED",
      "Cannot build upgrade transactions: interop activation is not supported",
      { meta: { fork } },
    );
  }
  if (!isUpgradeFork(fork)) return [];
  return UPGRADE_TXS[fork].map((tx) => ({
    sourceHash: upgradeDepositSourceHash(tx.intent),
    from: tx.from.slice(),
    to: tx.to === null ? null : tx.to.slice(),
    mint: 0n,
    value: 0n,
    gas: tx.gas,
    isSystemTx: false,
    data: tx.data.slice(),
  }));
}

/** The upgrade deposits of `fork`'s activation block, encoded (0x7E envelopes), in order. */
export function upgradeTransactions(fork: OpFork): Uint8Array[] {
  return upgradeDepositTxs(fork).map(encodeDepositTx);
}
