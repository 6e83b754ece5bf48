/**
 * A one-pass Merkle-Patricia trie builder for a known, complete set of keys (Yellow Paper appendix D):
 * keys are sorted once and every node is hashed once, instead of one root-to-leaf walk per insert.
 * Used for the genesis state, where thousands of accounts are written into an empty trie.
 * Keys must all have the same length (hashed keys: 32 bytes), so no branch carries a value.
 */
import { RLP } from "@ethereumjs/rlp";
import { keccak256 } from "../../common/hash.ts";
import { EMPTY_TRIE_ROOT } from "../../protocol/block.ts";

type Raw = Uint8Array | Raw[];

interface BuiltNode {
  raw: Raw;
  encoded: Uint8Array;
}

/** Receives each node that is referenced by hash: (keccak256(node), rlp(node)). */
export type NodeSink = (hash: Uint8Array, node: Uint8Array) => void;

function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

const nibble = (key: Uint8Array, pos: number) => (pos & 1) === 0 ? key[pos >> 1] >> 4 : key[pos >> 1] & 15;

/** Hex-prefix encoding of key[from, to) in nibbles (Yellow Paper appendix C). */
function hexPrefix(key: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const len = to - from;
  const odd = len & 1;
  const out = new Uint8Array(1 + (len >> 1));
  let pos = from;
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  if (odd) out[0] |= nibble(key, pos++);
  for (let i = 1; i < out.length; i++, pos += 2) out[i] = (nibble(key, pos) << 4) | nibble(key, pos + 1);
  return out;
}

/**
 * The root of the trie holding `entries` (key -> value; values already in their stored form, e.g.
 * RLP of an account). Nodes of 32 bytes or more, and the root, are passed to `sink`.
 * Later duplicates of a key replace earlier ones. Empty values are not allowed (they mean "absent").
 */
export function buildTrie(entries: [Uint8Array, Uint8Array][], sink: NodeSink): Uint8Array {
  const byKey = new Map<string, [Uint8Array, Uint8Array]>();
  for (const e of entries) byKey.set(String.fromCharCode(...e[0]), e);
  const sorted = [...byKey.values()].sort((x, y) => compare(x[0], y[0]));
  if (sorted.length === 0) return EMPTY_TRIE_ROOT;
  const keyNibbles = sorted[0][0].length * 2;

  const make = (raw: Raw): BuiltNode => ({ raw, encoded: RLP.encode(raw) });
  const ref = (n: BuiltNode): Raw => {
    if (n.encoded.length < 32) return n.raw;
    const hash = keccak256(n.encoded);
    sink(hash, n.encoded);
    return hash;
  };
  const build = (lo: number, hi: number, depth: number): BuiltNode => {
    const first = sorted[lo][0];
    if (hi - lo === 1) return make([hexPrefix(first, depth, keyNibbles, true), sorted[lo][1]]);
    const last = sorted[hi - 1][0];
    let split = depth;
    while (split < keyNibbles && nibble(first, split) === nibble(last, split)) split++;
    const children: Raw[] = [];
    let i = lo;
    for (let n = 0; n < 16; n++) {
      let j = i;
      while (j < hi && nibble(sorted[j][0], split) === n) j++;
      children.push(j > i ? ref(build(i, j, split + 1)) : new Uint8Array());
      i = j;
    }
    const branch = make([...children, new Uint8Array()]);
    if (split === depth) return branch;
    return make([hexPrefix(first, depth, split, false), ref(branch)]);
  };
  const root = build(0, sorted.length, 0);
  const hash = keccak256(root.encoded);
  sink(hash, root.encoded);
  return hash;
}
