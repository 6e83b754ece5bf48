/** The debug namespace: tracing (struct logger, callTracer, prestateTracer), raw encodings, state dumps, dbGet, setHead. */
import type { Namespace } from "../../../rpc/mod.ts";
import type { TraceBackend } from "./backend.ts";
import { getRawBlock, getRawHeader, getRawReceipts, getRawTransaction, getRawTransactions } from "./raw.ts";
import { codeByHash, dbGet, setHead, verbosity } from "./db.ts";
import { traceBlockByHash, traceBlockByNumber } from "./trace_block.ts";
import { getBadBlocks, intermediateRoots, traceBadBlock, traceBlockRlp } from "./bad_blocks.ts";
import { executionWitnessByBlockHash, executionWitnessMethod } from "./execution_witness.ts";
import { getModifiedAccountsByHash, getModifiedAccountsByNumber } from "./modified_accounts.ts";
import { traceCall } from "./trace_call.ts";
import { traceTransaction } from "./trace_transaction.ts";
import { type SlotPreimages, storageRangeAt } from "./storage_range.ts";
import { accountRange } from "./account_range.ts";
import { dumpBlock } from "./dump_block.ts";

export function debugNamespace(backend: TraceBackend & { slotPreimages?: SlotPreimages }): Namespace {
  return {
    traceTransaction: traceTransaction(backend),
    traceCall: traceCall(backend),
    traceBlockByNumber: traceBlockByNumber(backend),
    traceBlockByHash: traceBlockByHash(backend),
    traceBlock: traceBlockRlp(backend),
    traceBadBlock: traceBadBlock(backend),
    getBadBlocks: getBadBlocks(backend),
    intermediateRoots: intermediateRoots(backend),
    getModifiedAccountsByNumber: getModifiedAccountsByNumber(backend),
    getModifiedAccountsByHash: getModifiedAccountsByHash(backend),
    executionWitness: executionWitnessMethod(backend),
    executionWitnessByBlockHash: executionWitnessByBlockHash(backend),
    getRawHeader: getRawHeader(backend),
    getRawBlock: getRawBlock(backend),
    getRawReceipts: getRawReceipts(backend),
    getRawTransaction: getRawTransaction(backend),
    getRawTransactions: getRawTransactions(backend),
    dbGet: dbGet(backend),
    codeByHash: codeByHash(backend),
    setHead: setHead(backend),
    verbosity: verbosity(),
    storageRangeAt: storageRangeAt(backend),
    accountRange: accountRange(backend),
    dumpBlock: dumpBlock(backend),
  };
}
