/** eth_getTransactionReceipt: spec 2.2 plus op-geth's L1 fee and deposit fields. */
import { defineMethod, s } from "../../../rpc/mod.ts";
import type { EthBackend, EthContext } from "../backend.ts";
import { formatReceipt } from "../format.ts";

/** The formatted receipt of a transaction in a canonical block, or null. */
export function receiptOf(backend: EthBackend, hash: Uint8Array): Record<string, unknown> | null {
  const chain = backend.chain;
  const loc = chain.getTransactionLocation(hash);
  if (loc === undefined) return null;
  const header = chain.getHeaderByHash(loc.blockHash);
  const receipt = chain.getReceipts(loc.blockHash)?.[loc.index];
  if (header === undefined || receipt === undefined) return null;
  return formatReceipt(receipt, { hash: loc.blockHash, header }, loc.index);
}

export function ethGetTransactionReceipt(ctx: EthContext) {
  return defineMethod({
    name: "eth_getTransactionReceipt",
    params: [s.hash()],
    handler: ([hash]) => receiptOf(ctx.backend, hash),
  });
}
