/**
 * RLP benchmark: keel's codec (lib/common/rlp.ts, lib/execution/evm/tx_decode.ts) against @ethereumjs.
 *
 *   deno run -A scripts/bench_rlp.ts [--n N] [--ms MS]
 *
 * On N (default 1,000) signed EIP-1559 transfers of an OP chain at Isthmus, decoded with the shared
 * transaction Common block import uses (txCommon):
 * (a) decoding the transactions: createTxFromRLP vs decodeSignedTx, and the RLP decode alone;
 * (b) encoding N receipts (ETH transfers without logs, and ERC-20 transfers with one Transfer log):
 *     encodeReceipt through @ethereumjs/rlp (the previous code, copied below) vs encodeReceipt;
 * (c) orderedTrieRoot of the N transaction encodings: the previous ordered_trie.ts with @ethereumjs/rlp
 *     (copied below) vs orderedTrieRoot.
 * Each case runs for at least MS milliseconds (default 1,500) after a warm-up; prints ops/s and the ratio.
 */
import { RLP } from "@ethereumjs/rlp";
import { createFeeMarket1559Tx, createTxFromRLP } from "@ethereumjs/tx";
import { bigIntToBytes, bytesToHex, equalBytes } from "../lib/common/bytes.ts";
import { keccak256, keccakReady } from "../lib/common/hash.ts";
import { rlpDecode } from "../lib/common/rlp.ts";
import { decodeSignedTx, forkRules, txCommon } from "../lib/execution/evm/mod.ts";
import { orderedTrieRoot } from "../lib/protocol/ordered_trie.ts";
import { EMPTY_TRIE_ROOT } from "../lib/protocol/block.ts";
import type { ChainConfig } from "../lib/protocol/chain_config.ts";
import { encodeReceipt, type Receipt } from "../lib/protocol/receipt.ts";

function arg(name: string, fallback: number): number {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
}
const N = arg("--n", 1000);
const MIN_MS = arg("--ms", 1500);

const CONFIG: ChainConfig = {
  chainId: 901n,
  l1: {},
  op: {
    forks: {
      regolith: 0n,
      canyon: 0n,
      delta: 0n,
      ecotone: 0n,
      fjord: 0n,
      granite: 0n,
      holocene: 0n,
      isthmus: 0n,
    },
    eip1559: { elasticity: 6n, denominator: 50n, denominatorCanyon: 250n },
  },
};
const GWEI = 1_000_000_000n;
await keccakReady; // the WebAssembly keccak256, as in a running node
const plainCommon = forkRules(CONFIG, 0n).common;
const common = txCommon(plainCommon);

// ---------------------------------------------------------------------------------------------
// The previous code paths, on @ethereumjs/rlp (as of commit ae1cd3e), for the "before" figures.

function encodeReceiptBefore(r: Receipt): Uint8Array {
  const fields: (Uint8Array | Uint8Array[] | (Uint8Array | Uint8Array[])[][])[] = [
    r.status === 1 ? new Uint8Array([1]) : new Uint8Array(),
    bigIntToBytes(r.cumulativeGasUsed),
    r.logsBloom,
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ];
  if (r.depositNonce !== undefined) {
    fields.push(bigIntToBytes(r.depositNonce));
    if (r.depositReceiptVersion !== undefined) fields.push(bigIntToBytes(r.depositReceiptVersion));
  }
  const body = RLP.encode(fields);
  if (r.type === 0) return body;
  const out = new Uint8Array(body.length + 1);
  out[0] = r.type;
  out.set(body, 1);
  return out;
}

type Raw = Uint8Array | Raw[];
interface Entry {
  nibbles: Uint8Array;
  value: Uint8Array;
}

function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 15;
  }
  return out;
}

