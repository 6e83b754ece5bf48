/**
 * What the ots_* methods read from a replay: the call frames of one transaction or of every
 * transaction of a block (debug/replay.ts with the callTracer's frame recorder).
 */
import { equalBytes } from "../../../common/bytes.ts";
import type { Block } from "../../../protocol/block.ts";
import { BlockReplay, type CallFrame, CallTracer, type TraceBackend } from "../debug/mod.ts";

/** The frames of the transaction at `index` of `block` (undefined when the tracer saw none). */
export async function txFrames(
  backend: TraceBackend,
  block: Block,
  index: number,
): Promise<CallFrame | undefined> {
  const replay = await BlockReplay.open(backend, block);
  await replay.skipTo(index);
  const tracer = new CallTracer();
  await replay.run({ tracer });
  return tracer.root();
}

/** The frames of every transaction of `block`, in order. */
export async function blockFrames(backend: TraceBackend, block: Block): Promise<(CallFrame | undefined)[]> {
  if (block.transactions.length === 0) return [];
  const replay = await BlockReplay.open(backend, block);
  const out: (CallFrame | undefined)[] = [];
  for (let i = 0; i < block.transactions.length; i++) {
    const tracer = new CallTracer();
    await replay.run({ tracer });
    out.push(tracer.root());
  }
  return out;
}

/** Every frame of a tree, parents before their sub-calls, with its depth (0: the transaction). */
export function* walkFrames(root: CallFrame, depth = 0): Generator<[CallFrame, number]> {
  yield [root, depth];
  for (const c of root.calls) yield* walkFrames(c, depth + 1);
}

/** Whether `address` is the sender, a callee, a created contract or a self-destruct's beneficiary in the tree. */
export function touches(root: CallFrame, address: Uint8Array): boolean {
  for (const [f] of walkFrames(root)) {
    if (equalBytes(f.from, address)) return true;
    if (f.to !== undefined && equalBytes(f.to, address)) return true;
    if (f.created !== undefined && equalBytes(f.created, address)) return true;
  }
  return false;
}
