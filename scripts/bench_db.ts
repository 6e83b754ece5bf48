/**
 * Measures the sqlite KvStore: puts/s inside one write group, point reads/s, prefix-scan rows/s.
 * Usage: deno run -A scripts/bench_db.ts [count=100000]
 */
import { SqliteStore } from "../lib/db/mod.ts";
import { keccak256 } from "../lib/common/hash.ts";
import { u64Key } from "../lib/db/prefixes.ts";

const count = Number(Deno.args[0] ?? 100_000);
const dir = await Deno.makeTempDir({ prefix: "keel-bench-db-" });
try {
  const store = SqliteStore.open(`${dir}/keel.sqlite`);
  const keys: Uint8Array[] = [];
  for (let i = 0; i < count; i++) keys.push(keccak256(u64Key(i)));
  const value = new Uint8Array(100).fill(7);

  let t = performance.now();
  store.transaction(() => {
    for (const k of keys) store.put(k, value);
  });
  const putMs = performance.now() - t;

  t = performance.now();
  let found = 0;
  for (let i = 0; i < count; i++) if (store.get(keys[(i * 7919) % count]) !== undefined) found++;
  const getMs = performance.now() - t;
  if (found !== count) throw new Error(`lost keys: ${count - found}`);

  t = performance.now();
  let rows = 0;
  for (const _ of store.iterate(new Uint8Array())) rows++;
  const scanMs = performance.now() - t;
  store.close();

  const rate = (n: number, ms: number) => Math.round(n / (ms / 1000)).toLocaleString("en-US");
  console.log(`puts in one transaction: ${rate(count, putMs)}/s (${count} keys, ${putMs.toFixed(0)} ms)`);
  console.log(`point reads:             ${rate(count, getMs)}/s`);
  console.log(`prefix scan:             ${rate(rows, scanMs)} rows/s`);
} finally {
  await Deno.remove(dir, { recursive: true });
}
