/**
 * The `keel execution --dev` genesis (issue 3 part 8): an op-geth-style genesis JSON with every OP
 * fork up to `upTo` active at 0, the test mnemonic's accounts funded, and the L2 predeploys from
 * `buildL2Alloc` (keel's Jovian-level L1Block and GasPriceOracle) with L1Block preset to plausible L1
 * values and the GasPriceOracle flags set for every active fork (Ecotone, Fjord, Isthmus, Jovian).
 * The devnet builds its L2 genesis through the same `buildL2Alloc` with its real L1 addresses.
 */
import { english, HDKey, privateKeyToAddress } from "viem/accounts";
import { pbkdf2 } from "@noble/hashes/pbkdf2.js";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { bigIntToBytes, bytesToHex, concatBytes, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import { OP_FORKS, type OpFork } from "../../protocol/hardforks.ts";
import { SEQUENCER_FEE_VAULT_ADDRESS } from "../../protocol/predeploys.ts";
import type { GenesisAccountJson, GenesisJson } from "./genesis.ts";
import {
  buildL2Alloc,
  type FeeVaultConfig,
  type L1BlockOperatorFee,
  type L1BlockValues,
  type L2AllocOptions,
} from "./l2_genesis.ts";

/** The mnemonic of anvil, hardhat and OP's devnets. */
export const TEST_MNEMONIC = "test test test test test test test test test test test junk";
export const ETHER = 10n ** 18n;

export interface DevAccount {
  address: Uint8Array;
  privateKey: Uint8Array;
}

/** Index of each word of the BIP-39 English list. */
let wordIndex: Map<string, number> | undefined;

/**
 * Checks a BIP-39 mnemonic in the English list, as anvil's `--mnemonic` does: 12, 15, 18, 21 or 24
 * words of the list whose last bits are the checksum (the first words/3 bits of the SHA-256 of the
 * entropy the other bits make). Throws INVALID_MNEMONIC naming what is wrong; returns the phrase
 * normalized (NFKD, single spaces), as the seed is derived from.
 */
export function checkMnemonic(phrase: string): string {
  const fail = (why: string) => new BaseError("INVALID_MNEMONIC", `Invalid mnemonic: ${why}`);
  const words = phrase.normalize("NFKD").trim().split(/\s+/);
  if (![12, 15, 18, 21, 24].includes(words.length)) {
    throw fail(`${words.length} words; a BIP-39 mnemonic has 12, 15, 18, 21 or 24`);
  }
  wordIndex ??= new Map(english.map((w, i) => [w, i]));
  let bits = 0n;
  for (let k = 0; k < words.length; k++) {
    const i = wordIndex.get(words[k]);
    // Its position, not the word: the phrase is a secret.
    if (i === undefined) throw fail(`word ${k + 1} is not in the BIP-39 English word list`);
    bits = (bits << 11n) | BigInt(i);
  }
  const checksumBits = BigInt(words.length / 3);
  const entropyBytes = (words.length * 11 - words.length / 3) / 8;
  const entropy = bigIntToBytes(bits >> checksumBits, entropyBytes);
  const want = BigInt(sha256(entropy)[0]) >> (8n - checksumBits);
  if ((bits & ((1n << checksumBits) - 1n)) !== want) throw fail("its checksum does not match its words");
  return words.join(" ");
}

/**
 * BIP-39 seed (PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" + passphrase) and BIP-32/44
 * derivation m/44'/60'/0'/0/i for i in [0, count).
 */
export function deriveDevAccounts(count = 10, mnemonic = TEST_MNEMONIC, passphrase = ""): DevAccount[] {
  const enc = new TextEncoder();
  const seed = pbkdf2(
    sha512,
    enc.encode(mnemonic.normalize("NFKD")),
    enc.encode(`mnemonic${passphrase}`.normalize("NFKD")),
    {
      c: 2048,
      dkLen: 64,
    },
  );
  const root = HDKey.fromMasterSeed(seed);
  const out: DevAccount[] = [];
  for (let i = 0; i < count; i++) {
    const key = root.derive(`m/44'/60'/0'/0/${i}`);
    if (key.privateKey === null) throw new BaseError("KEY_DERIVATION", `Cannot derive dev account ${i}`);
    out.push({
      address: hexToBytes(privateKeyToAddress(bytesToHex(key.privateKey))),
      privateKey: key.privateKey,
    });
  }
  return out;
}

/** Defaults of the dev genesis; each says where it comes from. */
export const DEFAULT_DEV_GENESIS_OPTIONS = {
  /** OP devnet chain id (op-e2e, supersim, viem's `optimismSepolia`-style local chains). */
  chainId: 901n,
  /** The devnet's L1 chain id (OP devnet: 900). */
  l1ChainId: 900n,
  /** All OP forks up to Isthmus active at genesis (issue 3 part 8). */
  upTo: "isthmus" as OpFork,
  /** 10,000 ETH per account, as anvil and hardhat fund them. */
  balance: 10_000n * ETHER,
  /** OP devnet L2 genesis gas limit (deploy-config devnetL1: l2GenesisBlockGasLimit 30M). */
  gasLimit: 30_000_000n,
  /** 1 gwei (go-ethereum params.InitialBaseFee; OP devnet l2GenesisBlockBaseFeePerGas). */
  baseFeePerGas: 1_000_000_000n,
  /** OP Mainnet EIP-1559 parameters (superchain registry). */
  eip1559: { elasticity: 6n, denominator: 50n, denominatorCanyon: 250n },
  /** OP Mainnet's Ecotone scalars, as SystemConfig is initialized in OP-CONTRACTS.md. */
  baseFeeScalar: 1368n,
  blobBaseFeeScalar: 810949n,
  /** FeeVault minimum withdrawal (OP devnet deploy config: 10 ether). */
  minWithdrawalAmount: 10n * ETHER,
  /** jovian/l1-attributes.md default DA footprint gas scalar. */
  daFootprintGasScalar: 400n,
} as const;

export interface DevGenesisOptions {
  chainId?: bigint;
  l1ChainId?: bigint;
  /** Genesis timestamp; the caller passes the wall clock (kept explicit so the builder is pure). */
  timestamp?: bigint;
  /** Accounts to fund; default the first 10 of the test mnemonic. */
  accounts?: Uint8Array[];
  balance?: bigint;
  /** Activate every OP fork up to and including this one at genesis. */
  upTo?: OpFork;
  gasLimit?: bigint;
  baseFeePerGas?: bigint;
  /** L2 ProxyAdmin owner; default account 0 of the funded accounts. */
  proxyAdminOwner?: Uint8Array;
  /** Fee vault recipient; default account 0; withdrawals to L1 with the OP devnet minimum. */
  feeVaultRecipient?: Uint8Array;
  /** Batcher address written into L1Block.batcherHash; default account 2 (OP devnet batcher role). */
  batcher?: Uint8Array;
  /** Overrides for the preset L1Block values. */
  l1Block?: Partial<L1BlockValues>;
  /** Overrides for L1Block slot 8 (written when Isthmus is active at genesis). */
  l1BlockOperatorFee?: Partial<L1BlockOperatorFee>;
  /** Implementation runtime code overrides by predeploy name (see `L2AllocOptions.implementationCode`). */
  implementationCode?: Record<string, Uint8Array>;
  /**
   * The L1 proxies the L2 bridges and messenger point at (the devnet passes its deployment);
   * the zero address when there is no L1.
   */
  l1Addresses?: {
    l1CrossDomainMessenger: Uint8Array;
    l1StandardBridge: Uint8Array;
    l1ERC721Bridge: Uint8Array;
  };
  /** Fee vault settings; default: recipient `feeVaultRecipient`, 10 ETH minimum, withdrawals to L1. */
  feeVault?: Partial<FeeVaultConfig>;
  /** Extra alloc entries (op-geth JSON form), added last. */
  extraAlloc?: Record<string, GenesisAccountJson>;
}

/** True when `fork` is at or before `upTo`. */
const has = (upTo: OpFork, fork: OpFork) => OP_FORKS.indexOf(upTo) >= OP_FORKS.indexOf(fork);

/** Fork times in op-geth `config` form: every fork up to `upTo` at 0. */
function forkTimes(upTo: OpFork): Record<string, number> {
  const idx = OP_FORKS.indexOf(upTo);
  if (idx < 0) throw new BaseError("INVALID_FORK", `Cannot build dev genesis: unknown fork ${upTo}`);
  const out: Record<string, number> = {};
  for (const fork of OP_FORKS.slice(1, idx + 1)) out[`${fork}Time`] = 0;
  return out;
}

const u32 = (v: bigint) => bigIntToBytes(v, 4);

/**
 * Header extraData at genesis: from Holocene the EIP-1559 parameters
 * (holocene/exec-engine.md "Dynamic EIP-1559 Parameters": 0x00 ++ u32 denominator ++ u32 elasticity;
 * jovian/exec-engine.md: version 1 adds a u64 minimum base fee).
 */
function genesisExtraData(upTo: OpFork, denominator: bigint, elasticity: bigint): Uint8Array {
  const idx = OP_FORKS.indexOf(upTo);
  if (idx >= OP_FORKS.indexOf("jovian")) {
    return concatBytes(new Uint8Array([1]), u32(denominator), u32(elasticity), bigIntToBytes(0n, 8));
  }
  if (idx >= OP_FORKS.indexOf("holocene")) {
    return concatBytes(new Uint8Array([0]), u32(denominator), u32(elasticity));
  }
  return new Uint8Array();
}

/** The dev chain's op-geth `config` object. */
export function devChainConfig(chainId: bigint, upTo: OpFork): Record<string, unknown> {
  const times = forkTimes(upTo);
  const { eip1559 } = DEFAULT_DEV_GENESIS_OPTIONS;
  return {
    // A JSON number as op-geth writes it; a decimal string when it would not survive as a double.
    chainId: chainId <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(chainId) : chainId.toString(),
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    muirGlacierBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    arrowGlacierBlock: 0,
    grayGlacierBlock: 0,
    mergeNetsplitBlock: 0,
    terminalTotalDifficulty: 0,
    ...(has(upTo, "canyon") ? { shanghaiTime: 0 } : {}),
    ...(has(upTo, "ecotone") ? { cancunTime: 0 } : {}),
    ...(has(upTo, "isthmus") ? { pragueTime: 0 } : {}),
    bedrockBlock: 0,
    ...times,
    optimism: {
      eip1559Elasticity: Number(eip1559.elasticity),
      eip1559Denominator: Number(eip1559.denominator),
      eip1559DenominatorCanyon: Number(eip1559.denominatorCanyon),
    },
  };
}

/** Builds the `--dev` genesis as an op-geth genesis JSON object. */
export function buildDevGenesis(options: DevGenesisOptions = {}): GenesisJson {
  const d = DEFAULT_DEV_GENESIS_OPTIONS;
  const chainId = options.chainId ?? d.chainId;
  const upTo = options.upTo ?? d.upTo;
  const timestamp = options.timestamp ?? 0n;
  const accounts = options.accounts ?? deriveDevAccounts(10).map((a) => a.address);
  if (
    accounts.length === 0 &&
    (options.proxyAdminOwner === undefined || options.feeVaultRecipient === undefined)
  ) {
    throw new BaseError(
      "INVALID_DEV_GENESIS",
      "Cannot build dev genesis: no accounts and no owner / recipient",
    );
  }
  const owner = options.proxyAdminOwner ?? accounts[0];
  const recipient = options.feeVaultRecipient ?? accounts[0];
  const batcher = options.batcher ?? accounts[2] ?? accounts[0];
  const ecotone = has(upTo, "ecotone");
  const fjord = has(upTo, "fjord");
  const isthmus = has(upTo, "isthmus");
  const vault: FeeVaultConfig = {
    recipient,
    minWithdrawalAmount: d.minWithdrawalAmount,
    withdrawalNetwork: 0,
    ...options.feeVault,
  };
  const l1Block: L1BlockValues = {
    number: 1n,
    timestamp,
    basefee: 1_000_000_000n,
    hash: keccak256(new TextEncoder().encode(`keel dev L1 block 1 of chain ${chainId}`)),
    sequenceNumber: 0n,
    batcherHash: bigIntToBytes(BigInt(bytesToHex(batcher)), 32),
    l1FeeOverhead: 0n,
    l1FeeScalar: 1_000_000n,
    baseFeeScalar: d.baseFeeScalar,
    blobBaseFeeScalar: d.blobBaseFeeScalar,
    blobBaseFee: 1n,
    ...options.l1Block,
  };
  const zero = new Uint8Array(20);
  const allocOptions: L2AllocOptions = {
    l1ChainId: options.l1ChainId ?? d.l1ChainId,
    l2ChainId: chainId,
    proxyAdminOwner: owner,
    sequencerFeeVault: vault,
    baseFeeVault: vault,
    l1FeeVault: vault,
    operatorFeeVault: vault,
    l1CrossDomainMessenger: options.l1Addresses?.l1CrossDomainMessenger ?? zero,
    l1StandardBridge: options.l1Addresses?.l1StandardBridge ?? zero,
    l1ERC721Bridge: options.l1Addresses?.l1ERC721Bridge ?? zero,
    l1Block,
    l1BlockOperatorFee: has(upTo, "isthmus")
      ? {
        operatorFeeConstant: 0n,
        operatorFeeScalar: 0n,
        // jovian/l1-attributes.md: the default DA footprint gas scalar.
        daFootprintGasScalar: has(upTo, "jovian") ? d.daFootprintGasScalar : 0n,
        ...options.l1BlockOperatorFee,
      }
      : undefined,
    implementationCode: options.implementationCode,
    gasPriceOracle: { ecotone, fjord, isthmus, jovian: has(upTo, "jovian") },
    preinstalls: true,
    historyStorage: has(upTo, "isthmus"),
    precompileBalances: true,
  };
  const alloc = buildL2Alloc(allocOptions);
  const balance = "0x" + (options.balance ?? d.balance).toString(16);
  for (const a of accounts) {
    const key = bytesToHex(a);
    alloc[key] = { ...(alloc[key] ?? {}), balance };
  }
  Object.assign(alloc, options.extraAlloc ?? {});
  return {
    config: devChainConfig(chainId, upTo),
    nonce: "0x0",
    timestamp: "0x" + timestamp.toString(16),
    extraData: bytesToHex(genesisExtraData(upTo, d.eip1559.denominatorCanyon, d.eip1559.elasticity)),
    gasLimit: "0x" + (options.gasLimit ?? d.gasLimit).toString(16),
    difficulty: "0x0",
    mixHash: bytesToHex(new Uint8Array(32)),
    // OP genesis coinbase: the SequencerFeeVault (op-chain-ops NewL2Genesis).
    coinbase: bytesToHex(SEQUENCER_FEE_VAULT_ADDRESS),
    number: "0x0",
    gasUsed: "0x0",
    parentHash: bytesToHex(new Uint8Array(32)),
    baseFeePerGas: "0x" + (options.baseFeePerGas ?? d.baseFeePerGas).toString(16),
    alloc,
  };
}
