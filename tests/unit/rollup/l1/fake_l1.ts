/**
 * A fake L1 JSON-RPC endpoint serving consistent blocks: signed transactions of types 0, 1, 2 and 4
 * whose encodings (by @ethereumjs/tx) make the header's transactionsRoot, receipts (with logs) whose
 * encodings (by @ethereumjs/rlp) make its receiptsRoot, and a header that hashes to the block hash. Serves the receipts by every method of
 * op-node's provider kinds (those in `methods`; the others answer "Method not found"), records each call,
 * and lets a test alter an answer before it goes out.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { RLP } from "@ethereumjs/rlp";
import { eoaCode7702SignAuthorization } from "@ethereumjs/util";
import { bytesToHex, toQuantity } from "../../../../lib/common/bytes.ts";
import { hashHeader } from "../../../../lib/protocol/block.ts";
import { orderedTrieRoot } from "../../../../lib/protocol/ordered_trie.ts";
import type { Log } from "../../../../lib/protocol/receipt.ts";
import { headerFromRpc, type RpcHeader } from "../../../../lib/rollup/l1/l1_client.ts";
import { RECEIPTS_METHODS, type RpcReceipt } from "../../../../lib/rollup/l1/l1_receipts.ts";
import type { RpcTransaction } from "../../../../lib/rollup/l1/l1_tx.ts";

const key = new Uint8Array(32).fill(7);
const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const to = new Uint8Array(20).fill(0xff);

/** The transaction as an L1 node's eth_getBlockByHash returns it. */
function rpcOf(tx: TypedTransaction): RpcTransaction {
  const j = tx.toJSON() as Record<string, unknown>;
  const out: Record<string, unknown> = {
    hash: bytesToHex(tx.hash()),
    type: toQuantity(tx.type),
    from: bytesToHex(tx.getSenderAddress().bytes),
    to: j.to ?? null,
    nonce: j.nonce,
    gas: j.gasLimit,
    value: j.value,
    input: j.data,
    r: j.r,
    s: j.s,
    v: j.v,
  };
  for (const k of ["gasPrice", "maxFeePerGas", "maxPriorityFeePerGas", "chainId", "accessList"]) {
    if (j[k] !== undefined) out[k] = j[k];
  }
  if (tx.type !== 0) out.yParity = j.v;
  const auths = j.authorizationList as Record<string, string>[] | undefined;
  if (auths !== undefined) {
    const qty = (v: string) => toQuantity(v === "0x" ? 0n : BigInt(v));
    out.authorizationList = auths.map((a) => ({
      chainId: qty(a.chainId),
      address: a.address,
      nonce: qty(a.nonce),
      yParity: qty(a.yParity),
      r: qty(a.r),
      s: qty(a.s),
    }));
  }
  return out as unknown as RpcTransaction;
}

function signedTx(i: number): TypedTransaction {
  const data = Uint8Array.of(i & 0xff, 1, 2);
  const nonce = BigInt(i);
  switch (i % 4) {
    case 0:
      return createLegacyTx({ nonce, gasPrice: 10n ** 9n, gasLimit: 50_000, to, data }, { common }).sign(key);
    case 1:
      return createAccessList2930Tx({
        chainId: 1n,
        nonce,
        gasPrice: 10n ** 9n,
        gasLimit: 50_000,
        to,
        data,
        accessList: [{ address: bytesToHex(to), storageKeys: [bytesToHex(new Uint8Array(32).fill(1))] }],
      }, { common }).sign(key);
    case 2:
      return createFeeMarket1559Tx({
        chainId: 1n,
        nonce,
        maxFeePerGas: 10n ** 9n,
        maxPriorityFeePerGas: 1n,
        gasLimit: 50_000,
        to,
        data,
      }, { common }).sign(key);
    default:
      return createEOACode7702Tx({
        chainId: 1n,
        nonce,
        maxFeePerGas: 10n ** 9n,
        maxPriorityFeePerGas: 1n,
        gasLimit: 80_000,
        to,
        data,
        authorizationList: [
          eoaCode7702SignAuthorization({ chainId: "0x1", address: bytesToHex(to), nonce: "0x0" }, key),
        ],
      }, { common }).sign(key);
  }
}

