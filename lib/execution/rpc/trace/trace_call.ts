/** trace_call: a call object on a block's state, with the requested trace types (default block: latest). */
import { defineMethod, s } from "../../../rpc/mod.ts";
import { callArgsSchema, replayCall, resolveBlock, toCallMessage, type TraceBackend } from "../debug/mod.ts";
import { runWithTypes, type TraceResults, traceTypesSchema } from "./replay_results.ts";

export function traceCall(backend: TraceBackend) {
  return defineMethod({
    name: "trace_call",
    params: [callArgsSchema, traceTypesSchema, s.optional(s.blockTag())] as const,
    handler: async ([call, types, tag]): Promise<TraceResults> => {
      const { header } = resolveBlock(backend, tag ?? { kind: "tag", tag: "latest" });
      const msg = toCallMessage(call);
      return await runWithTypes(
        types,
        (options) => replayCall(backend, header, msg, options),
        backend.options.evmTimeoutMs,
      );
    },
  });
}
