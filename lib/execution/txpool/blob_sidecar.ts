/**
 * Blob transactions in the pool of a plain (L1) chain (EIP-4844 "Networking"): they arrive only in the
 * network form `0x03 || rlp([tx_payload_body, blobs, commitments, proofs])`, their sidecar is checked
 * (versioned hashes, KZG proofs: evm/kzg.ts) and kept next to the pooled transaction, and the pool
 * answers engine_getBlobsV1 by versioned hash (execution-apis cancun.md "engine_getBlobsV1").
 * Blocks carry the canonical form `0x03 || rlp(tx_payload_body)`.
 */
import { RLP } from "@ethereumjs/rlp";
import type { TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex, concatBytes, type Hex, hexToBytes } from "../../common/bytes.ts";
import type { BlobsBundle } from "../evm/mod.ts";
export { blobNetworkEncoding } from "../../protocol/blob_tx.ts";
import { txPoolError } from "./errors.ts";

/** A network-form blob transaction split into its canonical encoding and its sidecar. */
export interface BlobNetworkTx {
  /** `0x03 || rlp(tx_payload_body)`: the transaction as blocks carry it (its hash is the tx hash). */
  canonical: Uint8Array;
  sidecar: BlobsBundle;
}

function bytesList(item: unknown, what: string): Uint8Array[] {
  if (!Array.isArray(item) || item.some((x) => !(x instanceof Uint8Array))) {
    throw txPoolError("INVALID_TRANSACTION", `blob transaction ${what} must be a list of byte strings`);
  }
  return item as Uint8Array[];
}

/**
 * Splits a type-3 transaction in network form. The canonical form (no sidecar) is refused, as geth's
 * pool refuses it ("missing sidecar in blob transaction"); so is the Osaka cell-proof wrapper.
 */
export function splitBlobNetworkTx(raw: Uint8Array): BlobNetworkTx {
  let decoded: unknown;
  try {
    decoded = RLP.decode(raw.subarray(1));
  } catch (e) {
    throw txPoolError(
      "INVALID_TRANSACTION",
      `cannot decode blob transaction: ${(e as Error).message}`,
      {},
      e,
    );
  }
  if (!Array.isArray(decoded) || decoded.length === 0) {
    throw txPoolError("INVALID_TRANSACTION", "blob transaction is not an RLP list");
  }
  if (!Array.isArray(decoded[0])) {
    throw txPoolError("INVALID_TRANSACTION", "missing sidecar in blob transaction");
  }
  if (decoded.length !== 4) {
    throw txPoolError(
      "INVALID_TRANSACTION",
      `blob transaction network wrapper has ${decoded.length} items, want 4 (tx, blobs, commitments, proofs)`,
    );
  }
  const body = decoded[0] as Uint8Array[];
  return {
    canonical: concatBytes(new Uint8Array([3]), RLP.encode(body)),
    sidecar: {
      blobs: bytesList(decoded[1], "blobs"),
      commitments: bytesList(decoded[2], "commitments"),
      proofs: bytesList(decoded[3], "proofs"),
    },
  };
}

/** The sidecar an @ethereumjs blob transaction object carries (network-wrapper fields), if any. */
export function sidecarOfTx(tx: TypedTransaction): BlobsBundle | undefined {
  const t = tx as { blobs?: Hex[]; kzgCommitments?: Hex[]; kzgProofs?: Hex[] };
  if (t.blobs === undefined || t.kzgCommitments === undefined || t.kzgProofs === undefined) return undefined;
  return {
    blobs: t.blobs.map((b) => hexToBytes(b)),
    commitments: t.kzgCommitments.map((c) => hexToBytes(c)),
    proofs: t.kzgProofs.map((p) => hexToBytes(p)),
  };
}

/** The versioned hashes of a blob transaction, as bytes. */
export function versionedHashesOf(tx: TypedTransaction): Uint8Array[] {
  const hashes = (tx as { blobVersionedHashes?: Hex[] }).blobVersionedHashes ?? [];
  return hashes.map((h) => hexToBytes(h));
}

/** One blob and its proof (engine_getBlobsV1 BlobAndProofV1). */
export interface BlobAndProof {
  blob: Uint8Array;
  proof: Uint8Array;
}

/** Sidecars of pooled blob transactions, by tx hash and by versioned hash. */
export class BlobIndex {
  readonly #byTx = new Map<Hex, { hashes: Hex[]; sidecar: BlobsBundle }>();
  readonly #byVersionedHash = new Map<Hex, { tx: Hex; index: number }>();

  add(txHash: Hex, versionedHashes: readonly Uint8Array[], sidecar: BlobsBundle): void {
    const hashes = versionedHashes.map((h) => bytesToHex(h).toLowerCase() as Hex);
    this.#byTx.set(txHash, { hashes, sidecar });
    hashes.forEach((h, index) => this.#byVersionedHash.set(h, { tx: txHash, index }));
  }

  remove(txHash: Hex): void {
    const entry = this.#byTx.get(txHash);
    if (entry === undefined) return;
    this.#byTx.delete(txHash);
    for (const h of entry.hashes) {
      if (this.#byVersionedHash.get(h)?.tx === txHash) this.#byVersionedHash.delete(h);
    }
  }

  /** The sidecar of a pooled transaction. */
  sidecar(txHash: Hex): BlobsBundle | undefined {
    return this.#byTx.get(txHash)?.sidecar;
  }

  /** The blob with `versionedHash` and its proof, when a pooled transaction carries it. */
  blob(versionedHash: Uint8Array): BlobAndProof | undefined {
    const at = this.#byVersionedHash.get(bytesToHex(versionedHash).toLowerCase() as Hex);
    if (at === undefined) return undefined;
    const s = this.#byTx.get(at.tx)!.sidecar;
    return { blob: s.blobs[at.index], proof: s.proofs[at.index] };
  }

  get size(): number {
    return this.#byTx.size;
  }
}

/**
 * Sidecars of recently included blob transactions, so that a transaction a reorg takes out of the chain
 * (which blocks carry without its blobs) can return to the pool with them (go-ethereum
 * core/txpool/blobpool limbo). Bounded by blob count; the oldest go first.
 */
export class BlobLimbo {
  readonly maxBlobs: number;
  readonly #sidecars = new Map<Hex, BlobsBundle>();
  #blobs = 0;

  constructor(maxBlobs: number) {
    this.maxBlobs = maxBlobs;
  }

  put(txHash: Hex, sidecar: BlobsBundle): void {
    this.take(txHash);
    this.#sidecars.set(txHash, sidecar);
    this.#blobs += sidecar.blobs.length;
    while (this.#blobs > this.maxBlobs) this.take(this.#sidecars.keys().next().value as Hex);
  }

  /** Removes and returns the sidecar of `txHash`. */
  take(txHash: Hex): BlobsBundle | undefined {
    const sidecar = this.#sidecars.get(txHash);
    if (sidecar === undefined) return undefined;
    this.#sidecars.delete(txHash);
    this.#blobs -= sidecar.blobs.length;
    return sidecar;
  }

  get size(): number {
    return this.#sidecars.size;
  }
}
