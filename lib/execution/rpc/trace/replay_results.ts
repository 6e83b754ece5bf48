/**
 * Running transactions for the trace namespace: the Parity traces of every transaction of a block,
 * and the TraceResults `{output, stateDiff, trace, vmTrace}` of trace_call / trace_replay*.
 */
import { bytesToHex, type Hex, keccak256 } from "../../../common/mod.ts";
import type { Block } from "../../../protocol/mod.ts";
import { RpcError, s } from "../../../rpc/mod.ts";
import {
  BlockReplay,
  CallTracer,
  isTimeout,
  MultiTracer,
  type RunOptions,
  TIMEOUT_MESSAGE,
  type TraceBackend,
  type TracedRun,
} from "../debug/mod.ts";
import {
  type AccountDiff,
  flattenFrames,
  localize,
  type LocalizedTrace,
  stateDiff,
  type TransactionTrace,
} from "./parity.ts";
import { type VmTrace, VmTracer } from "./vm_tracer.ts";

export const TRACE_TYPES = ["trace", "vmTrace", "stateDiff"] as const;
export type TraceType = (typeof TRACE_TYPES)[number];
export const traceTypesSchema = s.array(s.enum(TRACE_TYPES));

export interface TraceResults {
  output: Hex;
  stateDiff: Record<Hex, AccountDiff> | null;
  /** Always a list (OpenEthereum, reth TraceResults.trace: Vec): empty when "trace" was not asked for. */
  trace: TransactionTrace[];
  vmTrace: VmTrace | null;
}

/** One run with the requested trace types. */
export async function runWithTypes(
  types: TraceType[],
  run: (options: RunOptions) => Promise<TracedRun>,
  timeoutMs = 0,
): Promise<TraceResults> {
  const wantTrace = types.includes("trace");
  const wantDiff = types.includes("stateDiff");
  const tracer = new CallTracer();
  const vm = types.includes("vmTrace") ? new VmTracer() : undefined;
  let r: TracedRun;
  try {
    r = await run({
      tracer: vm === undefined ? tracer : new MultiTracer([tracer, vm]),
      recordState: wantDiff,
      timeoutMs,
    });
  } catch (e) {
    if (isTimeout(e)) throw RpcError.server(TIMEOUT_MESSAGE);
    throw e;
  }
  const root = tracer.root();
  return {
    output: bytesToHex(r.outcome.output),
    stateDiff: wantDiff && r.state !== undefined ? stateDiff(r.state.pre, r.state.post) : null,
    trace: wantTrace && root !== undefined ? flattenFrames(root) : [],
    vmTrace: vm?.result() ?? null,
  };
}

/** The localized traces of every transaction of `block` (hash `blockHash`). */
export async function blockTraces(
  backend: TraceBackend,
  block: Block,
  blockHash: Uint8Array,
): Promise<LocalizedTrace[]> {
  if (block.transactions.length === 0) return [];
  const replay = await BlockReplay.open(backend, block);
  const out: LocalizedTrace[] = [];
  for (let i = 0; i < block.transactions.length; i++) {
    const tracer = new CallTracer();
    await replay.run({ tracer });
    const root = tracer.root();
    if (root === undefined) continue;
    out.push(...localize(flattenFrames(root), {
      blockHash,
      blockNumber: block.header.number,
      transactionHash: keccak256(block.transactions[i]),
      transactionPosition: i,
    }));
  }
  return out;
}
