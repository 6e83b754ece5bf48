/**
 * Offline state pruning (`keel execution prune`, as `geth snapshot prune-state`): the database keeps
 * every trie node of every block (archive), and each block rewrites the paths it changes, so a chain
 * grows by those copies (~40 KB a block on an OP chain, whose every block writes the L1-info deposit's
 * state). Pruning keeps the nodes reachable from the state roots asked for (the recent blocks'), with
 * their storage tries and contract code, and deletes every other trie node and code row.
 *
 * Trie nodes are content-addressed and shared between roots: a node is kept when any kept root reaches
 * it. The walk reads every kept node once; a node missing on the way stops the prune before anything is
 * deleted. Run it while no node has the data dir open (the database lock sees to that).
 */
import { bytesToHex, equalBytes, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { rlpDecode } from "../../common/rlp.ts";
import { type KvStore, PREFIXES } from "../../db/mod.ts";
import { EMPTY_TRIE_ROOT } from "../../protocol/block.ts";
import { decodeNode, type Node, type Raw } from "./trie_node.ts";

/** keccak256 of empty code: an account without code. */
const EMPTY_CODE_HASH = hexToBytes("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
/** The code rows' key byte after the trie-node prefix (`c` ‖ code hash, as the state manager writes them). */
const CODE_KEY = 0x63;
/** Rows deleted per write group. */
const DELETE_BATCH = 10_000;

function nodeKey(hash: Uint8Array): Uint8Array {
  const key = new Uint8Array(33);
  key[0] = PREFIXES.trieNode;
  key.set(hash, 1);
  return key;
}

/** What the kept roots reach: trie node hashes and code hashes (unprefixed hex). */
export interface Reachable {
  nodes: Set<string>;
  codes: Set<string>;
}

/**
 * A walk of everything the state `roots` reach (their tries, their accounts' storage tries and code),
 * in steps: the online pruner (online_prune.ts) walks between blocks, a few thousand nodes at a time.
 * Throws PRUNE_MISSING_NODE when a node is not in `store`.
 */
export class ReachableWalk {
  readonly reach: Reachable = { nodes: new Set(), codes: new Set() };
  readonly #store: KvStore;
  /** [hash, true for a state trie (leaves are accounts)] */
  readonly #stack: [Uint8Array, boolean][];

  constructor(store: KvStore, roots: readonly Uint8Array[]) {
    this.#store = store;
    this.#stack = roots.map((r) => [r, true]);
  }

  get done(): boolean {
    return this.#stack.length === 0;
  }

  /** Reads up to `maxNodes` more nodes; true when the walk is complete. */
  step(maxNodes = Infinity): boolean {
    const stack = this.#stack;
    const out = this.reach;
    const visit = (node: Node, state: boolean) => {
      switch (node.t) {
        case 3:
          stack.push([node.hash, state]);
          return;
        case 2:
          for (const child of node.children) if (child !== null) visit(child, state);
          return;
        case 1:
          visit(node.child, state);
          return;
        case 0: {
          if (!state) return;
          const account = rlpDecode(node.value) as Uint8Array[];
          if (!Array.isArray(account) || account.length !== 4) {
            throw new BaseError("PRUNE_BAD_ACCOUNT", "Cannot prune: a state trie leaf is not an account");
          }
          const [, , storageRoot, codeHash] = account;
          if (!equalBytes(storageRoot, EMPTY_TRIE_ROOT)) stack.push([storageRoot, false]);
          if (!equalBytes(codeHash, EMPTY_CODE_HASH)) out.codes.add(bytesToHex(codeHash).slice(2));
        }
      }
    };
    let read = 0;
    while (stack.length > 0 && read < maxNodes) {
      const [hash, state] = stack.pop()!;
      if (equalBytes(hash, EMPTY_TRIE_ROOT)) continue;
      const hex = bytesToHex(hash).slice(2);
      if (out.nodes.has(hex)) continue;
      const rlp = this.#store.get(nodeKey(hash));
      read++;
      if (rlp === undefined) {
        throw new BaseError(
          "PRUNE_MISSING_NODE",
          `Cannot prune: trie node ${hex} of a kept state is not in the database (nothing was deleted)`,
        );
      }
      out.nodes.add(hex);
      visit(decodeNode(rlpDecode(rlp) as Raw[]), state);
    }
    return stack.length === 0;
  }
}

/**
 * Every trie node and code hash reachable from the state `roots`: the state tries, the storage tries
 * of their accounts and the accounts' code. Throws PRUNE_MISSING_NODE when a node is not in `store`.
 */
export function markReachable(store: KvStore, roots: readonly Uint8Array[]): Reachable {
  const walk = new ReachableWalk(store, roots);
  walk.step();
  return walk.reach;
}

/** One page of the sweep (sweepPage). */
export interface SweepPage {
  /** Rows to delete: trie nodes and code rows neither reached nor spared. */
  doomed: Uint8Array[];
  kept: number;
  codesKept: number;
  nodesDoomed: number;
  codesDoomed: number;
  /** Where the next page starts; undefined after the last. */
  next: Uint8Array | undefined;
}

/**
 * Reads up to `limit` rows of the trie-node prefix from `start` and picks those to delete: the ones
 * `reach` does not name and `spare` (a row key without its prefix byte, as hex) does not keep.
 */
export function sweepPage(
  store: KvStore,
  reach: Reachable,
  start: Uint8Array | undefined,
  limit: number,
  spare: (keyHex: string) => boolean = () => false,
): SweepPage {
  const page: SweepPage = {
    doomed: [],
    kept: 0,
    codesKept: 0,
    nodesDoomed: 0,
    codesDoomed: 0,
    next: undefined,
  };
  let last: Uint8Array | undefined;
  let rows = 0;
  for (const [key] of store.iterate(new Uint8Array([PREFIXES.trieNode]), { start, limit })) {
    last = key;
    rows++;
    const isNode = key.length === 33;
    if (!isNode && !(key.length === 34 && key[1] === CODE_KEY)) continue;
    const hex = bytesToHex(key.subarray(1)).slice(2);
    const reached = isNode ? reach.nodes.has(hex) : reach.codes.has(hex.slice(2));
    if (reached || spare(hex)) {
      if (isNode) page.kept++;
      else page.codesKept++;
    } else {
      if (isNode) page.nodesDoomed++;
      else page.codesDoomed++;
      page.doomed.push(key);
    }
  }
  if (last !== undefined && rows === limit) {
    // The smallest key after the page's last.
    page.next = new Uint8Array(last.length + 1);
    page.next.set(last);
  }
  return page;
}

export interface PruneResult {
  /** Trie nodes kept and deleted. */
  kept: number;
  deleted: number;
  /** Code rows kept and deleted. */
  codesKept: number;
  codesDeleted: number;
}

/** Deletes every trie node and code row the state `roots` do not reach (see the file comment). */
export function pruneState(store: KvStore, roots: readonly Uint8Array[]): PruneResult {
  const reach = markReachable(store, roots);
  const result: PruneResult = { kept: 0, deleted: 0, codesKept: 0, codesDeleted: 0 };
  // In pages, deleting between them: rows are never deleted under an open iterator.
  let start: Uint8Array | undefined;
  do {
    const page = sweepPage(store, reach, start, DELETE_BATCH);
    result.kept += page.kept;
    result.codesKept += page.codesKept;
    result.deleted += page.nodesDoomed;
    result.codesDeleted += page.codesDoomed;
    if (page.doomed.length > 0) store.batch(page.doomed.map((key) => ({ type: "del" as const, key })));
    start = page.next;
  } while (start !== undefined);
  return result;
}
