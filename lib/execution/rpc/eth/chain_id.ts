/** eth_chainId: the chain id for EIP-155 signing. */
import { defineMethod } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { q } from "../format.ts";

export function ethChainId(ctx: EthContext) {
  const id = q(ctx.backend.config.chainId);
  return defineMethod({ name: "eth_chainId", params: [], handler: () => id });
}