function hexPrefix(nibbles: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const len = to - from;
  const out = new Uint8Array(Math.floor(len / 2) + 1);
  let i = from;
  if (len % 2 === 1) out[0] = ((leaf ? 2 : 0) + 1) << 4 | nibbles[i++];
  else out[0] = (leaf ? 2 : 0) << 4;
  for (let j = 1; i < to; j++, i += 2) out[j] = (nibbles[i] << 4) | nibbles[i + 1];
  return out;
}

function refBefore(node: Raw): Raw {
  const enc = RLP.encode(node);
  return enc.length < 32 ? node : keccak256(enc);
}

function buildBefore(entries: Entry[], lo: number, hi: number, depth: number): Raw {
  if (hi - lo === 1) {
    return [hexPrefix(entries[lo].nibbles, depth, entries[lo].nibbles.length, true), entries[lo].value];
  }
  const first = entries[lo].nibbles;
  const last = entries[hi - 1].nibbles;
  let common = depth;
  while (common < first.length && common < last.length && first[common] === last[common]) common++;
  if (common > depth) {
    return [hexPrefix(first, depth, common, false), refBefore(buildBefore(entries, lo, hi, common))];
  }
  const branch: Raw[] = new Array(17).fill(new Uint8Array());
  let i = lo;
  if (first.length === depth) branch[16] = entries[i++].value;
  while (i < hi) {
    const nib = entries[i].nibbles[depth];
    let j = i + 1;
    while (j < hi && entries[j].nibbles[depth] === nib) j++;
    branch[nib] = refBefore(buildBefore(entries, i, j, depth + 1));
    i = j;
  }
  return branch;
}

function compareNibbles(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

function orderedTrieRootBefore(values: Uint8Array[]): Uint8Array {
  const byKey = new Map<string, Entry>();
  values.forEach((v, i) => {
    const nibbles = toNibbles(RLP.encode(i === 0 ? new Uint8Array() : bigIntToBytes(BigInt(i))));
    const id = nibbles.join(",");
    if (v.length === 0) byKey.delete(id);
    else byKey.set(id, { nibbles, value: v });
  });
  const entries = [...byKey.values()].sort((a, b) => compareNibbles(a.nibbles, b.nibbles));
  if (entries.length === 0) return EMPTY_TRIE_ROOT;
  return keccak256(RLP.encode(buildBefore(entries, 0, entries.length, 0)));
}

// ---------------------------------------------------------------------------------------------
// Inputs (not timed)

function privateKey(i: number): Uint8Array {
  const k = new Uint8Array(32);
  k[0] = 1;
  k[28] = i >>> 24;
  k[29] = i >>> 16;
  k[30] = i >>> 8;
  k[31] = i;
  return k;
}

const raws: Uint8Array[] = [];
for (let i = 0; i < N; i++) {
  const to = new Uint8Array(20);
  to[0] = 0xbb;
  to[19] = i;
  const tx = createFeeMarket1559Tx({
    chainId: CONFIG.chainId,
    nonce: BigInt(i % 7),
    to,
    value: 1_000_000_000_000_000n + BigInt(i),
    gasLimit: 21_000n,
    maxFeePerGas: 3n * GWEI,
    maxPriorityFeePerGas: GWEI / 2n,
  }, { common: plainCommon }).sign(privateKey(i));
  raws.push(tx.serialize());
}

const bloom = new Uint8Array(256);
const ethReceipts: Receipt[] = [];
const erc20Receipts: Receipt[] = [];
for (let i = 0; i < N; i++) {
  const cumulativeGasUsed = 21_000n * BigInt(i + 1) + 50_000n;
  ethReceipts.push({ type: 2, status: 1, cumulativeGasUsed, logsBloom: bloom, logs: [] });
  const topic = (b: number) => new Uint8Array(32).fill(b);
  erc20Receipts.push({
    type: 2,
    status: 1,
    cumulativeGasUsed: cumulativeGasUsed * 2n,
    logsBloom: new Uint8Array(256).fill(i & 0xff),
    logs: [{
      address: new Uint8Array(20).fill(0xcc),
      topics: [topic(0xdd), topic(1), topic(2)],
      data: topic(3),
    }],
  });
}

// Same results before timing anything.
for (const raw of raws.slice(0, 50)) {
  const a = decodeSignedTx(raw, common);
  const b = createTxFromRLP(raw, { common });
  if (!equalBytes(a.hash(), b.hash())) throw new Error("decodeSignedTx differs from createTxFromRLP");
}
for (const r of [...ethReceipts, ...erc20Receipts]) {
  if (!equalBytes(encodeReceipt(r), encodeReceiptBefore(r))) throw new Error("encodeReceipt differs");
}
const rootBefore = orderedTrieRootBefore(raws);
const rootAfter = orderedTrieRoot(raws);
if (!equalBytes(rootBefore, rootAfter)) throw new Error("orderedTrieRoot differs");

// ---------------------------------------------------------------------------------------------
// Timing

/** Runs of `fn` per second, over at least MIN_MS after a warm-up. */
function runsPerSecond(fn: () => void): number {
  for (let i = 0; i < 5; i++) fn();
  let runs = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < MIN_MS) {
    fn();
    runs++;
    elapsed = performance.now() - start;
  }
  return (runs * 1000) / elapsed;
}

