/**
 * The @ethereumjs/mpt trie with its nodes decoded by keel's RLP codec (common/rlp.ts) when read from the
 * database. Upstream decodes every node it looks up with @ethereumjs/rlp, which copies each item: a dump
 * of the dev state (~2,300 accounts and ~2,000 slots, each looked up from the root) spent ~40% of its
 * time there (CPU profile), and every cold account or slot read of a block or an eth_call walks the
 * same path. The node objects are upstream's own (decodeRawMPTNode), built from the same decoded items.
 *
 * Each node's bytes are copied once before decoding, so the items are views of a private copy: a caller
 * that changes a value it read cannot reach the database's read cache (upstream copies for the same
 * reason). Storage tries made by shallowCopy are KeelTries too.
 */
import {
  decodeRawMPTNode,
  MerklePatriciaTrie,
  type MPTNode,
  type TrieShallowCopyOpts,
} from "@ethereumjs/mpt";
import { EthereumJSErrorWithoutCode } from "@ethereumjs/util";
import { rlpDecode } from "../../common/rlp.ts";

export class KeelTrie extends MerklePatriciaTrie {
  override async lookupNode(node: Uint8Array | Uint8Array[]): Promise<MPTNode> {
    if (Array.isArray(node)) return decodeRawMPTNode(node);
    const value = await this._db.get(this._getDbKey(node));
    if (value === undefined || value === null) {
      // Upstream's message: findPath and checkRoot recognise a missing node by it.
      throw EthereumJSErrorWithoutCode("Missing node in DB");
    }
    const raw = rlpDecode((value as Uint8Array).slice());
    if (!Array.isArray(raw)) throw EthereumJSErrorWithoutCode("Invalid node");
    return decodeRawMPTNode(raw as Uint8Array[]);
  }

  /** Upstream's copy (same options, database and root, no node cache), as a KeelTrie. */
  override shallowCopy(includeCheckpoints = true, opts?: TrieShallowCopyOpts): KeelTrie {
    const trie = new KeelTrie({
      ...this._opts,
      db: this._db.db.shallowCopy(),
      root: this.root(),
      cacheSize: 0,
      ...(opts ?? {}),
    });
    if (includeCheckpoints && this.hasCheckpoints()) trie._db.setCheckpoints(this._db.checkpoints);
    return trie;
  }
}
