/**
 * A real in-memory OP chain for the debug and trace tests: the dev genesis (Isthmus) with three
 * hand-assembled contracts, blocks built by the ExecutionEngine with the dev miner's L1-info
 * deposit first, and a JSON-RPC dispatcher over the namespaces (so results are checked as wire JSON).
 */
import { createFeeMarket1559Tx, type TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex, concatBytes, hexToBytes } from "../../../../../lib/common/mod.ts";
import { type DepositTx, encodeDepositTx } from "../../../../../lib/protocol/mod.ts";
import {
  DEFAULT_ENVELOPE_LIMITS,
  handleRpcValue,
  MethodRegistry,
  type Namespace,
  NOOP_LOGGER,
} from "../../../../../lib/rpc/mod.ts";
import { buildDevGenesis, deriveDevAccounts } from "../../../../../lib/execution/genesis/mod.ts";
import { type BuiltBlock, DevMiner, ExecutionEngine } from "../../../../../lib/execution/engine/mod.ts";
import { forkRules } from "../../../../../lib/execution/evm/mod.ts";
import type { TraceBackend } from "../../../../../lib/execution/rpc/debug/mod.ts";

export const ACCOUNTS = deriveDevAccounts(3);
export const GWEI = 1_000_000_000n;

const addr = (byte: number) => new Uint8Array(20).fill(byte);
/** B: sstore(0, 42); log1(0, 0, topic 1); return mstore(0, 7). */
export const B = addr(0xbb);
export const B_CODE = hexToBytes("0x602a600055600160006000a1600760005260206000f3");
/** R: revert(Error("nope")), the revert data copied from its own code. */
export const R = addr(0xcc);
export const REVERT_DATA = hexToBytes(
  "0x08c379a0" + "20".padStart(64, "0") + "04".padStart(64, "0") + "6e6f7065".padEnd(64, "0"),
);
export const R_CODE = concatBytes(hexToBytes("0x6064600c60003960646000fd"), REVERT_DATA);
/** A: call(B); ok = call(R); sstore(1, ok + 5). Slot 1 starts at 9. */
export const A = addr(0xaa);
const callTo = (to: Uint8Array) =>
  concatBytes(hexToBytes("0x60006000600060006000"), new Uint8Array([0x73]), to, hexToBytes("0x5af1"));
export const A_CODE = concatBytes(callTo(B), hexToBytes("0x50"), callTo(R), hexToBytes("0x60050160015500"));
/** L: an endless loop (JUMPDEST PUSH1 0 JUMP) that burns all its gas. */
export const L = addr(0xdd);
export const L_CODE = hexToBytes("0x5b600056");

/** S: selfdestruct(BEN); holds 5 wei. */
export const S = addr(0xee);
export const BEN = addr(0xbe);
export const S_CODE = concatBytes(new Uint8Array([0x73]), BEN, new Uint8Array([0xff]));

/** V: call(B) with 1000 wei while holding none (refused: insufficient balance); pop; stop. */
export const V = addr(0xf1);
export const V_CODE = concatBytes(
  hexToBytes("0x60006000600060006103e873"),
  B,
  hexToBytes("0x5af15000"),
);
/** D: call(self) with all its gas, until the call depth limit refuses the call. */
export const D = addr(0xd1);
export const D_CODE = hexToBytes("0x60006000600060006000305af15000");

const slot = (n: number) => "0x" + n.toString(16).padStart(64, "0");

export interface Chain {
  engine: ExecutionEngine;
  backend: TraceBackend;
  miner: DevMiner;
  nonce: bigint;
  close(): Promise<void>;
}

