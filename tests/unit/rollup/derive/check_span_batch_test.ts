import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEOACode7702Tx, createFeeMarket1559Tx } from "@ethereumjs/tx";
import { eoaCode7702SignAuthorization } from "@ethereumjs/util";
import { assert, assertEquals } from "../../../assert.ts";
import { hexToBytes } from "../../../../lib/common/bytes.ts";
import type { SingularBatch } from "../../../../lib/protocol/batch.ts";
import type { L1BlockRef, L2BlockRef } from "../../../../lib/protocol/block_ref.ts";
import type { RollupConfig } from "../../../../lib/protocol/rollup_config.ts";
import type { SpanBatch } from "../../../../lib/protocol/span_batch.ts";
import { spanBatchFromSingular } from "../../../../lib/protocol/span_batch_singular.ts";
import {
  checkSpanBatch,
  checkSpanBatchHolocene,
  checkSpanBatchPrefix,
  type SafeChain,
} from "../../../../lib/rollup/derive/check_span_batch.ts";
import { rollupFixture } from "./rollup_fixture.ts";

// L1 block n at time 996 + 4(n - 83); L2 block k at time 2k (genesis time 0, 2-second blocks, chain id 10).
const KEY = hexToBytes("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318");
const common = createCustomCommon({ chainId: 10 }, Mainnet, { hardfork: Hardfork.Prague });
const DEPOSIT = Uint8Array.of(0x7e, 0xf8, 0x01, 0x02);

function hashOf(tag: number, n: bigint): Uint8Array {
  const h = new Uint8Array(32);
  h[31] = tag;
  new DataView(h.buffer).setBigUint64(0, n);
  return h;
}
const l1Hash = (n: bigint) => hashOf(0xa1, n);
const l2Hash = (k: bigint) => hashOf(0xb2, k);

function l1(n: bigint, timestamp = 996n + 4n * (n - 83n)): L1BlockRef {
  return { number: n, hash: l1Hash(n), parentHash: l1Hash(n - 1n), timestamp };
}

function l2(k: bigint, origin: bigint): L2BlockRef {
  return {
    number: k,
    hash: l2Hash(k),
    parentHash: l2Hash(k - 1n),
    timestamp: 2n * k,
    l1Origin: { number: origin, hash: l1Hash(origin) },
    sequenceNumber: 0n,
  };
}

function tx(nonce: bigint): Uint8Array {
  return createFeeMarket1559Tx({
    nonce,
    gasLimit: 21_000n,
    to: `0x${"5a".repeat(20)}`,
    value: nonce + 1n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    chainId: 10n,
  }, { common }).sign(KEY).serialize();
}

function setCodeTx(): Uint8Array {
  const authorization = eoaCode7702SignAuthorization(
    { chainId: "0xa", address: `0x${"dd".repeat(20)}`, nonce: "0x1" },
    KEY,
  );
  return createEOACode7702Tx({
    nonce: 9n,
    gasLimit: 60_000n,
    to: `0x${"5a".repeat(20)}`,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    chainId: 10n,
    authorizationList: [authorization],
  }, { common }).sign(KEY).serialize();
}

const TX = [tx(0n), tx(1n), tx(2n), tx(3n), tx(4n)];

/** The batch of L2 block k on L1 origin `origin`. */
function single(k: bigint, origin: bigint, transactions: Uint8Array[] = []): SingularBatch {
  return {
    parentHash: l2Hash(k - 1n),
    epochNumber: origin,
    epochHash: l1Hash(origin),
    timestamp: 2n * k,
    transactions,
  };
}

function span(batches: SingularBatch[]): SpanBatch {
  return spanBatchFromSingular(batches, 0n, 10n);
}

/** A safe chain over given blocks; a missing block fails to fetch. */
function chain(blocks: { ref: L2BlockRef; txs: Uint8Array[] }[]): SafeChain & { fetches: bigint[] } {
  const byNumber = new Map(blocks.map((b) => [b.ref.number, b]));
  const fetches: bigint[] = [];
  const get = (n: bigint) => {
    fetches.push(n);
    const b = byNumber.get(n);
    if (b === undefined) return Promise.reject(new Error(`no block ${n}`));
    return Promise.resolve(b);
  };
  return {
    fetches,
    l2BlockRefByNumber: async (n) => (await get(n)).ref,
    transactionsByNumber: async (n) => (await get(n)).txs,
  };
}

