/**
 * Lru benchmark (lib/common/lru.ts), in the shape of the state-root worker's node cache: a cache full
 * of 40,000 trie nodes (16 MiB by weight), then per block 1,300 reads of cached nodes and 1,365 new
 * nodes (a block of 1,000 transfers). Figure to beat: 5-11 ms a block for the inserts with the order kept
 * in the Map by delete and re-insert (before the linked list).
 *
 *   deno run scripts/bench_lru.ts [--blocks N]
 */
import { Lru } from "../lib/common/lru.ts";

const i = Deno.args.indexOf("--blocks");
const BLOCKS = i >= 0 ? Number(Deno.args[i + 1]) : 40;
const FULL = 40_000;
const READS = 1_300;
const WRITES = 1_365;

const lru = new Lru<string, Uint8Array>(16 * 1024 * 1024, (v) => v.length + 100);
const node = new Uint8Array(300);
const key = (n: number) => n.toString(16).padStart(64, "0");
let next = 0;
while (lru.size < FULL) lru.set(key(next++), node);

let reads = 0;
let writes = 0;
for (let b = 0; b < BLOCKS; b++) {
  const t0 = performance.now();
  for (let r = 0; r < READS; r++) lru.get(key(next - 1 - ((r * 7) % (FULL / 2))));
  const t1 = performance.now();
  for (let w = 0; w < WRITES; w++) lru.set(key(next++), node);
  const t2 = performance.now();
  if (b >= BLOCKS / 4) {
    reads += t1 - t0;
    writes += t2 - t1;
  }
}
const timed = BLOCKS - Math.ceil(BLOCKS / 4);
console.log(
  `Lru of ${lru.size} entries: ${(reads / timed).toFixed(2)} ms for ${READS} reads, ` +
    `${
      (writes / timed).toFixed(2)
    } ms for ${WRITES} inserts a block (mean of the last ${timed} of ${BLOCKS} blocks)`,
);
