/**
 * debug_traceBlockByNumber and debug_traceBlockByHash: every transaction of the block, each as
 * `{txHash, result}` (geth txTraceResult). With the struct logger or a native tracer a failure (a bad
 * config, a timeout) fails the request, as geth's traceBlock; with an unknown tracer each transaction
 * carries its error (geth's JS path) and the replay restarts untraced so the next ones see the right state.
 */
import { bytesToHex, type Hex } from "../../../common/mod.ts";
import { type Block, hashHeader } from "../../../protocol/mod.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import { resolveBlock, type TraceBackend } from "./backend.ts";
import { BlockReplay } from "./replay.ts";
import { NAMED_TRACERS, runTracer, type TraceConfig, traceConfigSchema } from "./trace_config.ts";
import { keccak256 } from "../../../common/mod.ts";

/** The tracers keel runs natively (trace_config.ts runTracer). */
const NATIVE_TRACERS = new Set<string>(NAMED_TRACERS);

export type TxTraceResult = { txHash: Hex; result: unknown } | { txHash: Hex; error: string };

export async function traceBlock(
  backend: TraceBackend,
  block: Block,
  cfg: TraceConfig | undefined,
): Promise<TxTraceResult[]> {
  if (block.header.number === 0n) throw RpcError.server("genesis is not traceable");
  const out: TxTraceResult[] = [];
  // geth traceBlock: the struct logger and the native tracers run in order and the first failure fails the
  // request; any other name goes the JS tracers' way (traceBlockParallel), each transaction with its error.
  const native = cfg?.tracer === undefined || cfg.tracer === "" || NATIVE_TRACERS.has(cfg.tracer);
  let replay = await BlockReplay.open(backend, block);
  const blockHash = hashHeader(block.header);
  for (let i = 0; i < block.transactions.length; i++) {
    const hash = keccak256(block.transactions[i]);
    const txHash = bytesToHex(hash);
    try {
      const place = { blockHash, blockNumber: block.header.number, txHash: hash, txIndex: i };
      out.push({ txHash, result: await runTracer(cfg, (options) => replay.run(options), place) });
    } catch (e) {
      if (native) throw e;
      out.push({ txHash, error: (e as Error).message });
      replay = await BlockReplay.open(backend, block);
      await replay.skipTo(i + 1);
    }
  }
  return out;
}

function blockAt(backend: TraceBackend, hash: Uint8Array): Block {
  const block = backend.chain.getBlockByHash(hash);
  if (block === undefined) throw RpcError.server(`block ${bytesToHex(hash)} not found`);
  return block;
}

export function traceBlockByNumber(backend: TraceBackend) {
  return defineMethod({
    name: "debug_traceBlockByNumber",
    params: [s.blockNumber(), s.optional(traceConfigSchema)] as const,
    handler: async ([number, cfg]) => {
      const { hash } = resolveBlock(backend, number);
      return await traceBlock(backend, blockAt(backend, hash), cfg);
    },
  });
}

export function traceBlockByHash(backend: TraceBackend) {
  return defineMethod({
    name: "debug_traceBlockByHash",
    params: [s.hash(), s.optional(traceConfigSchema)] as const,
    handler: async ([hash, cfg]) => await traceBlock(backend, blockAt(backend, hash), cfg),
  });
}
