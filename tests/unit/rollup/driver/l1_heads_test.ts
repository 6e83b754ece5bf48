/**
 * The driver's L1 heads (rollup/driver/l1_heads.ts): the head on every refresh, safe and finalized
 * only every --l1.epoch-poll-interval (the first time at once), never when it is 0 or negative; an
 * L1 without the labels keeps the last values.
 */
import type { L1BlockRef } from "../../../../lib/protocol/block_ref.ts";
import { L1Heads } from "../../../../lib/rollup/driver/l1_heads.ts";
import { assertEquals } from "../../../assert.ts";

const ZERO: L1BlockRef = {
  hash: new Uint8Array(32),
  number: 0n,
  parentHash: new Uint8Array(32),
  timestamp: 0n,
};

/** An L1 whose head is `n`, safe `n - 2`, finalized `n - 4`; counts reads per label. */
function fakeL1(options: { labels?: boolean } = {}) {
  const l1 = {
    n: 10n,
    reads: { latest: 0, safe: 0, finalized: 0 },
    blockRef(label: "latest" | "safe" | "finalized"): Promise<L1BlockRef> {
      l1.reads[label]++;
      if (label !== "latest" && options.labels === false) {
        return Promise.reject(new Error("unknown block tag"));
      }
      const number = label === "latest" ? l1.n : label === "safe" ? l1.n - 2n : l1.n - 4n;
      return Promise.resolve({ ...ZERO, number });
    },
  };
  return l1;
}

Deno.test("L1 heads: safe and finalized read at the first refresh, then once per epoch poll interval", async () => {
  const l1 = fakeL1();
  let now = 1_000;
  const heads = new L1Heads(l1, ZERO, { epochPollIntervalMs: 384_000, now: () => now });
  await heads.refresh();
  assertEquals([heads.head.number, heads.safe.number, heads.finalized.number], [10n, 8n, 6n]);
  // L1 moves on; within the interval only the head follows.
  l1.n = 20n;
  for (let i = 0; i < 5; i++) {
    now += 60_000;
    await heads.refresh();
  }
  assertEquals([heads.head.number, heads.safe.number, heads.finalized.number], [20n, 8n, 6n]);
  assertEquals(l1.reads, { latest: 6, safe: 1, finalized: 1 });
  // 6m24s after the last read: safe and finalized again.
  now += 84_000;
  await heads.refresh();
  assertEquals([heads.safe.number, heads.finalized.number], [18n, 16n]);
  assertEquals(heads.epochPolls, 2);
});

Deno.test("L1 heads: an interval of 0 or below never reads safe and finalized (nothing finalizes)", async () => {
  for (const interval of [0, -1_000]) {
    const l1 = fakeL1();
    const heads = new L1Heads(l1, ZERO, { epochPollIntervalMs: interval });
    await heads.refresh();
    await heads.refresh();
    assertEquals(heads.head.number, 10n);
    assertEquals(heads.finalized, ZERO);
    assertEquals(heads.safe, ZERO);
    assertEquals(l1.reads, { latest: 2, safe: 0, finalized: 0 });
  }
});

Deno.test("L1 heads: an L1 without the safe and finalized labels keeps the last values", async () => {
  const l1 = fakeL1({ labels: false });
  let now = 0;
  const heads = new L1Heads(l1, ZERO, { epochPollIntervalMs: 1_000, now: () => now });
  await heads.refresh();
  now += 1_000;
  await heads.refresh();
  assertEquals(heads.head.number, 10n);
  assertEquals(heads.finalized, ZERO);
  assertEquals(l1.reads, { latest: 2, safe: 2, finalized: 2 });
});
