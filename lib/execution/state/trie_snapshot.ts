/**
 * Tries kept in memory from one block to the next (the state-root worker, root_worker.ts): a
 * committed PendingTrie's nodes, cut to a memory budget level by level.
 */
import type { Branch, Ext, Node, Ref } from "./trie_node.ts";

/**
 * A committed trie kept in memory (PendingTrie.snapshot): the nodes loaded or built so far, each with
 * its hash. A later PendingTrie on the same root starts from it instead of reading its
 * nodes again (reth keeps the last block's sparse trie for the next block the same way:
 * crates/engine/tree/src/tree/payload_processor, PreservedSparseTrie).
 */
export interface TrieSnapshot {
  readonly root: Uint8Array;
  /** @internal */
  readonly node: Node | null;
}

/**
 * The snapshots to keep, by key: all of `changed`, then those of `before` not in it, most recently
 * kept first, up to `max` in all (so that tries not used for long are let go).
 */
export function keepSnapshots<K>(
  changed: Map<K, TrieSnapshot>,
  before: Map<K, TrieSnapshot>,
  max: number,
): Map<K, TrieSnapshot> {
  const out = new Map<K, TrieSnapshot>();
  for (const [k, s] of changed) out.set(k, s);
  // `before` lists the changed of its block first: those of older blocks follow, so the order is recency.
  for (const [k, s] of before) {
    if (out.size >= max) break;
    if (!out.has(k)) out.set(k, s);
  }
  return out;
}

/** Bytes a node held in memory costs, about: its parts (a branch's 16 children, a leaf's value) and their objects. */
function nodeBytes(node: Exclude<Node, Ref>): number {
  return node.t === 2 ? 800 : node.t === 0 ? 200 + node.value.length : 200;
}

/**
 * Cuts `snapshots` down to about `budget` bytes of nodes held in memory: whole levels are kept from
 * the roots down while they fit (the top levels are on nearly every path), and the nodes of the first
 * level that does not fit become references by hash again (read from the database when next needed).
 * A node referenced inline (its encoding under 32 bytes) stays with its parent. Returns the snapshots
 * (changed in place).
 */
export function pruneSnapshots(snapshots: TrieSnapshot[], budget: number): TrieSnapshot[] {
  let level: { parent: Branch | Ext; index: number; node: Exclude<Node, Ref> }[] = [];
  let used = 0;
  for (const s of snapshots) {
    const n = s.node;
    if (n === null || n.t === 3) continue;
    used += nodeBytes(n);
    level.push(...children(n));
  }
  while (level.length > 0) {
    let bytes = 0;
    for (const c of level) bytes += nodeBytes(c.node);
    if (used + bytes > budget) {
      for (const c of level) {
        const ref = c.node.hash;
        if (ref === undefined || c.node.stored !== true) continue;
        if (c.parent.t === 2) c.parent.children[c.index] = { t: 3, hash: ref };
        else c.parent.child = { t: 3, hash: ref };
      }
      break;
    }
    used += bytes;
    const next: typeof level = [];
    for (const c of level) next.push(...children(c.node));
    level = next;
  }
  return snapshots;
}

/** The loaded children of `node` with where they hang. */
function children(
  node: Exclude<Node, Ref>,
): { parent: Branch | Ext; index: number; node: Exclude<Node, Ref> }[] {
  if (node.t === 0) return [];
  if (node.t === 1) return node.child.t === 3 ? [] : [{ parent: node, index: 0, node: node.child }];
  const out = [];
  for (let i = 0; i < 16; i++) {
    const c = node.children[i];
    if (c !== null && c.t !== 3) out.push({ parent: node, index: i, node: c });
  }
  return out;
}
