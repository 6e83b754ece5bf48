/** Synthetic blocks and receipts for chain-store tests (not a test file). */
import { bigIntToBytes } from "../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import { logsBloom, type StoredReceipt } from "../../../../lib/execution/chain/mod.ts";
import {
  type Block,
  EMPTY_OMMERS_HASH,
  EMPTY_TRIE_ROOT,
  hashHeader,
  type Header,
} from "../../../../lib/protocol/block.ts";
import type { Log } from "../../../../lib/protocol/receipt.ts";

/** keccak256("Transfer(address,address,uint256)") */
export const TRANSFER_TOPIC = keccak256(new TextEncoder().encode("Transfer(address,address,uint256)"));
export const TOKEN = new Uint8Array(20).fill(0x7e);
export const OTHER_TOKEN = new Uint8Array(20).fill(0x5a);

export function addr(n: number): Uint8Array {
  const a = new Uint8Array(20);
  a[19] = n & 0xff;
  a[18] = (n >> 8) & 0xff;
  return a;
}

export function word(a: Uint8Array): Uint8Array {
  const w = new Uint8Array(32);
  w.set(a, 32 - a.length);
  return w;
}

export function transferLog(token: Uint8Array, from: Uint8Array, to: Uint8Array, amount: bigint): Log {
  return { address: token, topics: [TRANSFER_TOPIC, word(from), word(to)], data: bigIntToBytes(amount, 32) };
}

export interface TxSpec {
  /** Distinguishes transactions; the raw tx is derived from it. */
  salt: string;
  logs?: Log[];
}

/** A block with raw "transactions" (opaque bytes) and matching stored receipts. */
export function makeBlock(
  parent: { hash: Uint8Array; number: bigint } | undefined,
  txs: TxSpec[],
  opts: { stateRoot?: Uint8Array; extra?: number; timestamp?: bigint } = {},
): { block: Block; receipts: StoredReceipt[]; hash: Uint8Array } {
  const number = parent === undefined ? 0n : parent.number + 1n;
  const transactions = txs.map((t) => new TextEncoder().encode(`tx:${t.salt}`));
  let cumulative = 0n;
  let logIndex = 0;
  const receipts: StoredReceipt[] = txs.map((t, i) => {
    const logs = t.logs ?? [];
    cumulative += 21000n;
    const r: StoredReceipt = {
      type: 2,
      status: 1,
      cumulativeGasUsed: cumulative,
      logsBloom: logsBloom(logs),
      logs,
      gasUsed: 21000n,
      contractAddress: null,
      from: addr(1),
      to: addr(2),
      effectiveGasPrice: 1_000_000_000n,
      txHash: keccak256(transactions[i]),
      logIndexStart: logIndex,
      l1GasUsed: 1600n,
      l1GasPrice: 7n,
      l1Fee: 11200n,
      l1BaseFeeScalar: 1368n,
      l1BlobBaseFee: 1n,
      l1BlobBaseFeeScalar: 810949n,
    };
    logIndex += logs.length;
    return r;
  });
  const header: Header = {
    parentHash: parent?.hash ?? new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: new Uint8Array(20).fill(0x42),
    stateRoot: opts.stateRoot ?? EMPTY_TRIE_ROOT,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: logsBloom(receipts.flatMap((r) => r.logs)),
    difficulty: number === 0n ? 1n : 0n,
    number,
    gasLimit: 30_000_000n,
    gasUsed: cumulative,
    timestamp: opts.timestamp ?? 1_700_000_000n + number * 2n,
    extraData: new Uint8Array([opts.extra ?? 0]),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: 1_000_000n,
    withdrawalsRoot: EMPTY_TRIE_ROOT,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: new Uint8Array(32),
  };
  const block: Block = { header, transactions, withdrawals: [] };
  return { block, receipts, hash: hashHeader(header) };
}
