/**
 * EIP-4844 blob transactions as they travel (EIP-4844 "Networking"): the sidecar of blobs with their KZG
 * commitments and proofs, and the network form `0x03 || rlp([tx_payload_body, blobs, commitments,
 * proofs])` of a transaction whose canonical form (as blocks carry it) is `0x03 || rlp(tx_payload_body)`.
 * Shared by the execution client's pool and the batch submitter.
 */
import { RLP } from "@ethereumjs/rlp";
import type { KZG } from "@ethereumjs/util";
import { bytesToHex, concatBytes, hexToBytes } from "../common/bytes.ts";

/** Blobs with their commitments and proofs, in versioned-hash order (engine_getPayloadV3 BlobsBundleV1). */
export interface BlobsBundle {
  commitments: Uint8Array[];
  proofs: Uint8Array[];
  blobs: Uint8Array[];
}

/** Commitments and proofs for `blobs` (a batcher's blob transaction; tests and tools). */
export function blobSidecar(kzg: KZG, blobs: Uint8Array[]): BlobsBundle {
  const commitments = blobs.map((b) => hexToBytes(kzg.blobToKzgCommitment(bytesToHex(b)) as `0x${string}`));
  const proofs = blobs.map((b, i) =>
    hexToBytes(kzg.computeBlobProof(bytesToHex(b), bytesToHex(commitments[i])) as `0x${string}`)
  );
  return { commitments, proofs, blobs };
}

/** The network form of a blob transaction from its canonical encoding and its sidecar. */
export function blobNetworkEncoding(canonical: Uint8Array, sidecar: BlobsBundle): Uint8Array {
  const body = RLP.decode(canonical.subarray(1)) as Uint8Array[];
  return concatBytes(
    new Uint8Array([3]),
    RLP.encode([body, sidecar.blobs, sidecar.commitments, sidecar.proofs]),
  );
}
