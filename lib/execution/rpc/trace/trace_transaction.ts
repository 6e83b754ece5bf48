/** trace_transaction: the Parity traces of one transaction (null when it is unknown). */
import { keccak256 } from "../../../common/mod.ts";
import { defineMethod, s } from "../../../rpc/mod.ts";
import { BlockReplay, CallTracer, type TraceBackend } from "../debug/mod.ts";
import { flattenFrames, localize, type LocalizedTrace } from "./parity.ts";

/** The Parity traces of a mined transaction, null when it is unknown. */
export async function transactionTraces(
  backend: TraceBackend,
  hash: Uint8Array,
): Promise<LocalizedTrace[] | null> {
  const loc = backend.chain.getTransactionLocation(hash);
  const block = loc === undefined ? undefined : backend.chain.getBlockByHash(loc.blockHash);
  if (loc === undefined || block === undefined) return null;
  const replay = await BlockReplay.open(backend, block);
  await replay.skipTo(loc.index);
  const tracer = new CallTracer();
  await replay.run({ tracer });
  const root = tracer.root();
  if (root === undefined) return [];
  return localize(flattenFrames(root), {
    blockHash: loc.blockHash,
    blockNumber: loc.blockNumber,
    transactionHash: keccak256(block.transactions[loc.index]),
    transactionPosition: loc.index,
  });
}

export function traceTransaction(backend: TraceBackend) {
  return defineMethod({
    name: "trace_transaction",
    params: [s.hash()] as const,
    handler: ([hash]) => transactionTraces(backend, hash),
  });
}
