/**
 * The execution client's launch options: spec 4.1 (`--http*`, `--ws*`) plus what an op-geth
 * operator expects (data dir, Engine API listener, RPC limits, dev mode). Environment names
 * follow the option names: `KEEL_` + upper-cased name with `.` and `-` as `_`.
 * `keel node` embeds the execution client and takes the same entries.
 */
import { envSuffixOf, KEEL, OP_GETH, option, optional, type OptionTable, SPEC_4_1 } from "../option.ts";
import { OP_FORKS } from "../../protocol/hardforks.ts";
import {
  bool,
  duration,
  float,
  host,
  HTTP_SCHEMES,
  int,
  int64,
  listOf,
  oneOf,
  path,
  port,
  text,
  uint64,
  url,
} from "../values.ts";

/** API groups a listener can serve (`--http.api`, `--ws.api`). */
export const API_GROUPS = [
  "eth",
  "net",
  "web3",
  "debug",
  "trace",
  "txpool",
  "admin",
  "ots",
  "erigon",
  "miner",
] as const;
export type ApiGroup = typeof API_GROUPS[number];

function named(name: string): { name: string; env: string } {
  return { name, env: envSuffixOf(name) };
}

const rpcGroup = "Execution client: HTTP and WebSocket RPC";
const engineGroup = "Execution client: Engine API";
const limitGroup = "Execution client: RPC limits";
const chainGroup = "Execution client: chain and data";
const poolGroup = "Execution client: transaction pool";

