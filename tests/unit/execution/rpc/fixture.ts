/**
 * A real backend for the RPC tests: MemoryStore + ChainStore + the OP dev genesis (Isthmus) +
 * blocks built with the EVM BlockBuilder (transfers, contract deploys, logs, a deposit, a
 * revert), a real TxPool, and a dispatcher through the RPC core.
 */
import { createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from "@ethereumjs/tx";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { Address } from "@ethereumjs/util";
import { bytesToHex, concatBytes, hexToBytes, keccak256 } from "../../../../lib/common/mod.ts";
import { MemoryStore } from "../../../../lib/db/mod.ts";
import { ChainStore } from "../../../../lib/execution/chain/mod.ts";
import { toStoredReceipts } from "../../../../lib/execution/engine/mod.ts";
import { BlockBuilder, forkRules, type TxResult } from "../../../../lib/execution/evm/mod.ts";
import type { BuilderTx } from "../../../../lib/execution/evm/mod.ts";
import {
  buildDevGenesis,
  buildGenesis,
  deriveDevAccounts,
  parseGenesis,
} from "../../../../lib/execution/genesis/mod.ts";
import {
  DEFAULT_ETH_RPC_OPTIONS,
  type EthBackend,
  ethNamespace,
  FilterManager,
  netNamespace,
  txpoolNamespace,
  web3Namespace,
} from "../../../../lib/execution/rpc/mod.ts";
import { createStateManager } from "../../../../lib/execution/state/mod.ts";
import { DEV_TXPOOL_OPTIONS, TxPool } from "../../../../lib/execution/txpool/mod.ts";
import type { DepositTx, Header } from "../../../../lib/protocol/mod.ts";
import {
  DEFAULT_ENVELOPE_LIMITS,
  handleRpcValue,
  MethodRegistry,
  NOOP_LOGGER,
} from "../../../../lib/rpc/mod.ts";

export const GWEI = 1_000_000_000n;
export const ETHER = 10n ** 18n;
export const ACCOUNTS = deriveDevAccounts(4);
export const [A, B, C, D] = ACCOUNTS;
export const LOG_TOPIC = keccak256(new TextEncoder().encode("Stored(bytes)"));
const SEQUENCER_FEE_VAULT = hexToBytes("0x4200000000000000000000000000000000000011");

/** Init code that deploys `runtime`. */
export function deployCode(runtime: Uint8Array): Uint8Array {
  const n = runtime.length;
  // PUSH1 n PUSH1 12 PUSH1 0 CODECOPY PUSH1 n PUSH1 0 RETURN
  return concatBytes(new Uint8Array([0x60, n, 0x60, 12, 0x60, 0, 0x39, 0x60, n, 0x60, 0, 0xf3]), runtime);
}

/** Runtime: SSTORE(0, calldata[0:32]); LOG2(calldata, LOG_TOPIC, caller); STOP. */
export const LOGGER_RUNTIME = concatBytes(
  new Uint8Array([0x60, 0, 0x35, 0x60, 0, 0x55, 0x36, 0x60, 0, 0x60, 0, 0x37, 0x33, 0x7f]),
  LOG_TOPIC,
  new Uint8Array([0x36, 0x60, 0, 0xa2, 0x00]),
);

/** Runtime that reverts with `data`. */
export function revertRuntime(data: Uint8Array): Uint8Array {
  const n = data.length;
  return concatBytes(new Uint8Array([0x60, n, 0x60, 12, 0x60, 0, 0x39, 0x60, n, 0x60, 0, 0xfd]), data);
}

/** ABI Error(string) revert data. */
export function errorData(reason: string): Uint8Array {
  const text = new TextEncoder().encode(reason);
  const padded = new Uint8Array(Math.ceil(text.length / 32) * 32);
  padded.set(text);
  const word = (v: number) => {
    const w = new Uint8Array(32);
    new DataView(w.buffer).setUint32(28, v);
    return w;
  };
  return concatBytes(hexToBytes("0x08c379a0"), word(32), word(text.length), padded);
}

/** ABI Panic(uint256) revert data. */
export function panicData(code: number): Uint8Array {
  const w = new Uint8Array(32);
  w[31] = code;
  return concatBytes(hexToBytes("0x4e487b71"), w);
}

export interface Fixture {
  backend: EthBackend;
  store: MemoryStore;
  chain: ChainStore;
  pool: TxPool;
  filters: FilterManager;
  registry: MethodRegistry;
  now: { ms: number };
  /** Builds and imports a block with these transactions; returns its hash and tx results. */
  mine(txs: BuilderTx[]): Promise<{ hash: Uint8Array; header: Header; results: TxResult[] }>;
  /** Signs an EIP-1559 tx from `from` for the next block. */
  sign(
    from: typeof A,
    nonce: bigint,
    fields: {
      to?: Uint8Array;
      value?: bigint;
      data?: Uint8Array;
      gas?: bigint;
      tip?: bigint;
      maxFee?: bigint;
    },
  ): TypedTransaction;
  signLegacy(
    from: typeof A,
    nonce: bigint,
    fields: { to?: Uint8Array; value?: bigint; gasPrice?: bigint },
  ): TypedTransaction;
  /** Sends one JSON-RPC request through the core dispatcher; returns the parsed response. */
  rpc(
    method: string,
    params?: unknown[],
  ): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }>;
  /** The result, or throws with the error message. */
  call<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** The state of the latest block (a fresh manager). */
  latestState(): Promise<MerkleStateManager>;
}

