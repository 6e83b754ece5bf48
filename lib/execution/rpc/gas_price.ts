/**
 * The gas price oracle of op-geth (eth/gasprice/optimism-gasprice.go SuggestOptimismPriorityFee):
 * the minimum suggested tip, unless the latest block was at capacity (gasUsed + the largest
 * tx's gasUsed > gasLimit), then 10% over the median effective tip of that block; capped at
 * the max price. And eth_feeHistory (geth eth/gasprice/feehistory.go) and the blob base fee of a
 * header (geth consensus/misc/eip4844 CalcBlobFee, MaxBlobGasPerBlock).
 */
import { Hardfork } from "@ethereumjs/common";
import type { ChainConfig, Header } from "../../protocol/mod.ts";
import { RpcError } from "../../rpc/mod.ts";
import { expectedBlobFields, forkRules, nextBlockBaseFee } from "../evm/mod.ts";
import { type EthBackend, pricingBaseFee, type ResolvedHeader } from "./backend.ts";
import { decodeTx, isDepositTx, q } from "./format.ts";

/** The last suggestion per backend, by head hash (op-geth caches lastHead / lastPrice). */
const cache = new WeakMap<EthBackend, { hash: Uint8Array; tip: bigint }>();

function effectiveTip(backend: EthBackend, raw: Uint8Array, baseFee: bigint): bigint {
  const tx = decodeTx(raw, backend.config.chainId);
  if (isDepositTx(tx)) return 0n;
  const t = tx as unknown as { maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint; gasPrice?: bigint };
  const fee = t.maxFeePerGas ?? t.gasPrice ?? 0n;
  const tip = t.maxPriorityFeePerGas ?? t.gasPrice ?? 0n;
  const room = fee - baseFee;
  return room < tip ? room : tip;
}

/** eth_maxPriorityFeePerGas: the suggested tip at the latest block. */
export function suggestTip(backend: EthBackend): bigint {
  const head = backend.chain.getHead("latest");
  const header = backend.chain.getHeadHeader("latest");
  if (head === undefined || header === undefined) return backend.options.minSuggestedPriorityFee;
  const cached = cache.get(backend);
  if (cached !== undefined && cached.hash === head.hash) return cached.tip;
  let tip = backend.options.minSuggestedPriorityFee;
  const receipts = backend.chain.getReceipts(head.hash) ?? [];
  let maxGas = 0n;
  for (const r of receipts) if (r.gasUsed > maxGas) maxGas = r.gasUsed;
  if (maxGas <= header.gasLimit && header.gasUsed + maxGas > header.gasLimit) {
    const block = backend.chain.getBlockByHash(head.hash);
    const baseFee = header.baseFeePerGas ?? 0n;
    if (block !== undefined && block.transactions.length > 0) {
      const tips = block.transactions.map((raw) => effectiveTip(backend, raw, baseFee));
      tips.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const median = tips[Math.floor(tips.length / 2)];
      const suggestion = median + median / 10n;
      if (suggestion > tip) tip = suggestion;
    }
  }
  if (tip > backend.options.maxPrice) tip = backend.options.maxPrice;
  cache.set(backend, { hash: head.hash, tip });
  return tip;
}

/** eth_gasPrice: latest base fee + suggested tip (geth SuggestGasTipCap + BaseFee). */
export function gasPrice(backend: EthBackend): bigint {
  const header = backend.chain.getHeadHeader("latest");
  return suggestTip(backend) + pricingBaseFee(backend, header?.baseFeePerGas ?? 0n);
}

/** EIP-4844 fake_exponential: factor * e^(numerator / denominator), integer Taylor series. */
function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let output = 0n;
  let acc = factor * denominator;
  for (let i = 1n; acc > 0n; i++) {
    output += acc;
    acc = acc * numerator / (denominator * i);
  }
  return output / denominator;
}

/** The blob parameters of the fork at `timestamp`, or undefined before Cancun (or on an OP chain). */
function blobSchedule(config: ChainConfig, timestamp: bigint) {
  if (config.op !== undefined) return undefined;
  const common = forkRules(config, timestamp).common;
  if (!common.gteHardfork(Hardfork.Cancun)) return undefined;
  return { ...common.getBlobGasSchedule(), minBlobGas: common.param("minBlobGas") };
}

/**
 * The blob base fee of a block with `excessBlobGas` at `timestamp` (geth eip4844.CalcBlobFee): the
 * fork's update fraction; on an OP chain always the minimum, 1 wei (op-geth: OP blocks carry
 * excessBlobGas 0 and no blob schedule).
 */
export function blobBaseFee(config: ChainConfig, excessBlobGas: bigint, timestamp: bigint): bigint {
  const schedule = blobSchedule(config, timestamp);
  if (schedule === undefined) return 1n;
  return fakeExponential(schedule.minBlobGas, excessBlobGas, schedule.blobGasPriceUpdateFraction);
}

/** The most blob gas a block at `timestamp` may use (geth eip4844.MaxBlobGasPerBlock; 0 on OP chains). */
export function maxBlobGasPerBlock(config: ChainConfig, timestamp: bigint): bigint {
  return blobSchedule(config, timestamp)?.maxBlobGasPerBlock ?? 0n;
}

