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

/** geth eth/gasprice maxQueryLimit: reward percentiles a query may ask for. */
const MAX_PERCENTILES = 100;

export function ethFeeHistory(ctx: EthContext) {
  return defineMethod({
    name: "eth_feeHistory",
    params: [s.hexOrDecimal(), s.blockTag(), s.optional(percentiles)],
    handler: ([count, newest, rewardPercentiles]) => {
      // geth eth/gasprice FeeHistory: no blocks asked, nothing retrieved and no error (a nil gasUsedRatio).
      if (count === 0n) return { oldestBlock: "0x0", gasUsedRatio: null };
      if (rewardPercentiles !== undefined && rewardPercentiles.length > MAX_PERCENTILES) {
        throw RpcError.server(`invalid reward percentile: over the query limit ${MAX_PERCENTILES}`);
      }
      if (newest?.kind === "number") {
        const head = ctx.backend.chain.headNumber();
        if (newest.number > head) {
          throw RpcError.server(`request beyond head block: requested ${newest.number}, head ${head}`);
        }
      }
      return feeHistory(ctx.backend, count, requireHeader(ctx.backend, newest), rewardPercentiles);
    },
  });
}
