/**
 * debug_traceCall: traces a call object on a block's state (geth TraceCallConfig with state
 * overrides and block overrides).
 */
import { defineMethod, s } from "../../../rpc/mod.ts";
import { resolveBlock, type TraceBackend } from "./backend.ts";
import { callArgsSchema, toCallMessage } from "./call_object.ts";
import { replayCall } from "./replay.ts";
import { runTracer, traceCallConfigSchema } from "./trace_config.ts";

export function traceCall(backend: TraceBackend) {
  return defineMethod({
    name: "debug_traceCall",
    params: [callArgsSchema, s.optional(s.blockTag()), s.optional(traceCallConfigSchema)] as const,
    handler: async ([call, tag, cfg]) => {
      const { header, hash } = resolveBlock(backend, tag ?? { kind: "tag", tag: "latest" });
      const msg = toCallMessage(call);
      return await runTracer(
        cfg,
        (options) =>
          replayCall(backend, header, msg, {
            ...options,
            stateOverrides: cfg?.stateOverrides,
            blockOverrides: cfg?.blockOverrides,
          }),
        // A call is no transaction of the block: geth prints no transaction hash.
        { blockHash: hash, blockNumber: header.number, txHash: undefined, txIndex: 0 },
      );
    },
  });
}
