/** trace_replayBlockTransactions and trace_replayTransaction: TraceResults per replayed transaction. */
import { bytesToHex, type Hex, keccak256 } from "../../../common/mod.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import { BlockReplay, resolveBlock, type TraceBackend } from "../debug/mod.ts";
import { runWithTypes, type TraceResults, traceTypesSchema } from "./replay_results.ts";

export type TraceResultsWithHash = TraceResults & { transactionHash: Hex };

export function traceReplayBlockTransactions(backend: TraceBackend) {
  return defineMethod({
    name: "trace_replayBlockTransactions",
    params: [s.blockTag(), traceTypesSchema] as const,
    handler: async ([tag, types]): Promise<TraceResultsWithHash[] | null> => {
      let hash: Uint8Array;
      try {
        hash = resolveBlock(backend, tag).hash;
      } catch {
        return null;
      }
      const block = backend.chain.getBlockByHash(hash);
      if (block === undefined) return null;
      if (block.transactions.length === 0) return [];
      const replay = await BlockReplay.open(backend, block);
      const out: TraceResultsWithHash[] = [];
      for (const raw of block.transactions) {
        const r = await runWithTypes(types, (options) => replay.run(options));
        out.push({ ...r, transactionHash: bytesToHex(keccak256(raw)) });
      }
      return out;
    },
  });
}

export function traceReplayTransaction(backend: TraceBackend) {
  return defineMethod({
    name: "trace_replayTransaction",
    params: [s.hash(), traceTypesSchema] as const,
    handler: async ([hash, types]): Promise<TraceResults> => {
      const loc = backend.chain.getTransactionLocation(hash);
      const block = loc === undefined ? undefined : backend.chain.getBlockByHash(loc.blockHash);
      if (loc === undefined || block === undefined) {
        throw RpcError.server(`transaction ${bytesToHex(hash)} not found`);
      }
      const replay = await BlockReplay.open(backend, block);
      await replay.skipTo(loc.index);
      return await runWithTypes(types, (options) => replay.run(options));
    },
  });
}
