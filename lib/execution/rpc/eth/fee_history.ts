/** eth_feeHistory: base fees, gas used ratios and tip percentiles of recent blocks. */
import { defineMethod, RpcError, s, SchemaError } from "../../../rpc/mod.ts";
import { type EthContext, requireHeader } from "../backend.ts";
import { feeHistory } from "../gas_price.ts";

const percentiles = s.custom<number[]>("percentiles", (v) => {
  if (!Array.isArray(v) || v.some((p) => typeof p !== "number")) {
    throw new SchemaError("json: cannot unmarshal into Go value of type []float64");
  }
  return v as number[];
});

export function ethFeeHistory(ctx: EthContext) {
  return defineMethod({
    name: "eth_feeHistory",
    params: [s.hexOrDecimal(), s.blockTag(), s.optional(percentiles)],
    handler: ([count, newest, rewardPercentiles]) => {
      if (count === 0n) return { oldestBlock: "0x0", baseFeePerGas: [], gasUsedRatio: [] };
      const head = requireHeader(ctx.backend, newest);
      if (rewardPercentiles !== undefined && rewardPercentiles.length > 100) {
        throw RpcError.invalidParams("too many reward percentiles");
      }
      return feeHistory(ctx.backend, count, head, rewardPercentiles);
    },
  });
}