const delta = (over: Partial<RollupConfig> = {}, forks: RollupConfig["forks"] = {}): RollupConfig => ({
  ...rollupFixture({ canyon: 0n, delta: 0n, ...forks }),
  ...over,
});
const safeHead = l2(500n, 83n); // time 1000, origin 83 at 996
const L1 = [l1(83n), l1(84n), l1(85n)];
const inclusion = l1(90n);
const noChain = chain([]);

Deno.test("check span batch: a span on the safe head across two epochs is accepted", async () => {
  const cfg = delta();
  const batch = span([
    single(501n, 83n, [TX[0]]),
    single(502n, 83n),
    single(503n, 83n),
    single(504n, 84n, [TX[1]]),
  ]);
  assertEquals(await checkSpanBatch(cfg, L1, safeHead, batch, inclusion, noChain), { validity: "accept" });
  const prefix = await checkSpanBatchPrefix(cfg, L1, safeHead, batch, inclusion, noChain);
  assertEquals(prefix, { validity: "accept", parent: safeHead });
  assertEquals(noChain.fetches, [], "no overlap, nothing fetched");
});

Deno.test("check span batch: Delta must be active at the span's L1 origin", async () => {
  const starting84 = span([single(504n, 84n), single(505n, 84n)]);
  const safe = l2(503n, 83n);
  const at = (deltaTime: bigint) => delta({}, { delta: deltaTime });
  assertEquals(
    (await checkSpanBatch(at(1000n), L1, safe, starting84, inclusion, noChain)).validity,
    "accept",
  );
  assertEquals((await checkSpanBatch(at(1001n), L1, safe, starting84, inclusion, noChain)).validity, "drop");
  // A span on the current epoch is judged by that epoch's time (996).
  const starting83 = span([single(501n, 83n)]);
  assertEquals(
    (await checkSpanBatch(at(996n), L1, safeHead, starting83, inclusion, noChain)).validity,
    "accept",
  );
  assertEquals(
    (await checkSpanBatch(at(997n), L1, safeHead, starting83, inclusion, noChain)).validity,
    "drop",
  );
});

Deno.test("check span batch: future and past spans, before and from Holocene (by inclusion time)", async () => {
  const future = span([single(502n, 83n), single(503n, 83n)]);
  const past = span([single(499n, 83n), single(500n, 83n)]);
  const pre = delta();
  const holo = delta({}, { holocene: inclusion.timestamp });
  assertEquals((await checkSpanBatch(pre, L1, safeHead, future, inclusion, noChain)).validity, "future");
  assertEquals((await checkSpanBatch(holo, L1, safeHead, future, inclusion, noChain)).validity, "drop");
  assertEquals((await checkSpanBatch(pre, L1, safeHead, past, inclusion, noChain)).validity, "drop");
  assertEquals((await checkSpanBatchHolocene(holo, L1, safeHead, past, inclusion, noChain)).validity, "past");
  const later = delta({}, { holocene: inclusion.timestamp + 1n });
  assertEquals((await checkSpanBatch(later, L1, safeHead, future, inclusion, noChain)).validity, "future");
});

Deno.test("check span batch: parent check, sequencing window and start epoch", async () => {
  const cfg = delta({ seqWindowSize: 10n });
  const check = (b: SpanBatch, incl = inclusion, blocks = L1) =>
    checkSpanBatch(cfg, blocks, safeHead, b, incl, noChain).then((c) => c.validity);
  const good = span([single(501n, 83n), single(502n, 84n)]);
  assertEquals(await check(good), "accept");
  assertEquals(await check(good, l1(93n)), "accept");
  assertEquals(await check(good, l1(94n)), "drop");
  const wrongParent = span([{ ...single(501n, 83n), parentHash: l2Hash(7n) }, single(502n, 83n)]);
  assertEquals(await check(wrongParent), "drop");
  // 85 is two L1 blocks after the parent's origin.
  const tooNew = span([single(501n, 85n)]);
  assertEquals(await check(tooNew), "drop");
  // 82 is older than the parent's origin, though the end origin (83) is known and right.
  const tooOld = span([single(501n, 82n), single(502n, 83n)]);
  assertEquals(await check(tooOld, inclusion, [l1(82n), ...L1]), "drop");
  // Advancing the epoch at the first block needs the next L1 block.
  assertEquals(await check(span([single(501n, 84n)]), inclusion, [l1(83n)]), "undecided");
  assertEquals(await check(good, inclusion, []), "undecided");
});

