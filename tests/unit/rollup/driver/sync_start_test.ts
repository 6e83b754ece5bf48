/**
 * Where a reset restarts the safe head (find_heads.ts epochStartAtOrBelow, op-node FindL2Heads): checked
 * against a walk back block by block, on random chains of epochs of random lengths.
 */
import type { L2BlockRef } from "../../../../lib/protocol/block_ref.ts";
import { syncLookback } from "../../../../lib/rollup/driver/driver.ts";
import { epochStartAtOrBelow } from "../../../../lib/rollup/driver/find_heads.ts";
import { rollupFixture } from "../derive/rollup_fixture.ts";
import { assertEquals } from "../../../assert.ts";
import { prng } from "../../../prng.ts";

function chainOf(origins: bigint[]): L2BlockRef[] {
  const z = new Uint8Array(32);
  let seq = 0n;
  return origins.map((o, i) => {
    seq = i > 0 && origins[i - 1] === o ? seq + 1n : 0n;
    return {
      number: BigInt(i),
      hash: z,
      parentHash: z,
      timestamp: BigInt(i) * 2n,
      l1Origin: { number: o, hash: z },
      sequenceNumber: seq,
    };
  });
}

/** The reference: walk back from `safe` to the first block (sequence number 0) far enough back. */
function walkBack(chain: L2BlockRef[], safe: bigint, floor: bigint, lookback: bigint): bigint {
  const s = chain[Number(safe)];
  if (safe <= floor) return safe;
  for (let n = safe; n > floor; n--) {
    const b = chain[Number(n)];
    if (b.l1Origin.number + lookback < s.l1Origin.number && b.sequenceNumber === 0n) return n;
  }
  return floor;
}

Deno.test("sync start: the first block of the newest epoch past the lookback, never below the floor", async () => {
  const rand = prng(7);
  for (let round = 0; round < 200; round++) {
    const origins: bigint[] = [];
    let o = 0n;
    while (origins.length < 60) {
      const len = 1 + Math.floor(rand() * 5);
      for (let k = 0; k < len; k++) origins.push(o);
      o += BigInt(1 + Math.floor(rand() * 3));
    }
    const chain = chainOf(origins.slice(0, 60));
    const safe = BigInt(Math.floor(rand() * 60));
    const floor = BigInt(Math.floor(rand() * Number(safe + 1n)));
    const lookback = BigInt(Math.floor(rand() * 40));
    // The safe head a reset restarts from, below `safe` (findL2Heads with the highest canonical origin at safe's).
    const got = await epochStartAtOrBelow(
      floor,
      safe,
      chain[Number(safe)].l1Origin.number - lookback - 1n,
      (n) => Promise.resolve(chain[Number(n)]),
    );
    assertEquals(
      got.number,
      walkBack(chain, safe, floor, lookback),
      `round ${round}: safe ${safe} floor ${floor} lookback ${lookback}`,
    );
  }
});

Deno.test("sync lookback: the sequencing window, or the DA windows when longer (op-node SyncLookback)", () => {
  const cfg = { ...rollupFixture(), seqWindowSize: 3600n };
  assertEquals(syncLookback(cfg), 3600n);
  const da = {
    commitmentType: "KeccakCommitment" as const,
    daChallengeWindow: 3600n,
    daResolveWindow: 3600n,
  };
  assertEquals(syncLookback({ ...cfg, altDA: da }), 7200n);
  assertEquals(
    syncLookback({ ...cfg, altDA: { ...da, daChallengeWindow: 10n, daResolveWindow: 10n } }),
    3600n,
  );
});
