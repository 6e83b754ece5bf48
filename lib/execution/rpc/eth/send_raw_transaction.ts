/** eth_sendRawTransaction: into the pool; geth's messages pass through as -32000. */
import type { Hex } from "../../../common/mod.ts";
import { DEPOSIT_TX_TYPE } from "../../../protocol/mod.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import { createTxFromRLP } from "@ethereumjs/tx";
import { decodingCommon } from "../../txpool/mod.ts";
import type { EthContext } from "../backend.ts";

/** Ether with up to 2 decimals, as geth prints the fee in its txfeecap error (%0.2f). */
function ether(wei: bigint): string {
  const cents = (wei + 5n * 10n ** 15n) / 10n ** 16n;
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, "0")}`;
}

export function ethSendRawTransaction(ctx: EthContext) {
  return defineMethod({
    name: "eth_sendRawTransaction",
    params: [s.hex()],
    handler: async ([raw]) => {
      if (raw.length > 0 && raw[0] === DEPOSIT_TX_TYPE) {
        // Deposits come only from L1 via the rollup node (specs/protocol/deposits.md).
        throw RpcError.server("transaction type not supported");
      }
      const cap = ctx.backend.options.txFeeCap;
      if (cap > 0n) {
        let fee: bigint | undefined;
        try {
          const tx = createTxFromRLP(raw, { common: decodingCommon(ctx.backend.config.chainId) });
          const price = "maxFeePerGas" in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice;
          fee = price * tx.gasLimit;
        } catch {
          fee = undefined; // the pool reports the decoding error with geth's message
        }
        if (fee !== undefined && fee > cap) {
          // geth internal/ethapi checkTxFee
          throw RpcError.server(
            `tx fee (${ether(fee)} ether) exceeds the configured cap (${ether(cap)} ether)`,
          );
        }
      }
      const hash = await ctx.backend.pool.add(raw, { local: true });
      return hash.toLowerCase() as Hex;
    },
  });
}