export interface Deployed {
  fixture: Fixture;
  logger: Uint8Array;
  reverter: Uint8Array;
  panicker: Uint8Array;
  /** Block 1: transfer A -> B, three deploys, a deposit. Block 2: logger call, reverting call. */
  block1: { hash: Uint8Array; results: TxResult[] };
  block2: { hash: Uint8Array; results: TxResult[] };
  deposit: DepositTx;
  /** A pending pool transaction from C. */
  pendingHash: string;
}

/** The fixture chain: genesis only. */
export async function createFixture(
  options: Partial<EthBackend["options"]> = {},
  genesisGasLimit?: bigint,
  genesisTimestamp = 1000n,
  coinbase: Uint8Array = SEQUENCER_FEE_VAULT,
): Promise<Fixture> {
  const store = new MemoryStore();
  const chain = new ChainStore({}, { store });
  const genesis = parseGenesis(
    buildDevGenesis({
      accounts: ACCOUNTS.map((a) => a.address),
      timestamp: genesisTimestamp,
      gasLimit: genesisGasLimit,
    }),
  );
  const config = genesis.config;
  const sm = await createStateManager(store);
  const g = await buildGenesis(genesis, sm);
  chain.putBlock(g.block, [], { hash: g.hash });
  chain.setCanonicalHead(g.hash);
  const now = { ms: 1_000_000 };
  const stateAt = (header: Header) => createStateManager(store, header.stateRoot);
  const latestState = () => stateAt(chain.getHeadHeader("latest")!);
  const pool = new TxPool(DEV_TXPOOL_OPTIONS, {
    getAccount: async (address) => {
      const acc = await (await latestState()).getAccount(new Address(address));
      return { nonce: acc?.nonce ?? 0n, balance: acc?.balance ?? 0n };
    },
    head: () => {
      const h = chain.getHeadHeader("latest")!;
      return {
        chainId: config.chainId,
        gasLimit: h.gasLimit,
        nextBaseFee: h.baseFeePerGas ?? 0n,
        allowedTypes: new Set([0, 1, 2, 4]),
        timestamp: h.timestamp + 2n,
        isShanghai: true,
        isPrague: true,
      };
    },
    l1Cost: () => 0n,
    clock: () => now.ms,
  });
  const backend: EthBackend = {
    config,
    chain,
    pool,
    stateAt,
    clientVersion: "keel/v0.1.0-test/linux-x64/deno2.9.6",
    options: { ...DEFAULT_ETH_RPC_OPTIONS, ...options },
    clock: () => now.ms,
  };
  const filters = new FilterManager({}, { backend });
  const registry = new MethodRegistry([
    ethNamespace(backend, filters),
    netNamespace(backend),
    web3Namespace(backend),
    txpoolNamespace(backend),
  ]);
  const dispatch = { registry, limits: DEFAULT_ENVELOPE_LIMITS, logger: NOOP_LOGGER };
  let id = 0;
  const rpc: Fixture["rpc"] = async (method, params = []) => {
    const text = await handleRpcValue({ jsonrpc: "2.0", id: ++id, method, params }, dispatch);
    return JSON.parse(text!);
  };
  const fixture: Fixture = {
    backend,
    store,
    chain,
    pool,
    filters,
    registry,
    now,
    latestState,
    rpc,
    async call<T>(method: string, params: unknown[] = []) {
      const res = await rpc(method, params);
      if (res.error !== undefined) throw new Error(`${method}: ${res.error.code} ${res.error.message}`);
      return res.result as T;
    },
    sign(from, nonce, f) {
      const parent = chain.getHeadHeader("latest")!;
      const common = forkRules(config, parent.timestamp + 2n).common;
      return createFeeMarket1559Tx({
        chainId: config.chainId,
        nonce,
        to: f.to,
        value: f.value ?? 0n,
        data: f.data,
        gasLimit: f.gas ?? 300_000n,
        maxFeePerGas: f.maxFee ?? 10n * GWEI,
        maxPriorityFeePerGas: f.tip ?? GWEI,
      }, { common }).sign(from.privateKey);
    },
    signLegacy(from, nonce, f) {
      const parent = chain.getHeadHeader("latest")!;
      const common = forkRules(config, parent.timestamp + 2n).common;
      return createLegacyTx({
        nonce,
        to: f.to,
        value: f.value ?? 0n,
        gasLimit: 21_000n,
        gasPrice: f.gasPrice ?? 2n * GWEI,
      }, { common }).sign(from.privateKey);
    },
    async mine(txs) {
      const parent = chain.getHeadHeader("latest")!;
      const state = await stateAt(parent);
      const builder = await BlockBuilder.open(config, parent, {
        timestamp: parent.timestamp + 2n,
        coinbase,
        prevRandao: new Uint8Array(32),
        gasLimit: parent.gasLimit,
        parentBeaconBlockRoot: new Uint8Array(32),
        eip1559Params: new Uint8Array(8),
      }, {
        stateManager: state,
        getBlockHash: (n) => Promise.resolve(chain.getCanonicalHash(n)),
      });
      for (const tx of txs) await builder.addTransaction(tx);
      const sealed = await builder.seal();
      const receipts = toStoredReceipts(sealed.receipts);
      const parentRef = chain.getHead("latest")!;
      chain.putBlock(sealed.block, receipts, { hash: sealed.hash });
      chain.setCanonicalHead(sealed.hash);
      filters.onNewHeads({
        added: [{ ...parentRef, hash: sealed.hash, number: sealed.block.header.number }],
      });
      return { hash: sealed.hash, header: sealed.block.header, results: sealed.receipts };
    },
  };
  return fixture;
}