Deno.test("check span batch: the end L1 origin must be known and match the origin check", async () => {
  const cfg = delta();
  const check = (b: SpanBatch, blocks = L1) => checkSpanBatch(cfg, blocks, safeHead, b, inclusion, noChain);
  const to85 = [single(501n, 83n), single(502n, 84n), single(503n, 85n)];
  assertEquals((await check(span(to85))).validity, "accept");
  assertEquals((await check(span(to85), L1.slice(0, 2))).validity, "undecided");
  const wrongHash = span([...to85.slice(0, 2), { ...to85[2], epochHash: l1Hash(999n) }]);
  assertEquals((await check(wrongHash)).validity, "drop");
});

Deno.test("check span batch: per-block L1 origin time, sequencer drift and transactions", async () => {
  const cfg = delta();
  const check = (b: SpanBatch, safe = safeHead, blocks = L1) =>
    checkSpanBatch(cfg, blocks, safe, b, inclusion, noChain).then((c) => c.validity);
  // Block 499 (998) on origin 84 (1000): the L2 time is before the L1 origin's.
  assertEquals(await check(span([single(499n, 84n)]), l2(498n, 83n)), "drop");
  assertEquals(await check(span([single(500n, 84n)]), l2(499n, 83n)), "accept");
  // Past the drift: 1602 > 996 + 600.
  const late = l2(800n, 83n);
  assertEquals(await check(span([single(801n, 83n, [TX[0]])]), late), "drop");
  const emptyLate = span([single(801n, 83n)]);
  assertEquals(await check(emptyLate, late, [l1(83n)]), "undecided");
  assertEquals(await check(emptyLate, late), "drop", "84 (1000) could have been adopted");
  assertEquals(await check(emptyLate, late, [l1(83n), l1(84n, 1700n)]), "accept", "84 is later than 1602");
  // An empty block that adopts the next origin is never held to the drift.
  const adopting = span([single(800n, 84n)]);
  assertEquals(await check(adopting, l2(799n, 83n), [l1(83n), l1(84n, 999n)]), "accept");
  const staying = span([single(800n, 83n)]);
  assertEquals(await check(staying, l2(799n, 83n), [l1(83n), l1(84n, 999n)]), "drop");
  // Set-code transactions only from Isthmus (isthmus/derivation.md).
  const withSetCode = span([single(501n, 83n, [setCodeTx()])]);
  assertEquals(await check(withSetCode), "drop");
  const isthmus = delta({}, { isthmus: 0n });
  assertEquals(
    (await checkSpanBatch(isthmus, L1, safeHead, withSetCode, inclusion, noChain)).validity,
    "accept",
  );
});

/** Safe blocks 497..500 on origin 83, each with a deposit then the given transactions. */
function safeChain(txs: Uint8Array[][] = [[], [TX[0]], [TX[1], TX[2]], []]) {
  return chain(txs.map((t, i) => ({ ref: l2(497n + BigInt(i), 83n), txs: [DEPOSIT, ...t] })));
}
const overlapping = () =>
  span([single(499n, 83n, [TX[1], TX[2]]), single(500n, 83n), single(501n, 83n, [TX[3]]), single(502n, 83n)]);

