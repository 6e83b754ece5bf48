/**
 * A plain Ethereum (L1) dev genesis on Prague, as go-ethereum's `--dev` builds it (core/genesis.go
 * DeveloperGenesisBlock): every fork active at 0, the dev accounts funded, and the Prague system
 * contracts (EIP-4788, EIP-2935, EIP-7002, EIP-7251: l1_system_contracts.ts) in the alloc, without
 * which an L1 Prague block cannot be built (EIP-7002/EIP-7251: no code at a queue contract makes the
 * block invalid). The devnet's L1 starts from it.
 */
import { bytesToHex } from "../../common/bytes.ts";
import { L1_BLOCK_FORKS } from "../../protocol/chain_config.ts";
import { deriveDevAccounts, ETHER } from "./dev_genesis.ts";
import type { GenesisJson } from "./genesis.ts";
import { l1SystemContractAlloc } from "./l1_system_contracts.ts";

/** Defaults of the L1 dev genesis; each says where it comes from. */
export const DEFAULT_L1_DEV_GENESIS_OPTIONS = {
  /** The OP devnet's L1 chain id (op-e2e devnetL1: 900). */
  chainId: 900n,
  /** 10,000 ETH per account, as anvil and hardhat fund them. */
  balance: 10_000n * ETHER,
  /** The OP devnet L1's gas limit (op-e2e devnetL1 l1GenesisBlockGasLimit: 30M). */
  gasLimit: 30_000_000n,
  /** go-ethereum params.InitialBaseFee (1 gwei). */
  baseFeePerGas: 1_000_000_000n,
} as const;

export interface L1DevGenesisOptions {
  chainId?: bigint;
  /** Genesis timestamp (the caller passes the wall clock; kept explicit so the builder is pure). */
  timestamp?: bigint;
  /** Accounts to fund; default the first 10 of the test mnemonic. */
  accounts?: Uint8Array[];
  balance?: bigint;
  gasLimit?: bigint;
  baseFeePerGas?: bigint;
  /** Extra alloc entries (op-geth JSON form), added last. */
  extraAlloc?: GenesisJson["alloc"];
}

const hex = (v: bigint) => "0x" + v.toString(16);

/** The L1 dev genesis as a genesis.json object (Shanghai, Cancun and Prague at 0). */
export function buildL1DevGenesis(options: L1DevGenesisOptions = {}): GenesisJson {
  const d = DEFAULT_L1_DEV_GENESIS_OPTIONS;
  const chainId = options.chainId ?? d.chainId;
  const config: Record<string, unknown> = {
    chainId: chainId <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(chainId) : chainId.toString(),
  };
  for (const fork of L1_BLOCK_FORKS) config[`${fork}Block`] = 0;
  Object.assign(config, { terminalTotalDifficulty: 0, shanghaiTime: 0, cancunTime: 0, pragueTime: 0 });
  const alloc: GenesisJson["alloc"] = l1SystemContractAlloc();
  const accounts = options.accounts ?? deriveDevAccounts(10).map((a) => a.address);
  for (const a of accounts) {
    alloc[bytesToHex(a).toLowerCase()] = { balance: hex(options.balance ?? d.balance) };
  }
  Object.assign(alloc, options.extraAlloc ?? {});
  return {
    config,
    nonce: "0x0",
    timestamp: hex(options.timestamp ?? 0n),
    extraData: "0x",
    gasLimit: hex(options.gasLimit ?? d.gasLimit),
    difficulty: "0x0",
    mixHash: bytesToHex(new Uint8Array(32)),
    coinbase: bytesToHex(new Uint8Array(20)),
    number: "0x0",
    gasUsed: "0x0",
    parentHash: bytesToHex(new Uint8Array(32)),
    baseFeePerGas: hex(options.baseFeePerGas ?? d.baseFeePerGas),
    alloc,
  };
}
