/**
 * The state-root worker's trie work alone (state/batch_trie.ts PendingTrie): a state trie of N accounts,
 * and per block every account's leaf changed in a few batches, hashed ahead and committed to an
 * in-memory node store, as the worker does for a block of N/1 transfers (scripts/bench_block.ts).
 *
 *   deno run -A scripts/bench_trie.ts [--accounts N] [--blocks N] [--batches N] [--cold]
 *
 * `--cold` starts each block from the root (every node read and decoded again) instead of the last
 * block's snapshot.
 */
import { bytesToHex as hex } from "../lib/common/bytes.ts";
import { keccak256, keccakReady } from "../lib/common/hash.ts";
import { rlpEncode } from "../lib/common/rlp.ts";
import { EMPTY_TRIE_ROOT } from "../lib/protocol/block.ts";
import { type NodeDb, PendingTrie, type TrieUpdate } from "../lib/execution/state/batch_trie.ts";
import { internKey } from "../lib/execution/state/trie_node.ts";
import type { TrieSnapshot } from "../lib/execution/state/trie_snapshot.ts";

function arg(name: string): string | undefined {
  const i = Deno.args.indexOf(name);
  return i < 0 ? undefined : Deno.args[i + 1];
}
const ACCOUNTS = Number(arg("--accounts") ?? 1000);
const BLOCKS = Number(arg("--blocks") ?? 50);
const BATCHES = Number(arg("--batches") ?? 4);
const COLD = Deno.args.includes("--cold");
await keccakReady;

const nodes = new Map<string, Uint8Array>();
const db: NodeDb = {
  get: (k) => Promise.resolve(nodes.get(hex(k))),
  put: (k, v) => void nodes.set(hex(k), v),
};
const keys = Array.from({ length: ACCOUNTS }, (_, i) => internKey(keccak256(Uint8Array.of(i >> 8, i & 255))));
const CODE = keccak256(new Uint8Array());
const leaf = (nonce: bigint, balance: bigint) => rlpEncode([nonce, balance, EMPTY_TRIE_ROOT, CODE]);

let trie = new PendingTrie(db, EMPTY_TRIE_ROOT);
await trie.update(keys.map((key) => ({ key, value: leaf(0n, 10n ** 21n) })));
await trie.commit();
let snap: TrieSnapshot = trie.snapshot();
const times: number[] = [];
for (let b = 1; b <= BLOCKS; b++) {
  const t0 = performance.now();
  trie = new PendingTrie(db, COLD ? snap.root : snap);
  const per = Math.ceil(ACCOUNTS / BATCHES);
  for (let i = 0; i < ACCOUNTS; i += per) {
    const updates: TrieUpdate[] = [];
    for (let j = i; j < Math.min(ACCOUNTS, i + per); j++) {
      updates.push({ key: keys[j], value: leaf(BigInt(b), 10n ** 21n - BigInt(b) * 21_000n) });
    }
    await trie.update(updates);
    trie.prehash(2);
  }
  await trie.commit();
  snap = trie.snapshot();
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
console.log(
  `${ACCOUNTS} accounts, ${BATCHES} batches, ${COLD ? "cold" : "from the snapshot"}: median ${
    times[times.length >> 1].toFixed(2)
  } ms a block, best ${times[0].toFixed(2)}, worst ${times[times.length - 1].toFixed(2)}`,
);