/** The fixture chain with two blocks of varied transactions and one pending pool tx. */
export async function createDeployed(options: Partial<EthBackend["options"]> = {}): Promise<Deployed> {
  const f = await createFixture(options);
  const deposit: DepositTx = {
    sourceHash: keccak256(new TextEncoder().encode("deposit-1")),
    from: D.address,
    to: B.address,
    mint: 5n * ETHER,
    value: ETHER,
    gas: 100_000n,
    isSystemTx: false,
    data: new Uint8Array(),
  };
  const block1 = await f.mine([
    deposit,
    f.sign(A, 0n, { to: B.address, value: ETHER, gas: 21_000n }),
    f.sign(A, 1n, { data: deployCode(LOGGER_RUNTIME) }),
    f.sign(A, 2n, { data: deployCode(revertRuntime(errorData("nope"))) }),
    f.sign(A, 3n, { data: deployCode(revertRuntime(panicData(0x11))) }),
  ]);
  const logger = block1.results[2].contractAddress!;
  const reverter = block1.results[3].contractAddress!;
  const panicker = block1.results[4].contractAddress!;
  const word = new Uint8Array(32).fill(7);
  const block2 = await f.mine([
    f.sign(A, 4n, { to: logger, data: word }),
    f.sign(A, 5n, { to: reverter, gas: 100_000n }),
    f.signLegacy(B, 0n, { to: C.address, value: 123n }),
  ]);
  const pendingHash = await f.pool.add(f.sign(C, 0n, { to: A.address, value: 1n, gas: 21_000n }).serialize());
  return { fixture: f, logger, reverter, panicker, block1, block2, deposit, pendingHash };
}

export { bytesToHex };
