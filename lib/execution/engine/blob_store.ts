/**
 * The blobs of the blob transactions in blocks built here (plain chains: the devnet's L1 and L1 dev
 * mode), as anvil keeps them: the pool drops a transaction's sidecar once a block includes it, and a
 * dev chain has no consensus client to hold it. Kept in the block's write group, by versioned hash
 * (blob, KZG commitment and proof) and by transaction hash (its versioned hashes), for
 * anvil_getBlobByHash and anvil_getBlobsByTransactionHash. A blob is 128 KiB: a dev chain's own.
 */
import { concatBytes } from "../../common/bytes.ts";
import { type KvStore, prefixedKey, PREFIXES } from "../../db/mod.ts";
import { type BlobsBundle, kzgToVersionedHash } from "../evm/mod.ts";

/** The sub-keys under PREFIXES.blob: a blob by versioned hash, a transaction's versioned hashes. */
const BY_VERSIONED_HASH = new Uint8Array([0]);
const BY_TX = new Uint8Array([1]);
const BLOB_BYTES = 131_072;
const KZG_BYTES = 48;

export interface StoredBlob {
  blob: Uint8Array;
  commitment: Uint8Array;
  proof: Uint8Array;
}

export class BlobStore {
  readonly #store: KvStore;

  constructor(store: KvStore) {
    this.#store = store;
  }

  /** Keeps the blobs of the blob transaction `txHash` (in the caller's write group). */
  put(txHash: Uint8Array, sidecar: BlobsBundle): void {
    const hashes: Uint8Array[] = [];
    for (let i = 0; i < sidecar.blobs.length; i++) {
      const versioned = kzgToVersionedHash(sidecar.commitments[i]);
      hashes.push(versioned);
      this.#store.put(
        prefixedKey(PREFIXES.blob, BY_VERSIONED_HASH, versioned),
        concatBytes(sidecar.blobs[i], sidecar.commitments[i], sidecar.proofs[i]),
      );
    }
    this.#store.put(prefixedKey(PREFIXES.blob, BY_TX, txHash), concatBytes(...hashes));
  }

  /** The blob with this versioned hash, if a block built here included it. */
  get(versionedHash: Uint8Array): StoredBlob | undefined {
    const raw = this.#store.get(prefixedKey(PREFIXES.blob, BY_VERSIONED_HASH, versionedHash));
    if (raw === undefined || raw.length !== BLOB_BYTES + 2 * KZG_BYTES) return undefined;
    return {
      blob: raw.subarray(0, BLOB_BYTES),
      commitment: raw.subarray(BLOB_BYTES, BLOB_BYTES + KZG_BYTES),
      proof: raw.subarray(BLOB_BYTES + KZG_BYTES),
    };
  }

  /** The versioned hashes of the blob transaction `txHash`, if a block built here included it. */
  versionedHashes(txHash: Uint8Array): Uint8Array[] | undefined {
    const raw = this.#store.get(prefixedKey(PREFIXES.blob, BY_TX, txHash));
    if (raw === undefined) return undefined;
    const out: Uint8Array[] = [];
    for (let at = 0; at + 32 <= raw.length; at += 32) out.push(raw.subarray(at, at + 32));
    return out;
  }
}
