/** trace_block: the Parity traces of every transaction of a block (null when the block is unknown). */
import { defineMethod, s } from "../../../rpc/mod.ts";
import { resolveBlock, type TraceBackend } from "../debug/mod.ts";
import type { LocalizedTrace } from "./parity.ts";
import { blockTraces } from "./replay_results.ts";

export function traceBlock(backend: TraceBackend) {
  return defineMethod({
    name: "trace_block",
    params: [s.blockTag()] as const,
    handler: async ([tag]): Promise<LocalizedTrace[] | null> => {
      let resolved;
      try {
        resolved = resolveBlock(backend, tag);
      } catch {
        return null;
      }
      const block = backend.chain.getBlockByHash(resolved.hash);
      return block === undefined ? null : await blockTraces(backend, block, resolved.hash);
    },
  });
}
