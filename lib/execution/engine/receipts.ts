/** Receipts as the chain stores them, and the block value engine_getPayload reports. */
import type { StoredReceipt } from "../chain/mod.ts";
import type { TxResult } from "../evm/mod.ts";

/**
 * Receipts in the chain's stored form, from the runner's results. `blobGasPrice` is the block's blob
 * base fee, stored on the receipts of blob transactions (EIP-4844; plain chains only).
 */
export function toStoredReceipts(results: TxResult[], blobGasPrice?: bigint): StoredReceipt[] {
  let logIndex = 0;
  return results.map((r) => {
    const out: StoredReceipt = {
      ...r.receipt,
      gasUsed: r.gasUsed,
      contractAddress: r.contractAddress ?? null,
      from: r.from,
      to: r.to,
      effectiveGasPrice: r.effectiveGasPrice,
      txHash: r.txHash,
      logIndexStart: logIndex,
    };
    logIndex += r.receipt.logs.length;
    const f = r.l1Fee;
    if (f !== undefined) {
      out.l1GasUsed = f.l1GasUsed;
      out.l1GasPrice = f.l1GasPrice;
      out.l1Fee = f.l1Fee;
      if (f.l1FeeScalar !== undefined) out.l1FeeScalar = f.l1FeeScalar;
      if (f.l1BaseFeeScalar !== undefined) out.l1BaseFeeScalar = f.l1BaseFeeScalar;
      if (f.l1BlobBaseFee !== undefined) out.l1BlobBaseFee = f.l1BlobBaseFee;
      if (f.l1BlobBaseFeeScalar !== undefined) out.l1BlobBaseFeeScalar = f.l1BlobBaseFeeScalar;
      if (f.operatorFeeScalar !== undefined) out.operatorFeeScalar = f.operatorFeeScalar;
      if (f.operatorFeeConstant !== undefined) out.operatorFeeConstant = f.operatorFeeConstant;
      // jovian: the block's DA footprint gas scalar and the transaction's DA footprint.
      if (f.daFootprintGasScalar !== undefined) out.daFootprintGasScalar = f.daFootprintGasScalar;
      if (f.blobGasUsed !== undefined) out.blobGasUsed = f.blobGasUsed;
    }
    if (r.blobGasUsed !== undefined && r.blobGasUsed > 0n) {
      out.blobGasUsed = r.blobGasUsed;
      if (blobGasPrice !== undefined) out.blobGasPrice = blobGasPrice;
    }
    return out;
  });
}

/** Sum of priority fees of the user transactions (deposits pay none). */
export function blockValue(results: TxResult[], baseFee: bigint): bigint {
  let v = 0n;
  for (const r of results) {
    if (r.type === 0x7e) continue;
    const tip = r.effectiveGasPrice - baseFee;
    if (tip > 0n) v += tip * r.gasUsed;
  }
  return v;
}