/** Signed transactions are costly to make: made once, shared by the blocks (RPC form, serialized). */
const made: [RpcTransaction, Uint8Array][] = [];
function txsOf(count: number): [RpcTransaction, Uint8Array][] {
  while (made.length < count) {
    const tx = signedTx(made.length);
    made.push([rpcOf(tx), tx.serialize()]);
  }
  return made.slice(0, count);
}

/** A receipt's consensus encoding, by @ethereumjs/rlp (independent of keel's encoder). */
function receiptBytes(
  r: { type: number; status: 0 | 1; cumulativeGasUsed: bigint; logsBloom: Uint8Array; logs: Log[] },
) {
  const body = RLP.encode([
    r.status === 1 ? Uint8Array.of(1) : new Uint8Array(),
    r.cumulativeGasUsed,
    r.logsBloom,
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ]);
  return r.type === 0 ? body : Uint8Array.of(r.type, ...body);
}

export interface FakeBlock {
  hash: string;
  header: RpcHeader;
  txs: (RpcTransaction & { blockHash: string; blockNumber: string; transactionIndex: string })[];
  receipts: (RpcReceipt & { blockHash: string; transactionIndex: string; transactionHash: string })[];
  /** The receipts' consensus encodings (debug_getRawReceipts). */
  raw: string[];
}

