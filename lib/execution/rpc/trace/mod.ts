/** trace_* JSON-RPC in the Parity/OpenEthereum format, over the debug namespace's replay and tracers. */
export { traceNamespace } from "./trace_namespace.ts";
export {
  type AccountDiff,
  type CallAction,
  type CreateAction,
  type Delta,
  flattenFrames,
  localize,
  type LocalizedTrace,
  stateDiff,
  type SuicideAction,
  type TracePlace,
  type TraceResult,
  type TransactionTrace,
} from "./parity.ts";
export {
  blockTraces,
  TRACE_TYPES,
  type TraceResults,
  type TraceType,
  traceTypesSchema,
} from "./replay_results.ts";
export { TRACE_FILTER_MAX_BLOCKS, traceFilterSchema } from "./trace_filter.ts";
export { type VmExecuted, type VmOp, type VmTrace, VmTracer } from "./vm_tracer.ts";
