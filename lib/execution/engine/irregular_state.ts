/**
 * State changed outside transactions, for the dev methods (anvil_setBalance, anvil_setCode,
 * anvil_setNonce, anvil_setStorageAt, evm_revert): the block whose state was changed keeps its header,
 * and reads at that block, and blocks built on it, use the new state root recorded here. This is
 * hardhat's "irregular state" (EDR keeps a state root override per block) and what anvil shows: after
 * anvil_setBalance the balance reads at `latest` without a new block.
 *
 * Each override is a row under PREFIXES.devStateRoot (block hash -> state root), written in the same
 * write group as the trie nodes of the new state, so a restart keeps it. Only `keel execution --dev`
 * writes any: on every other chain the map stays empty and a block's state is its header's root.
 */
import { bytesToHex } from "../../common/bytes.ts";
import { type KvStore, prefixedKey, PREFIXES } from "../../db/mod.ts";
import { hashHeader, type Header } from "../../protocol/mod.ts";

export class IrregularState {
  readonly #store: KvStore;
  /** Block hash (0x hex) -> the state root that replaces the header's. */
  readonly #roots = new Map<string, Uint8Array>();

  constructor(store: KvStore) {
    this.#store = store;
    const prefix = new Uint8Array([PREFIXES.devStateRoot]);
    for (const [key, root] of store.iterate(prefix)) {
      this.#roots.set(bytesToHex(key.subarray(1)), root.slice());
    }
  }

  get size(): number {
    return this.#roots.size;
  }

  /** The state root of the block `header` (with hash `hash` when known): the override, else its own. */
  rootOf(header: Header, hash?: Uint8Array): Uint8Array {
    if (this.#roots.size === 0) return header.stateRoot;
    return this.#roots.get(bytesToHex(hash ?? hashHeader(header))) ?? header.stateRoot;
  }

  /** The override of block `hash`, if any. */
  get(hash: Uint8Array): Uint8Array | undefined {
    return this.#roots.get(bytesToHex(hash));
  }

  /**
   * Records `root` as block `hash`'s state (undefined: back to the header's). Call inside the store's
   * write group; the in-memory map follows when it commits.
   */
  set(hash: Uint8Array, root: Uint8Array | undefined): void {
    const key = prefixedKey(PREFIXES.devStateRoot, hash);
    const id = bytesToHex(hash);
    if (root === undefined) {
      this.#store.del(key);
      this.#store.onCommit(() => this.#roots.delete(id));
    } else {
      this.#store.put(key, root);
      const kept = root.slice();
      this.#store.onCommit(() => this.#roots.set(id, kept));
    }
  }
}
