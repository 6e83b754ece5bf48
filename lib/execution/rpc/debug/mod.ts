/** debug_* JSON-RPC: geth's tracers over the OP tx runner, and the raw consensus encodings. */
export { DEFAULT_TRACE_TIMEOUT_MS, resolveBlock, type ResolvedBlock, type TraceBackend } from "./backend.ts";
export { debugNamespace } from "./debug_namespace.ts";
export {
  type CallFrame,
  type CallFrameJson,
  CallTracer,
  type CallTracerConfig,
  fourByteResult,
  frameJson,
} from "./call_tracer.ts";
export { StructLogger, type StructLoggerConfig, type StructLoggerResult } from "./struct_logger.ts";
export { prestateDiff, prestateResult } from "./prestate_tracer.ts";
export { type AccountState, StateRecorder } from "./state_recorder.ts";
export { decodeRevertReason, gethError, parityError, REVERT_ERROR } from "./evm_errors.ts";
export {
  forwardedCallGas,
  isTimeout,
  MultiTracer,
  TIMEOUT_MESSAGE,
  type Tracer,
  type TxInfo,
  type TxOutcome,
} from "./hooks.ts";
export {
  BlockReplay,
  type CallMessage,
  type Clock,
  intrinsicGas,
  replayCall,
  type RunOptions,
  type TracedRun,
} from "./replay.ts";
export {
  parseGoDuration,
  runTracer,
  traceCallConfigSchema,
  type TraceConfig,
  traceConfigSchema,
  traceTimeout,
} from "./trace_config.ts";
export { callArgsSchema, stateOverrideSchema, toCallMessage } from "./call_object.ts";
export { locateTransaction } from "./trace_transaction.ts";
export { traceBlock, type TxTraceResult } from "./trace_block.ts";
export { type Dump, type DumpAccount, type DumpOptions, dumpState, trieLeaves } from "./state_dump.ts";
export { ACCOUNT_RANGE_MAX_RESULTS } from "./account_range.ts";
