/**
 * Blocks an import found invalid (geth rawdb WriteBadBlock): kept in the database, the ten with the
 * highest numbers, for debug_getBadBlocks, debug_traceBadBlock and debug_intermediateRoots, so that an
 * operator can see and replay what a newPayload refused. Each is written in a write of its own, after the
 * import's write group rolled back.
 */
import { type KvStore, prefixedKey, PREFIXES } from "../../db/mod.ts";
import { type Block, hashHeader } from "../../protocol/mod.ts";
import { decodeBlock, encodeBlock } from "../chain/mod.ts";

/** geth core/rawdb badBlockToKeep. */
export const BAD_BLOCKS_KEPT = 10;

const PREFIX = new Uint8Array([PREFIXES.badBlock]);

export interface BadBlock {
  hash: Uint8Array;
  block: Block;
  /** Its consensus RLP. */
  rlp: Uint8Array;
}

export class BadBlocks {
  readonly #store: KvStore;

  constructor(store: KvStore) {
    this.#store = store;
  }

  /** Keeps `block` (a block already kept is not written again); the lowest beyond ten is dropped. */
  record(block: Block, hash: Uint8Array = hashHeader(block.header)): void {
    const key = prefixedKey(PREFIXES.badBlock, hash);
    if (this.#store.has(key)) return;
    this.#store.put(key, encodeBlock(block));
    const all = this.list();
    if (all.length > BAD_BLOCKS_KEPT) {
      this.#store.batch(
        all.slice(BAD_BLOCKS_KEPT).map((b) => ({
          type: "del" as const,
          key: prefixedKey(PREFIXES.badBlock, b.hash),
        })),
      );
    }
  }

  /** The kept blocks, highest number first. */
  list(): BadBlock[] {
    const out: BadBlock[] = [];
    for (const [key, rlp] of this.#store.iterate(PREFIX)) {
      out.push({ hash: key.slice(1), block: decodeBlock(rlp), rlp });
    }
    return out.sort((a, b) => (a.block.header.number > b.block.header.number ? -1 : 1));
  }

  get(hash: Uint8Array): Block | undefined {
    const rlp = this.#store.get(prefixedKey(PREFIXES.badBlock, hash));
    return rlp === undefined ? undefined : decodeBlock(rlp);
  }
}
