/**
 * What the ots_* methods read from a replay: the call frames of one transaction or of every
 * transaction of a block (debug/replay.ts with the callTracer's frame recorder).
 */
import { bytesToHex } from "../../../common/bytes.ts";
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

/** The addresses (lower-case hex) a frame tree names: senders, callees, created contracts, beneficiaries. */
export function touchedAddresses(root: CallFrame): Set<string> {
  const out = new Set<string>();
  for (const [f] of walkFrames(root)) {
    out.add(bytesToHex(f.from));
    if (f.to !== undefined) out.add(bytesToHex(f.to));
    if (f.created !== undefined) out.add(bytesToHex(f.created));
  }
  return out;
}

/**
 * The addresses each transaction of a block touches, by block hash: a search replays a block once, and
 * the next searches (Otterscan pages through an address's history, then looks at others) read them here.
 * A block's hash fixes its transactions and its parent state, so an entry never goes stale.
 */
export class TouchedCache {
  readonly #entries = new Map<string, Set<string>[]>();
  readonly #max: number;
  readonly #load: typeof blockFrames;

  /** `load`: how a block's frames are found (a replay; tests count the calls). */
  constructor(maxBlocks = 20_000, load: typeof blockFrames = blockFrames) {
    this.#max = maxBlocks;
    this.#load = load;
  }

  async of(backend: TraceBackend, block: Block, hash: Uint8Array): Promise<Set<string>[]> {
    const key = bytesToHex(hash);
    const hit = this.#entries.get(key);
    if (hit !== undefined) return hit;
    const sets = (await this.#load(backend, block)).map((root) =>
      root === undefined ? new Set<string>() : touchedAddresses(root)
    );
    if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, sets);
    return sets;
  }
}
