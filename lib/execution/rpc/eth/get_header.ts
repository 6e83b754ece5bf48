/** eth_getHeaderByNumber / eth_getHeaderByHash (geth): the block's header fields, null when unknown. */
import { defineMethod, s } from "../../../rpc/mod.ts";
import { type EthContext, resolveHeader } from "../backend.ts";
import { formatHeader, q } from "../format.ts";

function headerResponse(ctx: EthContext, hash: Uint8Array): Record<string, unknown> | null {
  const chain = ctx.backend.chain;
  const header = chain.getHeaderByHash(hash);
  if (header === undefined) return null;
  const out = formatHeader(header, hash);
  out.totalDifficulty = q(chain.getTotalDifficulty(hash) ?? header.difficulty);
  return out;
}

export function ethGetHeaderByNumber(ctx: EthContext) {
  return defineMethod({
    name: "eth_getHeaderByNumber",
    params: [s.blockTag()],
    handler: ([block]) => {
      const r = resolveHeader(ctx.backend, block);
      return r === undefined ? null : headerResponse(ctx, r.hash);
    },
  });
}

export function ethGetHeaderByHash(ctx: EthContext) {
  return defineMethod({
    name: "eth_getHeaderByHash",
    params: [s.hash()],
    handler: ([hash]) => headerResponse(ctx, hash),
  });
}