interface Row {
  case: string;
  unit: string;
  before: number;
  after: number;
}
const rows: Row[] = [];

function compare(name: string, unit: string, perRun: number, before: () => void, after: () => void): void {
  const b = runsPerSecond(before) * perRun;
  const a = runsPerSecond(after) * perRun;
  rows.push({ case: name, unit, before: b, after: a });
  console.log(`${name}: ${fmt(b)} -> ${fmt(a)} ${unit} (x${(a / b).toFixed(2)})`);
}

const fmt = (x: number) => Math.round(x).toLocaleString("en-US");

console.log(`${N} EIP-1559 transfers, ${N} receipts; chain 901 at Isthmus; ${MIN_MS} ms per case`);
compare("(a) decode signed txs", "tx/s", N, () => {
  for (const raw of raws) createTxFromRLP(raw, { common });
}, () => {
  for (const raw of raws) decodeSignedTx(raw, common);
});
compare("    RLP decode alone", "tx/s", N, () => {
  for (const raw of raws) RLP.decode(raw.subarray(1));
}, () => {
  for (const raw of raws) rlpDecode(raw.subarray(1));
});
compare("(b) encode receipts, ETH transfers", "receipt/s", N, () => {
  for (const r of ethReceipts) encodeReceiptBefore(r);
}, () => {
  for (const r of ethReceipts) encodeReceipt(r);
});
compare("    encode receipts, ERC-20 (1 log)", "receipt/s", N, () => {
  for (const r of erc20Receipts) encodeReceiptBefore(r);
}, () => {
  for (const r of erc20Receipts) encodeReceipt(r);
});
compare(`(c) orderedTrieRoot of ${N} tx encodings`, "root/s", 1, () => {
  orderedTrieRootBefore(raws);
}, () => {
  orderedTrieRoot(raws);
});

console.log("");
console.log("| case | @ethereumjs | keel | ratio |");
console.log("|---|---:|---:|---:|");
for (const r of rows) {
  console.log(
    `| ${r.case.trim()} | ${fmt(r.before)} ${r.unit} | ${fmt(r.after)} ${r.unit} | ${
      (r.after / r.before).toFixed(2)
    }x |`,
  );
}
const ms = (perSec: number, n: number) => ((n / perSec) * 1000).toFixed(2);
const [dec, , rec, , root] = rows;
console.log("");
console.log(
  `per block of ${N}: decode ${ms(dec.before, N)} -> ${ms(dec.after, N)} ms; ` +
    `receipts ${ms(rec.before, N)} -> ${ms(rec.after, N)} ms; ` +
    `trie root ${ms(root.before, 1)} -> ${ms(root.after, 1)} ms (root ${
      bytesToHex(rootAfter).slice(0, 18)
    }…)`,
);
