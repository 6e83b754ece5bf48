/**
 * The Otterscan API (namespace ots, and erigon_getHeaderByNumber, which Otterscan asks too), as
 * Otterscan's own node (Erigon's rpcdaemon) serves it (otterscan docs/custom-jsonrpc.md) and anvil
 * serves it in dev mode: a local block explorer pointed at keel works. Without Erigon's indexes the
 * answers are computed on the fly: address searches replay each block they look at, the sender-and-
 * nonce and contract-creator lookups bisect the account's history (a nonce only grows; code, once
 * deployed, stays) and replay one block.
 */
import { Address } from "@ethereumjs/util";
import { bytesToHex, equalBytes, type Hex, toQuantity } from "../../../common/mod.ts";
import { type BlockSpec, defineMethod, type Namespace, RpcError, s } from "../../../rpc/mod.ts";
import type { Block } from "../../../protocol/block.ts";
import { type EthBackend, LATEST, resolveHeader } from "../backend.ts";
import type { CallFrame } from "../debug/mod.ts";
import { formatBlock, formatReceipt } from "../format.ts";
import { blockFrames, TouchedCache, txFrames, walkFrames } from "./frames.ts";
import { firstBlockOf, minedBySenderAndNonce } from "../account_history.ts";

/** The level Otterscan checks for (its params.ts asks at least 8; anvil answers 8). */
const API_LEVEL = 8;

/** ots_getInternalOperations' kinds. */
const TRANSFER = 0;
const SELF_DESTRUCT = 1;
const CREATE = 2;
const CREATE2 = 3;

interface Located {
  block: Block;
  hash: Uint8Array;
  index: number;
}

function locate(backend: EthBackend, txHash: Uint8Array): Located | undefined {
  const loc = backend.chain.getTransactionLocation(txHash);
  const block = loc === undefined ? undefined : backend.chain.getBlockByHash(loc.blockHash);
  return loc === undefined || block === undefined
    ? undefined
    : { block, hash: loc.blockHash, index: loc.index };
}

function headNumber(backend: EthBackend): bigint {
  return resolveHeader(backend, LATEST)!.header.number;
}

/** A receipt as Otterscan takes it: logs and bloom left out (null), the block's timestamp added. */
function otsReceipt(backend: EthBackend, blockHash: Uint8Array, index: number): Record<string, unknown> {
  const header = backend.chain.getHeaderByHash(blockHash)!;
  const receipt = backend.chain.getReceipts(blockHash)![index];
  return {
    ...formatReceipt(receipt, { hash: blockHash, header }, index),
    logs: null,
    logsBloom: null,
    timestamp: toQuantity(header.timestamp),
  };
}

function formatted(backend: EthBackend, hash: Uint8Array, full: boolean): Record<string, unknown> {
  const chain = backend.chain;
  return formatBlock(chain.getBlockByHash(hash)!, hash, full, {
    totalDifficulty: chain.getTotalDifficulty(hash),
    receipts: chain.getReceipts(hash),
    chainId: backend.config.chainId,
  });
}

/** ots_getBlockDetails: the block without its transactions, their count, the fees paid, no issuance (proof of stake). */
function blockDetails(backend: EthBackend, hash: Uint8Array): Record<string, unknown> {
  const { transactions, logsBloom: _, ...block } = formatted(backend, hash, false);
  let fees = 0n;
  for (const r of backend.chain.getReceipts(hash) ?? []) fees += r.gasUsed * r.effectiveGasPrice;
  return {
    block: { ...block, logsBloom: null, transactionCount: (transactions as unknown[]).length },
    issuance: { blockReward: "0x0", uncleReward: "0x0", issuance: "0x0" },
    totalFees: toQuantity(fees),
  };
}

/** Erigon's trace entry types by frame type. */
function traceEntry(f: CallFrame, depth: number) {
  const value = f.type === "STATICCALL" || f.type === "DELEGATECALL" ? null : toQuantity(f.value);
  return {
    type: f.type,
    depth,
    from: bytesToHex(f.from),
    to: bytesToHex(f.created ?? f.to ?? new Uint8Array(20)),
    value,
    input: bytesToHex(f.input),
    output: f.type === "SELFDESTRUCT" ? "0x" : bytesToHex(f.output),
  };
}