export async function openChain(): Promise<Chain> {
  const genesis = buildDevGenesis({
    upTo: "isthmus",
    timestamp: 1_000n,
    extraAlloc: {
      [bytesToHex(A)]: { balance: "0x0", code: bytesToHex(A_CODE), storage: { [slot(1)]: slot(9) } },
      [bytesToHex(B)]: { balance: "0x0", code: bytesToHex(B_CODE) },
      [bytesToHex(R)]: { balance: "0x0", code: bytesToHex(R_CODE) },
      [bytesToHex(L)]: { balance: "0x0", code: bytesToHex(L_CODE) },
      [bytesToHex(S)]: { balance: "0x5", code: bytesToHex(S_CODE) },
      [bytesToHex(V)]: { balance: "0x0", code: bytesToHex(V_CODE) },
      [bytesToHex(D)]: { balance: "0x0", code: bytesToHex(D_CODE) },
    },
  });
  return chainOf(await ExecutionEngine.open({ genesis }));
}

/** The test chain over `engine`: its dev miner (clock from 1,000 s, 2 s a block) and trace backend. */
export function chainOf(engine: ExecutionEngine): Chain {
  let t = 1_000;
  const miner = new DevMiner({}, { engine, now: () => (t += 2), subscribe: () => () => {} });
  const backend: TraceBackend = {
    config: engine.config,
    chain: engine.chain,
    stateAt: (h) => engine.stateAt(h),
    options: { evmTimeoutMs: 5_000, gasCap: 50_000_000n },
  };
  return { engine, backend, miner, nonce: 0n, close: () => engine.close() };
}

/** A signed EIP-1559 transaction from account 0. */
export function userTx(
  chain: Chain,
  to: Uint8Array | null,
  opts: { value?: bigint; gas?: bigint; data?: Uint8Array } = {},
): TypedTransaction {
  const config = chain.engine.config;
  const common = forkRules(config, chain.engine.head().header.timestamp + 2n).common;
  return createFeeMarket1559Tx({
    chainId: config.chainId,
    nonce: chain.nonce++,
    to: to ?? undefined,
    value: opts.value ?? 0n,
    gasLimit: opts.gas ?? 21_000n,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
    data: opts.data,
  }, { common }).sign(ACCOUNTS[0].privateKey);
}

export function deposit(overrides: Partial<DepositTx>): Uint8Array {
  return encodeDepositTx({
    sourceHash: new Uint8Array(32).fill(5),
    from: addr(0xd0),
    to: ACCOUNTS[1].address,
    mint: 10n ** 18n,
    value: 10n ** 17n,
    gas: 100_000n,
    isSystemTx: false,
    data: new Uint8Array(),
    ...overrides,
  });
}

/** Builds a block (L1-info deposit first, then `txs`) on the head and makes it canonical. */
export async function mine(chain: Chain, txs: (Uint8Array | TypedTransaction)[]): Promise<BuiltBlock> {
  const head = chain.engine.head();
  const attrs = await chain.miner.attributes(head.header);
  attrs.transactions = [
    ...attrs.transactions!,
    ...txs.map((t) => (t instanceof Uint8Array ? t : t.serialize())),
  ];
  attrs.noTxPool = true;
  const built = await chain.engine.buildBlock(head.hash, attrs);
  if (built.block.transactions.length !== attrs.transactions.length) {
    throw new Error("a transaction was dropped");
  }
  await chain.engine.forkchoiceUpdate(built.hash, built.hash, built.hash);
  return built;
}

let id = 0;
/** One JSON-RPC call through the real dispatcher; returns result or throws the error object. */
export async function rpc(namespaces: Namespace[], method: string, params: unknown[]): Promise<unknown> {
  const text = await handleRpcValue({ jsonrpc: "2.0", id: ++id, method, params }, {
    registry: new MethodRegistry(namespaces),
    limits: DEFAULT_ENVELOPE_LIMITS,
    logger: NOOP_LOGGER,
  });
  const msg = JSON.parse(text!);
  if (msg.error !== undefined) throw new RpcFailure(msg.error.code, msg.error.message, msg.error.data);
  return msg.result;
}

export class RpcFailure extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}