/** eth_blobBaseFee: the blob base fee of the latest header, or undefined before Cancun (geth: null). */
export function latestBlobBaseFee(backend: EthBackend): bigint | undefined {
  const header = backend.chain.getHeadHeader("latest");
  if (header?.excessBlobGas === undefined) return undefined;
  return blobBaseFee(backend.config, header.excessBlobGas, header.timestamp);
}

/**
 * A header's blob fields for eth_feeHistory (geth processBlock): its blob base fee, the next
 * block's (the excess after this block, at this block's time) and blobGasUsed over the fork's
 * maximum; zeros for a header without blob fields.
 */
function blobFees(config: ChainConfig, header: Header): { fee: bigint; next: bigint; ratio: number } {
  if (header.excessBlobGas === undefined) return { fee: 0n, next: 0n, ratio: 0 };
  const fee = blobBaseFee(config, header.excessBlobGas, header.timestamp);
  const nextExcess = expectedBlobFields(config, header, header.timestamp).excessBlobGas;
  const next = blobBaseFee(config, nextExcess, header.timestamp);
  const max = maxBlobGasPerBlock(config, header.timestamp);
  const ratio = header.blobGasUsed === undefined || max === 0n ? 0 : Number(header.blobGasUsed) / Number(max);
  return { fee, next, ratio };
}

/** eth_feeHistory over [newest - count + 1, newest]. */
export function feeHistory(
  backend: EthBackend,
  count: bigint,
  newest: ResolvedHeader,
  percentiles: number[] | undefined,
): Record<string, unknown> {
  if (percentiles !== undefined) {
    for (let i = 0; i < percentiles.length; i++) {
      const p = percentiles[i];
      // geth's words, its floats printed with %f (six decimals).
      const f = (x: number) => x.toFixed(6);
      if (!(p >= 0 && p <= 100)) throw RpcError.server(`invalid reward percentile: ${f(p)}`);
      if (i > 0 && p <= percentiles[i - 1]) {
        throw RpcError.server(
          `invalid reward percentile: #${i - 1}:${f(percentiles[i - 1])} >= #${i}:${f(p)}`,
        );
      }
    }
  }
  const max = BigInt(backend.options.maxFeeHistory);
  if (count > max) count = max;
  const last = newest.header.number;
  if (count > last + 1n) count = last + 1n;
  if (count === 0n) return { oldestBlock: "0x0", gasUsedRatio: null };
  const oldest = last - count + 1n;
  const baseFees: string[] = [];
  const ratios: number[] = [];
  const rewards: string[][] = [];
  const blobFeeList: string[] = [];
  const blobRatios: number[] = [];
  let nextBlobFee = 0n;
  let lastHeader = newest.header;
  for (let n = oldest; n <= last; n++) {
    const hash = n === last ? newest.hash : backend.chain.getCanonicalHash(n);
    const header = n === last ? newest.header : hash && backend.chain.getHeaderByHash(hash);
    if (hash === undefined || !header) throw RpcError.server("header not found");
    lastHeader = header;
    baseFees.push(q(header.baseFeePerGas ?? 0n));
    ratios.push(header.gasLimit === 0n ? 0 : Number(header.gasUsed) / Number(header.gasLimit));
    const blob = blobFees(backend.config, header);
    blobFeeList.push(q(blob.fee));
    blobRatios.push(blob.ratio);
    nextBlobFee = blob.next;
    if (percentiles !== undefined && percentiles.length > 0) {
      rewards.push(blockRewards(backend, hash, header.baseFeePerGas ?? 0n, header.gasUsed, percentiles));
    }
  }
  // The base fee of the block after the newest one.
  const next = lastHeader.baseFeePerGas === undefined
    ? 0n
    : nextBlockBaseFee(backend.config, lastHeader, lastHeader.timestamp + 1n);
  baseFees.push(q(next));
  const out: Record<string, unknown> = {
    oldestBlock: q(oldest),
    baseFeePerGas: baseFees,
    gasUsedRatio: ratios,
  };
  // geth leaves `reward` out (omitempty) unless percentiles were asked for.
  if (percentiles !== undefined && percentiles.length > 0) out.reward = rewards;
  // Like baseFeePerGas, one more entry than blocks: the fee of the block after the newest.
  blobFeeList.push(q(nextBlobFee));
  out.baseFeePerBlobGas = blobFeeList;
  out.blobGasUsedRatio = blobRatios;
  return out;
}

function blockRewards(
  backend: EthBackend,
  hash: Uint8Array,
  baseFee: bigint,
  gasUsed: bigint,
  percentiles: number[],
): string[] {
  const block = backend.chain.getBlockByHash(hash);
  const receipts = backend.chain.getReceipts(hash);
  if (block === undefined || receipts === undefined || block.transactions.length === 0) {
    return percentiles.map(() => "0x0");
  }
  const txs = block.transactions.map((raw, i) => ({
    tip: effectiveTip(backend, raw, baseFee),
    gas: receipts[i].gasUsed,
  }));
  txs.sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  const out: string[] = [];
  let idx = 0;
  let sum = txs[0].gas;
  for (const p of percentiles) {
    const threshold = Number(gasUsed) * p / 100;
    while (sum < threshold && idx < txs.length - 1) {
      idx++;
      sum += txs[idx].gas;
    }
    out.push(q(txs[idx].tip));
  }
  return out;
}