/** The internal operations of a frame tree: value transfers, creations and self-destructs below the top frame. */
function internalOperations(root: CallFrame) {
  const out: { type: number; from: Hex; to: Hex; value: Hex }[] = [];
  for (const [f, depth] of walkFrames(root)) {
    if (depth === 0) continue; // the transaction itself is no internal operation
    const to = f.created ?? f.to ?? new Uint8Array(20);
    const op = (type: number) =>
      out.push({ type, from: bytesToHex(f.from), to: bytesToHex(to), value: toQuantity(f.value) });
    if (f.type === "SELFDESTRUCT") op(SELF_DESTRUCT);
    else if (f.type === "CREATE" && f.error === undefined) op(CREATE);
    else if (f.type === "CREATE2" && f.error === undefined) op(CREATE2);
    else if ((f.type === "CALL" || f.type === "CALLCODE") && f.value > 0n && f.error === undefined) {
      op(TRANSFER);
    }
  }
  return out;
}

/**
 * The transactions of blocks `numbers` (visited in that order) that touch `address`, each block's
 * newest first, until at least `pageSize` are found (the last block's all kept, as Erigon's); whether
 * the search ran out of blocks.
 */
async function search(
  backend: EthBackend,
  touched: TouchedCache,
  address: Uint8Array,
  numbers: Iterable<bigint>,
  pageSize: number,
): Promise<{ found: { hash: Uint8Array; index: number }[]; exhausted: boolean }> {
  const found: { hash: Uint8Array; index: number }[] = [];
  const wanted = bytesToHex(address);
  for (const n of numbers) {
    if (found.length >= pageSize) return { found, exhausted: false };
    const hash = backend.chain.getCanonicalHash(n);
    const block = hash === undefined ? undefined : backend.chain.getBlockByHash(hash);
    if (hash === undefined || block === undefined || block.transactions.length === 0) continue;
    const sets = await touched.of(backend, block, hash);
    for (let i = sets.length - 1; i >= 0; i--) if (sets[i].has(wanted)) found.push({ hash, index: i });
  }
  return { found, exhausted: true };
}

function searchResult(
  backend: EthBackend,
  found: { hash: Uint8Array; index: number }[],
  firstPage: boolean,
  lastPage: boolean,
) {
  return {
    txs: found.map(({ hash, index }) => {
      const block = formatted(backend, hash, true);
      return (block.transactions as unknown[])[index];
    }),
    receipts: found.map(({ hash, index }) => otsReceipt(backend, hash, index)),
    firstPage,
    lastPage,
  };
}

function* descending(from: bigint, to: bigint) {
  for (let n = from; n >= to; n--) yield n;
}

function* ascending(from: bigint, to: bigint) {
  for (let n = from; n <= to; n++) yield n;
}

/** Otterscan sends block numbers and page sizes as JSON numbers (as Erigon and anvil take them); hex and tags work too. */
const blockParam = s.custom<BlockSpec>(
  "block number or tag",
  (v) =>
    typeof v === "number" ? { kind: "number", number: s.hexOrDecimal().parse(v) } : s.blockTag().parse(v),
);
const count = s.hexOrDecimal();
const pageSizeParam = count;

