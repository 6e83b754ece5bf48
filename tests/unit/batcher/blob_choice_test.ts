/**
 * `--data-availability-type=auto` (batcher.ts blobCheaper, op-batcher's DynamicEthChannelConfig): blobs
 * while a byte in a blob costs no more than a byte of calldata at the L1's fees of the moment.
 */
import { blobCheaper } from "../../../lib/batcher/mod.ts";
import { assertEquals } from "../../assert.ts";

const GWEI = 1_000_000_000n;

Deno.test("blobCheaper: blobs at a low blob base fee, calldata at a high one, the turn where the costs per byte meet", () => {
  const base = { baseFee: GWEI, tip: GWEI, calldataBytes: 120_000, blobsPerTx: 1 };
  assertEquals(blobCheaper({ ...base, blobBaseFee: 1n }), true);
  assertEquals(blobCheaper({ ...base, blobBaseFee: 1_000n * GWEI }), false);
  // Per byte: calldata (120,000 * 16 + 21,000) * 2 gwei / 120,000; blobs (131,072 * b + 21,000 * 2 gwei)
  // / 130,044. Equal at b = (1,941,000 * 130,044 - 21,000 * 120,000) * 2 gwei / (131,072 * 120,000).
  const price = 2n * GWEI;
  const turn = ((1_941_000n * 130_044n - 21_000n * 120_000n) * price) / (131_072n * 120_000n);
  assertEquals(blobCheaper({ ...base, blobBaseFee: turn }), true);
  assertEquals(blobCheaper({ ...base, blobBaseFee: turn + 1n }), false);
  // More blobs a transaction share its 21,000 gas: the turn moves up a little.
  assertEquals(blobCheaper({ ...base, blobsPerTx: 6, blobBaseFee: turn + 1n }), true);
});
