/**
 * A dev node for the dev-method tests: a real ExecutionEngine on a sqlite file (recording preimages, as
 * `keel execution --dev` does) and its DevMiner, with the eth and dev namespaces behind the RPC core.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import {
  DevClock,
  DevMiner,
  ExecutionEngine,
  type ExecutionEngineOptions,
} from "../../../../../lib/execution/engine/mod.ts";
import { forkRules } from "../../../../../lib/execution/evm/mod.ts";
import { buildDevGenesis, deriveDevAccounts } from "../../../../../lib/execution/genesis/mod.ts";
import {
  DEFAULT_ETH_RPC_OPTIONS,
  devNamespace,
  devTransactionSigner,
  erc20SlotFinder,
  type EthBackend,
  ethNamespace,
  minedBlockDetail,
} from "../../../../../lib/execution/rpc/mod.ts";
import { debugNamespace } from "../../../../../lib/execution/rpc/debug/mod.ts";
import {
  DEFAULT_ENVELOPE_LIMITS,
  handleRpcValue,
  MethodRegistry,
  NOOP_LOGGER,
} from "../../../../../lib/rpc/mod.ts";

export const [DEV] = deriveDevAccounts(1);
export const OTHER = "0x00000000000000000000000000000000000000aa";
export const GWEI = 1_000_000_000n;

export interface Node {
  engine: ExecutionEngine;
  miner: DevMiner;
  clock: DevClock;
  /** The result, or throws `code message`. */
  call<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** The raw response. */
  rpc(
    method: string,
    params?: unknown[],
  ): Promise<{ result?: unknown; error?: { code: number; message: string } }>;
  /** The error of a failing call. */
  error(method: string, params?: unknown[]): Promise<{ code: number; message: string }>;
  close(): Promise<void>;
}

/**
 * Opens a dev node on `dataDir`; `preimages` false opens it as a chain that does not record them;
 * `engineOptions` are added to the engine's.
 */
export async function open(
  dataDir: string,
  wall = () => 1_000_000,
  preimages = true,
  engineOptions: Partial<ExecutionEngineOptions> = {},
): Promise<Node> {
  const clock = new DevClock(wall);
  const engine = await ExecutionEngine.open({
    dataDir,
    genesis: buildDevGenesis({}),
    preimages,
    ...engineOptions,
  }, {
    now: () => clock.now(),
  });
  const miner = new DevMiner({}, { engine, clock });
  miner.start();
  const backend: EthBackend = {
    config: engine.config,
    chain: engine.chain,
    pool: engine.pool,
    stateAt: (h) => engine.stateAt(h),
    stateRootOf: (h) => engine.irregular.rootOf(h),
    devAccounts: deriveDevAccounts(2),
    impersonation: engine.impersonation,
    clientVersion: "keel/test",
    options: DEFAULT_ETH_RPC_OPTIONS,
    pendingBaseFee: () => engine.pendingRules().nextBaseFee,
    txConditionals: engine.conditionals,
  };
  const registry = new MethodRegistry([
    ethNamespace(backend),
    debugNamespace({ ...backend, badBlocks: engine.badBlocks }),
    devNamespace(engine, miner, {
      clientVersion: backend.clientVersion,
      gasPrice: () => 7n,
      signRequest: devTransactionSigner(backend),
      minedBlock: (hash) => minedBlockDetail(backend, hash),
      erc20Slot: erc20SlotFinder(backend),
    }),
  ]);
  const dispatch = { registry, limits: DEFAULT_ENVELOPE_LIMITS, logger: NOOP_LOGGER };
  let id = 0;
  const rpc = async (method: string, params: unknown[] = []) =>
    JSON.parse((await handleRpcValue({ jsonrpc: "2.0", id: ++id, method, params }, dispatch))!);
  return {
    engine,
    miner,
    clock,
    rpc,
    async call<T>(method: string, params: unknown[] = []) {
      const res = await rpc(method, params);
      if (res.error !== undefined) throw new Error(`${method}: ${res.error.code} ${res.error.message}`);
      return res.result as T;
    },
    async error(method: string, params: unknown[] = []) {
      const res = await rpc(method, params);
      if (res.error === undefined) throw new Error(`${method} did not fail: ${JSON.stringify(res.result)}`);
      return res.error;
    },
    async close() {
      await miner.stop();
      await engine.close();
    },
  };
}

export function transfer(node: Node, nonce: bigint, value = 1n): Uint8Array {
  const head = node.engine.head().header;
  const common = forkRules(node.engine.config, head.timestamp + 1n).common;
  return createFeeMarket1559Tx({
    chainId: node.engine.config.chainId,
    nonce,
    to: OTHER,
    value,
    gasLimit: 21_000n,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
  }, { common }).sign(DEV.privateKey).serialize();
}

export async function withNode(fn: (node: Node, dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "keel-dev-methods-" });
  const node = await open(dir);
  try {
    await fn(node, dir);
  } finally {
    await node.close();
    await Deno.remove(dir, { recursive: true });
  }
}