export function otsNamespace(backend: EthBackend): Namespace {
  const touched = new TouchedCache();
  const byNumberOrFail = (n: bigint) => {
    const hash = backend.chain.getCanonicalHash(n);
    if (hash === undefined) throw RpcError.server(`block ${n} not found`);
    return hash;
  };
  /** A method on one mined transaction: `answer` may replay it for its frame tree. */
  const ofTransaction = (
    name: string,
    answer: (frames: () => Promise<CallFrame | undefined>, at: Located) => Promise<unknown>,
  ) =>
    defineMethod({
      name,
      params: [s.hash()],
      handler: ([hash]) => {
        const at = locate(backend, hash);
        if (at === undefined) throw RpcError.server("transaction not found");
        return answer(() => txFrames(backend, at.block, at.index), at);
      },
    });
  const defs = [
    defineMethod({ name: "ots_getApiLevel", params: [], handler: () => API_LEVEL }),
    defineMethod({
      name: "erigon_getHeaderByNumber",
      params: [blockParam],
      handler: ([tag]) => {
        const r = resolveHeader(backend, tag);
        return r === undefined ? null : formatted(backend, r.hash, false);
      },
    }),
    defineMethod({
      name: "ots_hasCode",
      params: [s.address(), blockParam],
      handler: async ([address, tag]) => {
        const r = resolveHeader(backend, tag);
        if (r === undefined) throw RpcError.server("header not found");
        const sm = await backend.stateAt(r.header);
        return (await sm.getCode(new Address(address))).length > 0;
      },
    }),
    ofTransaction("ots_getInternalOperations", async (frames) => {
      const root = await frames();
      return root === undefined ? [] : internalOperations(root);
    }),
    ofTransaction("ots_traceTransaction", async (frames) => {
      const root = await frames();
      return root === undefined ? [] : [...walkFrames(root)].map(([f, depth]) => traceEntry(f, depth));
    }),
    ofTransaction("ots_getTransactionError", async (frames, at) => {
      if (backend.chain.getReceipts(at.hash)![at.index].status === 1) return "0x";
      return bytesToHex((await frames())?.output ?? new Uint8Array());
    }),
    defineMethod({
      name: "ots_getBlockDetails",
      params: [blockParam],
      handler: ([tag]) => {
        const r = resolveHeader(backend, tag);
        if (r === undefined) throw RpcError.server("block not found");
        return blockDetails(backend, r.hash);
      },
    }),
    defineMethod({
      name: "ots_getBlockDetailsByHash",
      params: [s.hash()],
      handler: ([hash]) => {
        if (backend.chain.getHeaderByHash(hash) === undefined) throw RpcError.server("block not found");
        return blockDetails(backend, hash);
      },
    }),
    defineMethod({
      name: "ots_getBlockTransactions",
      params: [count, count, pageSizeParam],
      handler: ([number, page, pageSize]) => {
        const hash = byNumberOrFail(number);
        const block = formatted(backend, hash, true);
        const all = block.transactions as Record<string, unknown>[];
        const start = Number(page * pageSize);
        const slice = all.slice(start, start + Number(pageSize));
        return {
          fullblock: {
            ...block,
            // Only the method selector of each input (Otterscan's list shows no more).
            transactions: slice.map((tx) => ({ ...tx, input: (tx.input as string).slice(0, 10) })),
            transactionCount: all.length,
          },
          receipts: slice.map((_, i) => otsReceipt(backend, hash, start + i)),
        };
      },
    }),
    defineMethod({
      name: "ots_searchTransactionsBefore",
      params: [s.address(), count, pageSizeParam],
      handler: async ([address, blockNumber, pageSize]) => {
        const head = headNumber(backend);
        const from = blockNumber === 0n || blockNumber > head ? head : blockNumber - 1n;
        const { found, exhausted } = await search(
          backend,
          touched,
          address,
          descending(from, 1n),
          Number(pageSize),
        );
        return searchResult(backend, found, blockNumber === 0n, exhausted);
      },
    }),
    defineMethod({
      name: "ots_searchTransactionsAfter",
      params: [s.address(), count, pageSizeParam],
      handler: async ([address, blockNumber, pageSize]) => {
        const head = headNumber(backend);
        const { found, exhausted } = await search(
          backend,
          touched,
          address,
          ascending(blockNumber + 1n, head),
          Number(pageSize),
        );
        // Found oldest first; answered newest first, as every search page.
        const ordered = [...found].sort((a, b) => {
          const na = backend.chain.getHeaderByHash(a.hash)!.number;
          const nb = backend.chain.getHeaderByHash(b.hash)!.number;
          return na === nb ? b.index - a.index : nb > na ? 1 : -1;
        });
        return searchResult(backend, ordered, exhausted, blockNumber === 0n);
      },
    }),
    defineMethod({
      name: "ots_getTransactionBySenderAndNonce",
      params: [s.address(), count],
      handler: async ([sender, nonce]) => {
        const found = await minedBySenderAndNonce(backend, sender, nonce);
        return found === undefined ? null : bytesToHex(found.txHash);
      },
    }),
    defineMethod({
      name: "ots_getContractCreator",
      params: [s.address()],
      handler: async ([address]) => {
        // A contract is created with nonce 1 (EIP-161), also one without code. Code in the genesis
        // state, or set without a transaction (anvil_setCode): no creator.
        const found = await firstBlockOf(backend, address, (a) => a.hasCode || a.nonce > 0n);
        if (found === undefined) return null;
        const { hash, block } = found;
        const frames = await blockFrames(backend, block);
        for (let i = frames.length - 1; i >= 0; i--) {
          const root = frames[i];
          if (root === undefined) continue;
          for (const [f] of walkFrames(root)) {
            const made = f.created ?? (f.type === "CREATE" || f.type === "CREATE2" ? f.to : undefined);
            if (made !== undefined && f.error === undefined && equalBytes(made, address)) {
              return {
                hash: bytesToHex(backend.chain.getReceipts(hash)![i].txHash),
                creator: bytesToHex(f.from),
              };
            }
          }
        }
        return null;
      },
    }),
  ];
  return Object.fromEntries(defs.map((d) => [d.name, d]));
}
