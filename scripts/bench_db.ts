/**
 * Measures the storage layer on sqlite:
 *  - KvStore: puts/s inside one write group, point reads/s, prefix-scan rows/s;
 *  - ChainStore: blocks/s committed one write group each (header, body, receipts, indexes, head),
 *    and eth_getLogs over 1,000 blocks with one transfer log each (target: well under 10 ms).
 * Usage: deno run -A scripts/bench_db.ts [count=100000]
 */
import { SqliteStore } from "../lib/db/mod.ts";
import { keccak256 } from "../lib/common/hash.ts";
import { u64Key } from "../lib/db/prefixes.ts";
import { ChainStore } from "../lib/execution/chain/mod.ts";
import { addr, makeBlock, TOKEN, transferLog } from "../tests/unit/execution/chain/block_fixtures.ts";

const count = Number(Deno.args[0] ?? 100_000);
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000)).toLocaleString("en-US");
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

  console.log(`puts in one transaction: ${rate(count, putMs)}/s (${count} keys, ${putMs.toFixed(0)} ms)`);
  console.log(`point reads:             ${rate(count, getMs)}/s`);
  console.log(`prefix scan:             ${rate(rows, scanMs)} rows/s`);

  const chainStore = SqliteStore.open(`${dir}/chain.sqlite`);
  const chain = new ChainStore({}, { store: chainStore });
  let parent = makeBlock(undefined, []);
  chain.putBlock(parent.block, parent.receipts);
  chain.setCanonicalHead(parent.hash);
  const blocks = 1000;
  t = performance.now();
  for (let i = 1; i <= blocks; i++) {
    const made = makeBlock({ hash: parent.hash, number: BigInt(i - 1) }, [
      { salt: `t${i}`, logs: [transferLog(TOKEN, addr(i), addr(i + 1), BigInt(i))] },
    ]);
    chainStore.transaction(() => {
      chain.putBlock(made.block, made.receipts, { hash: made.hash });
      chain.setCanonicalHead(made.hash);
    });
    parent = made;
  }
  const blockMs = performance.now() - t;
  console.log(`block commits (1 tx):    ${rate(blocks, blockMs)} blocks/s, one sqlite transaction each`);

  const fresh = new ChainStore({}, { store: chainStore });
  for (let i = 0; i < 10; i++) fresh.getLogs({ fromBlock: 1n, toBlock: 1000n });
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    t = performance.now();
    const n = fresh.getLogs({ fromBlock: 1n, toBlock: 1000n, addresses: [TOKEN] }).length;
    times.push(performance.now() - t);
    if (n !== 1000) throw new Error(`getLogs returned ${n} logs`);
  }
  times.sort((a, b) => a - b);
  console.log(
    `getLogs 1,000 blocks:    median ${times[25].toFixed(2)} ms, min ${times[0].toFixed(2)} ms (1,000 logs)`,
  );
  chainStore.close();
} finally {
  await Deno.remove(dir, { recursive: true });
}