Deno.test("check span batch: an overlapping span must match the safe chain", async () => {
  const cfg = delta();
  const ok = safeChain();
  assertEquals(await checkSpanBatch(cfg, L1, safeHead, overlapping(), inclusion, ok), { validity: "accept" });
  assertEquals(
    (await checkSpanBatchPrefix(cfg, L1, safeHead, overlapping(), inclusion, ok)).parent,
    l2(498n, 83n),
  );
  assert(ok.fetches.includes(499n) && ok.fetches.includes(500n), "overlapped blocks are read");
  const check = (l2chain: SafeChain) =>
    checkSpanBatch(cfg, L1, safeHead, overlapping(), inclusion, l2chain).then((c) => c.validity);
  assertEquals(await check(safeChain([[], [TX[0]], [TX[1], TX[4]], []])), "drop", "another transaction");
  assertEquals(await check(safeChain([[], [TX[0]], [TX[1]], []])), "drop", "another transaction count");
  assertEquals(await check(safeChain([[], [TX[0]], [TX[1], TX[2]], [TX[3]]])), "drop", "extra transaction");
  const otherOrigin = safeChain();
  const original = otherOrigin.l2BlockRefByNumber;
  otherOrigin.l2BlockRefByNumber = async (n) => {
    const ref = await original(n);
    return n === 500n ? { ...ref, l1Origin: { number: 82n, hash: l1Hash(82n) } } : ref;
  };
  assertEquals(await check(otherOrigin), "drop", "another L1 origin number");
  // A wrong parent (block 498) is found through the fetched parent.
  const otherParent = span([
    { ...single(499n, 83n, [TX[1], TX[2]]), parentHash: l2Hash(1n) },
    single(500n, 83n),
  ]);
  const longer = span([
    { ...single(499n, 83n, [TX[1], TX[2]]), parentHash: l2Hash(1n) },
    ...[500n, 501n].map((k) => single(k, 83n)),
  ]);
  assertEquals((await checkSpanBatch(cfg, L1, safeHead, otherParent, inclusion, ok)).validity, "drop");
  assertEquals((await checkSpanBatch(cfg, L1, safeHead, longer, inclusion, ok)).validity, "drop");
});

Deno.test("check span batch: misaligned overlap and failed safe chain reads", async () => {
  const cfg = delta();
  const shifted = (start: bigint): SpanBatch => ({ ...overlapping(), relTimestamp: start });
  assertEquals(
    (await checkSpanBatch(cfg, L1, safeHead, shifted(999n), inclusion, safeChain())).validity,
    "drop",
  );
  assertEquals(
    (await checkSpanBatch(cfg, L1, safeHead, shifted(1001n), inclusion, safeChain())).validity,
    "drop",
  );
  // The parent (498) cannot be read.
  const noParent = chain([499n, 500n].map((k) => ({ ref: l2(k, 83n), txs: [DEPOSIT] })));
  assertEquals(
    (await checkSpanBatch(cfg, L1, safeHead, overlapping(), inclusion, noParent)).validity,
    "undecided",
  );
  // An overlapped block (500) cannot be read.
  const gap = chain([498n, 499n].map((k) => ({ ref: l2(k, 83n), txs: [DEPOSIT, TX[1], TX[2]] })));
  assertEquals(
    (await checkSpanBatch(cfg, L1, safeHead, overlapping(), inclusion, gap)).validity,
    "undecided",
  );
});

Deno.test("check span batch: Holocene checks the prefix and the overlap, not the per-block rules", async () => {
  const cfg = delta({}, { holocene: 0n });
  const mismatch = safeChain([[], [TX[0]], [TX[4]], []]);
  const prefix = await checkSpanBatchPrefix(cfg, L1, safeHead, overlapping(), inclusion, mismatch);
  assertEquals(prefix.validity, "accept");
  const holocene = await checkSpanBatchHolocene(cfg, L1, safeHead, overlapping(), inclusion, mismatch);
  assertEquals(holocene.validity, "drop");
  const matching = await checkSpanBatchHolocene(cfg, L1, safeHead, overlapping(), inclusion, safeChain());
  assertEquals(matching, { validity: "accept", parent: l2(498n, 83n) });
  // Transactions past the drift are left to the singular batch checks.
  const late = l2(800n, 83n);
  const drifting = span([single(801n, 83n, [TX[0]])]);
  assertEquals(
    (await checkSpanBatchHolocene(cfg, L1, late, drifting, inclusion, noChain)).validity,
    "accept",
  );
  assertEquals((await checkSpanBatch(cfg, L1, late, drifting, inclusion, noChain)).validity, "drop");
});