export const EXECUTION_OPTIONS = {
  http: option({
    ...named("http"),
    kind: bool,
    default: false,
    origin: SPEC_4_1,
    group: rpcGroup,
    description: "enable the HTTP JSON-RPC server",
  }),
  httpAddr: option({
    ...named("http.addr"),
    kind: host,
    default: "127.0.0.1",
    origin: `${OP_GETH} (geth says localhost)`,
    group: rpcGroup,
    description: "HTTP JSON-RPC listening address",
  }),
  httpPort: option({
    ...named("http.port"),
    kind: port,
    default: 8545,
    origin: OP_GETH,
    group: rpcGroup,
    description: "HTTP JSON-RPC listening port",
  }),
  httpApi: option({
    ...named("http.api"),
    kind: listOf(oneOf(API_GROUPS)),
    default: ["eth", "net", "web3"],
    origin: OP_GETH,
    group: rpcGroup,
    description: `API groups served over HTTP: ${API_GROUPS.join(", ")}`,
  }),
  httpCorsDomain: option({
    ...named("http.corsdomain"),
    kind: listOf(text),
    default: [],
    origin: OP_GETH,
    group: rpcGroup,
    description: "comma list of origins allowed cross-origin requests (* for any); empty: none",
  }),
  httpVhosts: option({
    ...named("http.vhosts"),
    kind: listOf(text),
    default: ["localhost"],
    origin: OP_GETH,
    group: rpcGroup,
    description: "comma list of Host header names accepted (* for any)",
  }),
  ws: option({
    ...named("ws"),
    kind: bool,
    default: false,
    origin: SPEC_4_1,
    group: rpcGroup,
    description: "enable the WebSocket JSON-RPC server",
  }),
  wsAddr: option({
    ...named("ws.addr"),
    kind: host,
    default: "127.0.0.1",
    origin: `${OP_GETH} (geth says localhost)`,
    group: rpcGroup,
    description: "WebSocket JSON-RPC listening address",
  }),
  wsPort: option({
    ...named("ws.port"),
    kind: port,
    default: 8546,
    origin: OP_GETH,
    group: rpcGroup,
    description: "WebSocket JSON-RPC listening port",
  }),
  wsApi: option({
    ...named("ws.api"),
    kind: listOf(oneOf(API_GROUPS)),
    default: ["eth", "net", "web3"],
    origin: OP_GETH,
    group: rpcGroup,
    description: `API groups served over WebSocket: ${API_GROUPS.join(", ")}`,
  }),
  authrpcAddr: option({
    ...named("authrpc.addr"),
    kind: host,
    default: "127.0.0.1",
    origin: OP_GETH,
    group: engineGroup,
    description: "Engine API (JWT-authenticated) listening address",
  }),
  authrpcPort: option({
    ...named("authrpc.port"),
    kind: port,
    default: 8551,
    origin: OP_GETH,
    group: engineGroup,
    description: "Engine API listening port",
  }),
  authrpcJwtSecret: optional({
    ...named("authrpc.jwtsecret"),
    kind: path,
    origin: OP_GETH,
    group: engineGroup,
    description: "path to the JWT secret file (32 bytes hex); empty: generated in the data dir",
  }),
  rpcGasCap: option({
    ...named("rpc.gascap"),
    kind: uint64,
    default: 50_000_000n,
    origin: OP_GETH,
    group: limitGroup,
    description: "gas cap of eth_call and eth_estimateGas (0 = no cap)",
  }),
  rpcTxFeeCap: option({
    ...named("rpc.txfeecap"),
    kind: float(0),
    default: 1,
    origin: OP_GETH,
    group: limitGroup,
    description: "fee cap in ether of transactions sent through RPC (0 = no cap)",
  }),
  rpcEvmTimeoutMs: option({
    ...named("rpc.evmtimeout"),
    kind: duration,
    default: 5_000,
    origin: OP_GETH,
    group: limitGroup,
    description: "timeout of eth_call (0 = no timeout)",
  }),
  rpcBatchRequestLimit: option({
    ...named("rpc.batch-request-limit"),
    kind: int(0, 2 ** 31 - 1),
    default: 1000,
    origin: OP_GETH,
    group: limitGroup,
    description: "max requests in one batch",
  }),
  rpcBatchResponseMaxSize: option({
    ...named("rpc.batch-response-max-size"),
    kind: int(0, 2 ** 53 - 1),
    default: 25_000_000,
    origin: OP_GETH,
    group: limitGroup,
    description: "max bytes of one batch response",
  }),
  datadir: option({
    ...named("datadir"),
    kind: path,
    default: "keel_data",
    origin: KEEL,
    group: chainGroup,
    description:
      "data directory (database, keys, generated JWT secret); with --dev, only when given (else the dev chain lives in memory)",
  }),
  txpoolPriceLimit: option({
    ...named("txpool.pricelimit"),
    kind: uint64,
    default: 1n,
    origin: OP_GETH,
    group: poolGroup,
    description:
      "minimum tip per gas (wei) a transaction must offer to enter the pool (dev mode: 0 unless given)",
  }),
  txpoolPriceBump: option({
    ...named("txpool.pricebump"),
    kind: uint64,
    default: 10n,
    origin: OP_GETH,
    group: poolGroup,
    description: "fee increase (percent, fee cap and tip) a transaction needs to replace one with its nonce",
  }),
  txpoolAccountSlots: option({
    ...named("txpool.accountslots"),
    kind: int(1, 1_000_000),
    default: 16,
    origin: OP_GETH,
    group: poolGroup,
    description: "executable transactions kept per account before the global limit touches it",
  }),
  txpoolGlobalSlots: option({
    ...named("txpool.globalslots"),
    kind: int(1, 10_000_000),
    default: 5120,
    origin: OP_GETH,
    group: poolGroup,
    description: "executable transactions kept for all accounts",
  }),
  txpoolAccountQueue: option({
    ...named("txpool.accountqueue"),
    kind: int(1, 1_000_000),
    default: 64,
    origin: OP_GETH,
    group: poolGroup,
    description: "non-executable (nonce-gapped) transactions kept per account",
  }),
  txpoolGlobalQueue: option({
    ...named("txpool.globalqueue"),
    kind: int(1, 10_000_000),
    default: 1024,
    origin: OP_GETH,
    group: poolGroup,
    description: "non-executable transactions kept for all accounts",
  }),
  txpoolLifetime: option({
    ...named("txpool.lifetime"),
    kind: duration,
    default: 3 * 60 * 60 * 1000,
    origin: OP_GETH,
    group: poolGroup,
    description: "how long an account's non-executable transactions are kept without activity",
  }),
  txpoolJournal: option({
    ...named("txpool.journal"),
    kind: text,
    default: "transactions.rlp",
    origin: OP_GETH,
    group: poolGroup,
    description:
      "file (in the data directory unless absolute) keeping the local transactions across restarts; empty: none",
  }),
  txpoolRejournal: option({
    ...named("txpool.rejournal"),
    kind: duration,
    default: 60 * 60 * 1000,
    origin: OP_GETH,
    group: poolGroup,
    description: "how often the local transaction journal is rewritten (at least 1s; also at shutdown)",
  }),
  txpoolNoLocals: option({
    ...named("txpool.nolocals"),
    kind: bool,
    default: false,
    origin: OP_GETH,
    group: poolGroup,
    description:
      "treat transactions sent through this node's RPC as remote: no eviction exemptions, no journal",
  }),
  rpcAllowUnprotectedTxs: option({
    ...named("rpc.allow-unprotected-txs"),
    kind: bool,
    default: false,
    origin: OP_GETH,
    group: poolGroup,
    description: "accept legacy transactions without EIP-155 replay protection",
  }),
  gpoMinSuggestedPriorityFee: option({
    ...named("gpo.minsuggestedpriorityfee"),
    kind: uint64,
    default: 1_000_000n,
    origin: OP_GETH,
    group: rpcGroup,
    description: "the smallest tip (wei) eth_maxPriorityFeePerGas and eth_gasPrice suggest",
  }),
  gpoMaxPrice: option({
    ...named("gpo.maxprice"),
    kind: uint64,
    default: 500_000_000_000n,
    origin: OP_GETH,
    group: rpcGroup,
    description: "the largest tip (wei) the gas price oracle suggests",
  }),
  rollupSequencerHttp: optional({
    ...named("rollup.sequencerhttp"),
    kind: url(HTTP_SCHEMES),
    origin: OP_GETH,
    group: chainGroup,
    description:
      "the sequencer's HTTP RPC: transactions sent here are forwarded to it (its answer is the caller's) and kept in the local pool",
  }),
  rollupSequencerTxConditionalEnabled: option({
    ...named("rollup.sequencertxconditionalenabled"),
    kind: bool,
    default: false,
    origin: OP_GETH,
    group: chainGroup,
    description:
      "serve eth_sendRawTransactionConditional (ERC-4337 bundlers): transactions with preconditions, checked when sent and when a block takes them",
  }),
  gcmode: option({
    ...named("gcmode"),
    kind: oneOf(["full", "archive"] as const),
    default: "full",
    origin: OP_GETH,
    group: chainGroup,
    description:
      "full: keep the state of the blocks from the finalized one up (at least the last 128) and prune older states as the chain grows; archive: keep every state (the default with --dev, as anvil; --dev --gcmode full also keeps the states evm_revert and anvil_reset go back to)",
  }),
  genesis: optional({
    ...named("genesis"),
    kind: path,
    origin: KEEL,
    group: chainGroup,
    description: "path to a genesis.json to start the chain from",
  }),
  dev: option({
    ...named("dev"),
    kind: bool,
    default: false,
    origin: OP_GETH,
    group: chainGroup,
    description:
      "developer mode: a chain that seals its own blocks, the --dev.accounts accounts of --dev.mnemonic (10 of the test mnemonic) funded and unlocked, anvil's evm_*/anvil_* methods",
  }),
  devPeriod: option({
    ...named("dev.period"),
    kind: int(0, 2 ** 31 - 1),
    default: 0,
    origin: OP_GETH,
    group: chainGroup,
    description: "seconds between dev blocks (0 = a block as soon as a transaction arrives)",
  }),
  devAccounts: option({
    ...named("dev.accounts"),
    kind: int(1, 10_000),
    default: 10,
    origin: "anvil",
    group: chainGroup,
    description:
      "dev mode: accounts derived from --dev.mnemonic (m/44'/60'/0'/0/i), funded in a new dev chain's genesis and unlocked (anvil --accounts)",
  }),
  devBalance: option({
    ...named("dev.balance"),
    kind: uint64,
    default: 10_000n,
    origin: "anvil",
    group: chainGroup,
    description: "dev mode: ether each dev account holds in a new dev chain's genesis (anvil --balance)",
  }),
  devMnemonic: option({
    ...named("dev.mnemonic"),
    kind: text,
    default: "test test test test test test test test test test test junk",
    origin: "anvil",
    group: chainGroup,
    description:
      'dev mode: the BIP-39 mnemonic (English) the dev accounts come from (anvil --mnemonic; default: the test mnemonic "test test ... junk")',
    // Keys come from it: kept out of error messages and logs as the other secrets.
    secret: true,
  }),
  devGasLimit: option({
    ...named("dev.gaslimit"),
    kind: uint64,
    default: 30_000_000n,
    origin: OP_GETH,
    group: chainGroup,
    description:
      "dev mode: the gas limit of a new dev chain's genesis, which its blocks keep (geth --dev.gaslimit)",
  }),
  devBaseFee: option({
    ...named("dev.basefee"),
    kind: uint64,
    default: 1_000_000_000n,
    origin: "anvil",
    group: chainGroup,
    description:
      "dev mode: the base fee per gas (wei) of a new dev chain's genesis, from which EIP-1559 moves it (anvil --block-base-fee-per-gas)",
  }),
  devHardfork: option({
    ...named("dev.hardfork"),
    // Interop is left out: keel does not run an interop chain (interfaces.md's interop options are refused).
    kind: oneOf(OP_FORKS.filter((f) => f !== "interop")),
    default: "isthmus",
    origin: "anvil",
    group: chainGroup,
    description:
      "dev mode: the OP fork a new dev chain runs, with every fork before it, active from genesis (anvil --hardfork)",
  }),
  devTimestamp: optional({
    ...named("dev.timestamp"),
    kind: uint64,
    origin: "anvil",
    group: chainGroup,
    description:
      "dev mode: the timestamp of a new dev chain's genesis (default: now); the blocks after it keep going up from it (anvil --timestamp)",
  }),
  devNoMining: option({
    ...named("dev.no-mining"),
    kind: bool,
    default: false,
    origin: "anvil",
    group: chainGroup,
    description:
      "dev mode: seal no block on arrival or timer, only on evm_mine / anvil_mine (or after evm_setAutomine, evm_setIntervalMining) (anvil --no-mining)",
  }),
  devForkUrl: optional({
    ...named("dev.fork-url"),
    kind: text,
    origin: "anvil",
    group: chainGroup,
    description:
      "dev mode: fork another node's chain over JSON-RPC: the dev chain goes on from its block --dev.fork-block-number, reading what it has not written from it (anvil --fork-url)",
    // RPC URLs often carry an API key.
    secret: true,
  }),
  devForkBlockNumber: optional({
    ...named("dev.fork-block-number"),
    kind: int64,
    origin: "anvil",
    group: chainGroup,
    description:
      "dev mode: the block of --dev.fork-url to fork at (default: its head; negative: that many blocks before its head; anvil --fork-block-number)",
  }),
  devCodeSizeLimit: optional({
    ...named("dev.code-size-limit"),
    kind: int(1, 2 ** 31 - 1),
    origin: "anvil",
    group: chainGroup,
    description:
      "dev mode: the contract code size limit in bytes instead of EIP-170's 24576, the initcode limit twice it (anvil --code-size-limit)",
  }),
  devDisableCodeSizeLimit: option({
    ...named("dev.disable-code-size-limit"),
    kind: bool,
    default: false,
    origin: "anvil",
    group: chainGroup,
    description:
      "dev mode: no contract code size limit and no initcode size limit (anvil --disable-code-size-limit)",
  }),
  loadState: optional({
    ...named("load-state"),
    kind: path,
    origin: "anvil",
    group: chainGroup,
    description:
      "dev mode: apply a state dump at start (anvil's JSON, as anvil --dump-state and anvil_dumpState write it)",
  }),
  dumpState: optional({
    ...named("dump-state"),
    kind: path,
    origin: "anvil",
    group: chainGroup,
    description: "dev mode: write the state as anvil's JSON dump to this file on exit",
  }),
  state: optional({
    ...named("state"),
    kind: path,
    origin: "anvil",
    group: chainGroup,
    description: "dev mode: --load-state from this file when it exists, and --dump-state to it on exit",
  }),
  networkId: option({
    ...named("networkid"),
    kind: uint64,
    default: 901n,
    origin: KEEL,
    group: chainGroup,
    description: "chain id (and network id) of the dev chain; a genesis file's chain id wins",
  }),
} satisfies OptionTable;
