/**
 * The part of the beacon API anvil 1.7.1 serves on its HTTP port, for tools that read a dev chain's blobs
 * as a rollup node reads L1's: `GET /eth/v1/beacon/genesis` (the genesis block's timestamp, zero
 * validators root and fork version) and `GET /eth/v1/beacon/blobs/{block_id}` (the blobs of a block's
 * blob transactions in block order, the block by number or hash, `versioned_hashes` to choose; Deneb's
 * blob_sidecars is answered 410 there, pointing to it). Answers and errors in anvil's shapes. The blobs
 * are the ones the blocks built here kept (engine BlobStore).
 */
import { bytesToHex, hexToBytes } from "../../../common/bytes.ts";
import { keccak256 } from "../../../common/hash.ts";
import type { Block, Header } from "../../../protocol/mod.ts";
import type { RestGet } from "../../../rpc/mod.ts";

export interface BeaconSource {
  genesisHash: Uint8Array;
  chain: {
    getCanonicalHash(number: bigint): Uint8Array | undefined;
    getHeaderByHash(hash: Uint8Array): Header | undefined;
    getBlockByHash(hash: Uint8Array): Block | undefined;
  };
  blobs: {
    get(versionedHash: Uint8Array): { blob: Uint8Array } | undefined;
    versionedHashes(txHash: Uint8Array): Uint8Array[] | undefined;
  };
}

const ZERO32 = bytesToHex(new Uint8Array(32));

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function error(status: number, message: string): Response {
  return json({ code: status, message }, status);
}

/** The block of a block id: a decimal number or a 32-byte hash; null when malformed, undefined when unknown. */
function blockOf(source: BeaconSource, id: string): Block | null | undefined {
  let hash: Uint8Array | undefined;
  if (/^\d{1,20}$/.test(id)) hash = source.chain.getCanonicalHash(BigInt(id));
  else if (/^0x[0-9a-fA-F]{64}$/.test(id)) hash = hexToBytes(id as `0x${string}`);
  else return null;
  return hash === undefined ? undefined : source.chain.getBlockByHash(hash);
}

/** `versioned_hashes` as a list param (repeated, or comma-separated), lowercase; undefined when absent. */
function wantedHashes(query: URLSearchParams): Set<string> | undefined {
  const all = query.getAll("versioned_hashes").flatMap((v) => v.split(",")).filter((v) => v !== "");
  return all.length === 0 ? undefined : new Set(all.map((v) => v.toLowerCase()));
}

/** The GET routes for `source()` (the chain served at the time of the request). */
export function devBeaconRoutes(source: () => BeaconSource): RestGet {
  return (path, query) => {
    if (path === "/eth/v1/beacon/genesis") {
      const s = source();
      const genesis = s.chain.getHeaderByHash(s.genesisHash);
      if (genesis === undefined) return error(404, "Genesis block not found");
      return json({
        data: {
          genesis_time: genesis.timestamp.toString(),
          genesis_validators_root: ZERO32,
          genesis_fork_version: "0x00000000",
        },
      });
    }
    if (path.startsWith("/eth/v1/beacon/blob_sidecars/")) {
      return error(410, "This endpoint is deprecated. Use `GET /eth/v1/beacon/blobs/{block_id}` instead.");
    }
    const m = /^\/eth\/v1\/beacon\/blobs\/([^/]+)$/.exec(path);
    if (m === null) return undefined;
    const s = source();
    const block = blockOf(s, m[1]);
    if (block === null) return error(400, `Invalid block ID: ${m[1]}`);
    if (block === undefined) return error(404, "Block not found");
    const wanted = wantedHashes(query);
    const data: string[] = [];
    for (const encoded of block.transactions) {
      if (encoded[0] !== 3) continue;
      for (const versioned of s.blobs.versionedHashes(keccak256(encoded)) ?? []) {
        const hex = bytesToHex(versioned);
        if (wanted !== undefined && !wanted.has(hex)) continue;
        const blob = s.blobs.get(versioned)?.blob;
        if (blob !== undefined) data.push(bytesToHex(blob));
      }
    }
    return json({ execution_optimistic: false, finalized: false, data });
  };
}
