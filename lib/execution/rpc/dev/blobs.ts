/**
 * anvil_getBlobByHash and anvil_getBlobsByTransactionHash: the blobs of blob transactions, from the blocks
 * built here (engine BlobStore: plain chains, the devnet's L1) or still in the pool; null for what is
 * neither (an unknown hash, a transaction without blobs), as anvil 1.7.1 answers.
 */
import { bytesToHex, type Hex } from "../../../common/bytes.ts";
import { defineMethod, s } from "../../../rpc/mod.ts";
import type { DevContext } from "./backend.ts";

export function blobMethods(ctx: DevContext) {
  return [
    defineMethod({
      name: "anvil_getBlobByHash",
      params: [s.hash()],
      handler: ([versionedHash]): Hex | null => {
        const blob = ctx.chain.blobs.get(versionedHash)?.blob ??
          ctx.chain.pool.getBlobs([versionedHash])[0]?.blob;
        return blob === undefined ? null : bytesToHex(blob);
      },
    }),
    defineMethod({
      name: "anvil_getBlobsByTransactionHash",
      params: [s.hash()],
      handler: ([txHash]): Hex[] | null => {
        const hashes = ctx.chain.blobs.versionedHashes(txHash);
        if (hashes !== undefined) {
          const blobs = hashes.map((h) => ctx.chain.blobs.get(h)?.blob);
          if (blobs.every((b) => b !== undefined)) return blobs.map((b) => bytesToHex(b!));
        }
        const pooled = ctx.chain.pool.blobSidecar(txHash);
        return pooled === undefined ? null : pooled.blobs.map((b) => bytesToHex(b));
      },
    }),
  ];
}
