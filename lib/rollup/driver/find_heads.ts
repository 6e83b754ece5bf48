/**
 * Where derivation restarts after a reset, with L1 reorgs in mind (op-node sync/start.go FindL2Heads;
 * specs/protocol/derivation.md "Resetting the Pipeline"): an L2 block is only valid while its L1 origin
 * is canonical on L1.
 *
 * - The unsafe head: the highest L2 block whose L1 origin is canonical, or not yet known to this L1
 *   view (ahead of its head: plausible), with no block of a non-canonical origin below it.
 * - The safe head: the first block of the newest epoch whose L1 origin is more than `lookback` L1 blocks
 *   (the sequencing window; on Alt-DA chains the challenge and resolve windows when longer) before the
 *   highest canonical origin, and not above the previous safe head: every batch of the blocks after it
 *   is on the canonical L1 chain again, or will be found in the window that derivation reads again.
 * - Never below the finalized head (or genesis); a finalized block whose L1 origin is no longer
 *   canonical, or an L2 genesis other than the rollup config's, is an error.
 *
 * L1 origins grow with the L2 block number and each epoch's origin is the child of the one before, so
 * once a canonical origin is found every block below it has one too: the walk from the unsafe head stops
 * there, and the safe head is found by binary search (epochStartAtOrBelow).
 */
import { bytesToHex, equalBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { L1BlockRef, L2BlockRef, RollupConfig } from "../../protocol/mod.ts";

export interface L2Heads {
  unsafe: L2BlockRef;
  safe: L2BlockRef;
  finalized: L2BlockRef;
}

export interface FindHeadsDeps {
  /** The canonical L1 block `number`; undefined when this L1 view has none yet (ahead of its head). */
  l1ByNumber(number: bigint): Promise<L1BlockRef | undefined>;
  /** The canonical L2 block `number` (the engine's chain). */
  l2ByNumber(number: bigint): Promise<L2BlockRef>;
}

/** Walk no further than this many sequencing windows of L1 origins back from the unsafe head (op-node). */
const MAX_REORG_SEQ_WINDOWS = 5n;

function fail(code: string, message: string): BaseError {
  return new BaseError(code, `Cannot find the L2 heads: ${message}`, { severity: "temporary" });
}

/**
 * The first block of the newest epoch whose L1 origin is at or below `target`, searched between `floor`
 * and `top` (block numbers); `floor` when even its origin is above the target.
 */
export async function epochStartAtOrBelow(
  floor: bigint,
  top: bigint,
  target: bigint,
  ref: (n: bigint) => Promise<L2BlockRef>,
): Promise<L2BlockRef> {
  if (top <= floor) return await ref(floor);
  const low = await ref(floor);
  if (low.l1Origin.number > target) return low;
  let lo = floor;
  let hi = top;
  while (lo < hi) {
    const mid = (lo + hi + 1n) / 2n;
    if ((await ref(mid)).l1Origin.number <= target) lo = mid;
    else hi = mid - 1n;
  }
  const epoch = (await ref(lo)).l1Origin.number;
  let first = floor;
  let last = lo;
  while (first < last) {
    const mid = (first + last) / 2n;
    if ((await ref(mid)).l1Origin.number < epoch) first = mid + 1n;
    else last = mid;
  }
  return await ref(first);
}

/**
 * The heads to restart from (see the file comment), given the engine's `current` ones. `lookback` is
 * the driver's syncLookback(cfg).
 */
export async function findL2Heads(
  cfg: RollupConfig,
  lookback: bigint,
  current: L2Heads,
  deps: FindHeadsDeps,
): Promise<L2Heads> {
  const genesis = cfg.genesis;
  const floor = current.finalized.number > genesis.l2.number ? current.finalized.number : genesis.l2.number;
  // Walk down from the unsafe head while the L1 origins are not canonical (or not yet known).
  let unsafe: L2BlockRef | undefined;
  let canonical: L2BlockRef | undefined;
  let n = current.unsafe;
  const origins = new Map<bigint, L1BlockRef | undefined>();
  for (;;) {
    const number = n.l1Origin.number;
    if (!origins.has(number)) origins.set(number, await deps.l1ByNumber(number));
    const l1 = origins.get(number);
    unsafe ??= n;
    if (n.number === genesis.l2.number) {
      if (!equalBytes(n.hash, genesis.l2.hash)) {
        throw fail(
          "WRONG_CHAIN",
          `L2 genesis ${bytesToHex(genesis.l2.hash)}, the engine has ${bytesToHex(n.hash)}`,
        );
      }
      if (l1 !== undefined && !equalBytes(l1.hash, genesis.l1.hash)) {
        throw fail("WRONG_CHAIN", `L1 genesis ${bytesToHex(genesis.l1.hash)}, L1 has ${bytesToHex(l1.hash)}`);
      }
    }
    if (l1 !== undefined && equalBytes(l1.hash, n.l1Origin.hash)) {
      canonical = n;
      break;
    }
    if (l1 !== undefined) unsafe = undefined; // not canonical: neither this block nor those above it
    if (n.number <= floor) {
      if (l1 === undefined) break; // ahead of this L1 view down to the floor: keep what we have
      throw fail(
        "REORG_FINALIZED",
        `the L1 origin ${number} (${
          bytesToHex(n.l1Origin.hash)
        }) of finalized block ${n.number} is not canonical`,
      );
    }
    n = await deps.l2ByNumber(n.number - 1n);
  }
  const newUnsafe = unsafe ?? canonical ?? n;
  if (
    newUnsafe.l1Origin.number + MAX_REORG_SEQ_WINDOWS * cfg.seqWindowSize < current.unsafe.l1Origin.number
  ) {
    throw fail(
      "REORG_TOO_DEEP",
      `walked back to block ${newUnsafe.number}, too deep below the unsafe head ${current.unsafe.number}`,
    );
  }
  // The safe head: a full lookback of canonical L1 behind the highest canonical origin, not above the
  // old safe head (nor the new unsafe head).
  const top = [current.safe.number, newUnsafe.number].reduce((a, b) => (a < b ? a : b));
  const safe = canonical === undefined
    ? await deps.l2ByNumber(floor)
    : await epochStartAtOrBelow(floor, top, canonical.l1Origin.number - lookback - 1n, deps.l2ByNumber);
  return { unsafe: newUnsafe, safe, finalized: current.finalized };
}
