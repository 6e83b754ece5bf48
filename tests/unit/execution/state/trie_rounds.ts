/**
 * Rounds of random trie updates over a small pool of 32-byte keys (tests): a key of an earlier update
 * again, a sibling sharing its first 31 bytes, or a new one, so that shared prefixes, extensions and
 * collapsing branches are likely; some updates delete.
 */
import type { TrieUpdate } from "../../../../lib/execution/state/mod.ts";
import { prng } from "../../../prng.ts";

export interface TrieRoundsOptions {
  /** At most this many updates a round (at least one). */
  maxUpdates: number;
  /** Share of updates that delete. */
  deletes: number;
  /** Values of 1..maxValue bytes (encodings under 32 bytes are inlined in their parent). */
  maxValue: number;
}

export function trieRounds(seed: number, count: number, options: TrieRoundsOptions): TrieUpdate[][] {
  const rand = prng(seed);
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
  const keys: Uint8Array[] = [];
  const out: TrieUpdate[][] = [];
  for (let r = 0; r < count; r++) {
    const updates: TrieUpdate[] = [];
    const n = 1 + Math.floor(rand() * options.maxUpdates);
    for (let i = 0; i < n; i++) {
      const x = rand();
      let key: Uint8Array;
      if (keys.length > 0 && x < 0.5) key = keys[Math.floor(rand() * keys.length)];
      else if (keys.length > 0 && x < 0.7) {
        key = keys[Math.floor(rand() * keys.length)].slice();
        key[31] ^= 1 + Math.floor(rand() * 255);
      } else key = bytes(32);
      keys.push(key);
      updates.push({
        key,
        value: rand() < options.deletes ? null : bytes(1 + Math.floor(rand() * options.maxValue)),
      });
    }
    out.push(updates);
  }
  return out;
}