/** A block of `count` transactions (number `number`), every third receipt with two logs (their data ends with the number). */
export function makeBlock(count: number, number = 5n): FakeBlock {
  const made = txsOf(count);
  const txs = made.map(([t]) => t);
  const receipts: {
    type: number;
    status: 0 | 1;
    cumulativeGasUsed: bigint;
    logsBloom: Uint8Array;
    logs: Log[];
  }[] = [];
  let gas = 0n;
  for (let i = 0; i < count; i++) {
    gas += 21_000n + BigInt(i);
    const logs: Log[] = i % 3 === 0
      ? [0, 1].map((k) => ({
        address: new Uint8Array(20).fill(0x40 + k),
        topics: [new Uint8Array(32).fill(i & 0xff), new Uint8Array(32).fill(k)],
        data: Uint8Array.of(i & 0xff, k, Number(number & 0xffn)),
      }))
      : [];
    // The bloom is taken as served: any 256 bytes do for the root.
    const logsBloom = new Uint8Array(256);
    logsBloom[i % 256] = logs.length;
    receipts.push({
      type: Number(txs[i].type),
      status: i % 7 === 6 ? 0 : 1,
      cumulativeGasUsed: gas,
      logsBloom,
      logs,
    });
  }
  const encodedTxs = made.map(([, raw]) => raw);
  const header: RpcHeader = {
    hash: "",
    parentHash: bytesToHex(new Uint8Array(32).fill(1)),
    sha3Uncles: "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347",
    miner: bytesToHex(new Uint8Array(20)),
    stateRoot: bytesToHex(new Uint8Array(32).fill(2)),
    transactionsRoot: bytesToHex(orderedTrieRoot(encodedTxs)),
    receiptsRoot: bytesToHex(orderedTrieRoot(receipts.map(receiptBytes))),
    logsBloom: bytesToHex(new Uint8Array(256)),
    difficulty: "0x0",
    number: toQuantity(number),
    gasLimit: "0x1c9c380",
    gasUsed: toQuantity(gas),
    timestamp: "0x6000",
    extraData: "0x",
    mixHash: bytesToHex(new Uint8Array(32).fill(3)),
    nonce: "0x0000000000000000",
    baseFeePerGas: "0x7",
    withdrawalsRoot: "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
    blobGasUsed: "0x0",
    excessBlobGas: "0x0",
    parentBeaconBlockRoot: bytesToHex(new Uint8Array(32).fill(4)),
    requestsHash: "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  };
  const hash = bytesToHex(hashHeader(headerFromRpc(header)));
  header.hash = hash;
  return {
    hash,
    header,
    txs: txs.map((t, i) => ({
      ...t,
      blockHash: hash,
      blockNumber: header.number,
      transactionIndex: toQuantity(i),
    })),
    receipts: receipts.map((r, i) => ({
      type: toQuantity(r.type),
      status: toQuantity(r.status),
      cumulativeGasUsed: toQuantity(r.cumulativeGasUsed),
      logsBloom: bytesToHex(r.logsBloom),
      blockHash: hash,
      blockNumber: header.number,
      transactionIndex: toQuantity(i),
      transactionHash: txs[i].hash,
      logs: r.logs.map((l) => ({
        address: bytesToHex(l.address),
        topics: l.topics.map(bytesToHex),
        data: bytesToHex(l.data),
      })),
    })),
    raw: receipts.map((r) => bytesToHex(receiptBytes(r))),
  };
}

export interface Call {
  method: string;
  params: unknown[];
}

export interface FakeL1 {
  url: string;
  calls: Call[];
  /** Alters an answer (a deep copy of the block's data) before it is sent. */
  alter: (method: string, result: unknown) => unknown;
  close(): Promise<void>;
}

/** Serves `blocks` by hash; of the receipt methods only `methods` (all by default). */
export function serveFakeL1(blocks: FakeBlock[], methods: readonly string[] = RECEIPTS_METHODS): FakeL1 {
  const byHash = new Map(blocks.map((b) => [b.hash, b]));
  const calls: Call[] = [];
  const copy = <T>(v: T): T => structuredClone(v);
  const answer = (method: string, params: unknown[]): { result?: unknown; error?: unknown } => {
    calls.push({ method, params });
    if (method !== "eth_getBlockByHash" && !methods.includes(method)) {
      return { error: { code: -32601, message: "Method not found" } };
    }
    const blockOf = (h: unknown) => byHash.get(String(h).toLowerCase());
    switch (method) {
      case "eth_getBlockByHash": {
        const b = blockOf(params[0]);
        if (b === undefined) return { result: null };
        return {
          result: fake.alter(method, {
            ...copy(b.header),
            transactions: params[1] ? copy(b.txs) : b.txs.map((t) => t.hash),
          }),
        };
      }
      case "alchemy_getTransactionReceipts": {
        const b = blockOf((params[0] as { blockHash: string }).blockHash);
        return { result: b === undefined ? null : { receipts: fake.alter(method, copy(b.receipts)) } };
      }
      case "debug_getRawReceipts": {
        const b = blockOf(params[0]);
        return { result: b === undefined ? null : fake.alter(method, copy(b.raw)) };
      }
      case "eth_getTransactionReceipt": {
        for (const b of blocks) {
          const r = b.receipts.find((r) => r.transactionHash === params[0]);
          if (r !== undefined) return { result: fake.alter(method, copy(r)) };
        }
        return { result: null };
      }
      default: {
        const b = blockOf(params[0]);
        return { result: b === undefined ? null : fake.alter(method, copy(b.receipts)) };
      }
    }
  };
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    async (req) => {
      const body = await req.json();
      const one = (c: { id: unknown; method: string; params: unknown[] }) => ({
        jsonrpc: "2.0",
        id: c.id,
        ...answer(c.method, c.params ?? []),
      });
      return Response.json(Array.isArray(body) ? body.map(one) : one(body));
    },
  );
  const fake: FakeL1 = {
    url: `http://127.0.0.1:${server.addr.port}`,
    calls,
    alter: (_m, r) => r,
    close: async () => {
      ac.abort();
      await server.finished;
    },
  };
  return fake;
}
