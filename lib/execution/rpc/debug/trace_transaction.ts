/** debug_traceTransaction: replays the block up to the transaction, then traces it. */
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import type { TraceBackend } from "./backend.ts";
import { BlockReplay } from "./replay.ts";
import { runTracer, traceConfigSchema } from "./trace_config.ts";

/** The canonical block holding `txHash` and the transaction's index (geth: "transaction not found"). */
export function locateTransaction(backend: TraceBackend, txHash: Uint8Array) {
  const loc = backend.chain.getTransactionLocation(txHash);
  const block = loc === undefined ? undefined : backend.chain.getBlockByHash(loc.blockHash);
  if (loc === undefined || block === undefined) {
    throw RpcError.server("transaction not found"); // geth's words (eth/tracers errTxNotFound)
  }
  if (loc.blockNumber === 0n) throw RpcError.server("genesis is not traceable");
  return { block, index: loc.index, blockHash: loc.blockHash };
}

export function traceTransaction(backend: TraceBackend) {
  return defineMethod({
    name: "debug_traceTransaction",
    params: [s.hash(), s.optional(traceConfigSchema)] as const,
    handler: async ([hash, cfg]) => {
      const { block, index, blockHash } = locateTransaction(backend, hash);
      const replay = await BlockReplay.open(backend, block);
      await replay.skipTo(index);
      const place = { blockHash, blockNumber: block.header.number, txHash: hash, txIndex: index };
      return await runTracer(cfg, (options) => replay.run(options), place);
    },
  });
}
