/**
 * eth_blobBaseFee: the blob base fee of the latest header (geth EthereumAPI.BlobBaseFee), from its
 * excessBlobGas under the header's fork; null before Cancun. On an OP chain it is the minimum, 1 wei.
 */
import { defineMethod } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { q } from "../format.ts";
import { latestBlobBaseFee } from "../gas_price.ts";

export function ethBlobBaseFee(ctx: EthContext) {
  return defineMethod({
    name: "eth_blobBaseFee",
    params: [],
    handler: () => {
      const fee = latestBlobBaseFee(ctx.backend);
      return fee === undefined ? null : q(fee);
    },
  });
}
