/** The trace namespace (Parity/OpenEthereum format, as op-erigon and reth serve it). */
import type { Namespace } from "../../../rpc/mod.ts";
import type { TraceBackend } from "../debug/mod.ts";
import { traceBlock } from "./trace_block.ts";
import { traceCall } from "./trace_call.ts";
import { traceFilter } from "./trace_filter.ts";
import { traceReplayBlockTransactions, traceReplayTransaction } from "./trace_replay_block_transactions.ts";
import { traceTransaction } from "./trace_transaction.ts";
import { traceCallMany, traceGet, traceRawTransaction } from "./trace_call_many.ts";

export function traceNamespace(backend: TraceBackend): Namespace {
  return {
    block: traceBlock(backend),
    transaction: traceTransaction(backend),
    call: traceCall(backend),
    callMany: traceCallMany(backend),
    rawTransaction: traceRawTransaction(backend),
    get: traceGet(backend),
    filter: traceFilter(backend),
    replayBlockTransactions: traceReplayBlockTransactions(backend),
    replayTransaction: traceReplayTransaction(backend),
  };
}
