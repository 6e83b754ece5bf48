/**
 * The part of the beacon API anvil 1.7.1 serves on its HTTP port, for tools that read a dev chain's blobs
 * as a rollup node reads L1's: `GET /eth/v1/beacon/genesis` (the genesis block's timestamp, zero
 * validators root and fork version) and `GET /eth/v1/beacon/blobs/{block_id}` (the blobs of a block's
 * blob transactions in block order, the block by number or hash, `versioned_hashes` to choose; Deneb's
 * blob_sidecars is answered 410 there, pointing to it). Answers and errors in anvil's shapes. The blobs
 * are the ones the blocks built here kept (engine BlobStore).
 *
 * Beyond anvil, so that a rollup node reads this chain's blobs as it reads L1's (rollup/l1/beacon_client.ts,
 * op-node's L1BeaconClient; the devnet with blob data availability): `GET /eth/v1/node/version`,
 * `GET /eth/v1/config/spec` (SECONDS_PER_SLOT 1) and Deneb's `GET /eth/v1/beacon/blob_sidecars/{slot}`
 * where slot s is the block with timestamp genesis_time + s (a dev chain seals at any second: with
 * one-second slots each block has its own slot, and a slot without a block is 404 as an empty slot),
 * `indices` to choose; each sidecar with index, blob, kzg_commitment and kzg_proof, the fields a rollup
 * node checks (no signed header or inclusion proof: there is no beacon chain behind it).
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
    getHeaderByNumber(number: bigint): Header | undefined;
    getHeadHeader(label: "latest"): Header | undefined;
    getBlockByHash(hash: Uint8Array): Block | undefined;
  };
  blobs: {
    get(
      versionedHash: Uint8Array,
    ): { blob: Uint8Array; commitment: Uint8Array; proof: Uint8Array } | undefined;
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

/** The canonical block whose timestamp is `time` (binary search: timestamps increase), if any. */
function blockAtTime(source: BeaconSource, time: bigint): Block | undefined {
  let lo = 0n;
  let hi = source.chain.getHeadHeader("latest")?.number ?? -1n;
  while (lo <= hi) {
    const mid = (lo + hi) / 2n;
    const header = source.chain.getHeaderByNumber(mid);
    if (header === undefined) return undefined;
    if (header.timestamp === time) {
      const hash = source.chain.getCanonicalHash(mid);
      return hash === undefined ? undefined : source.chain.getBlockByHash(hash);
    }
    if (header.timestamp < time) lo = mid + 1n;
    else hi = mid - 1n;
  }
  return undefined;
}

/** The stored blobs of `block`'s blob transactions, in block order (their index in the block). */
function blobsOf(
  source: BeaconSource,
  block: Block,
): { versioned: Uint8Array; blob?: ReturnType<BeaconSource["blobs"]["get"]> }[] {
  const out = [];
  for (const encoded of block.transactions) {
    if (encoded[0] !== 3) continue;
    for (const versioned of source.blobs.versionedHashes(keccak256(encoded)) ?? []) {
      out.push({ versioned, blob: source.blobs.get(versioned) });
    }
  }
  return out;
}

/** Deneb's blob_sidecars by slot (one-second slots from the genesis time). */
function blobSidecars(s: BeaconSource, id: string, query: URLSearchParams): Response {
  if (!/^\d{1,20}$/.test(id)) return error(400, `Invalid block ID: ${id} (a slot number is expected)`);
  const genesis = s.chain.getHeaderByHash(s.genesisHash);
  if (genesis === undefined) return error(404, "Genesis block not found");
  const block = blockAtTime(s, genesis.timestamp + BigInt(id));
  if (block === undefined) return error(404, `No block at slot ${id}`);
  const indices = query.getAll("indices").flatMap((v) => v.split(",")).filter((v) => v !== "");
  if (indices.some((i) => !/^\d{1,6}$/.test(i))) return error(400, "Invalid indices");
  const wanted = indices.length === 0 ? undefined : new Set(indices.map(Number));
  const data = [];
  for (const [index, { blob }] of blobsOf(s, block).entries()) {
    if (blob === undefined || (wanted !== undefined && !wanted.has(index))) continue;
    data.push({
      index: String(index),
      blob: bytesToHex(blob.blob),
      kzg_commitment: bytesToHex(blob.commitment),
      kzg_proof: bytesToHex(blob.proof),
    });
  }
  return json({ execution_optimistic: false, finalized: false, data });
}

/** The GET routes for `source()` (the chain served at the time of the request). */
export function devBeaconRoutes(source: () => BeaconSource, version = "keel"): RestGet {
  return (path, query) => {
    if (path === "/eth/v1/node/version") return json({ data: { version } });
    if (path === "/eth/v1/config/spec") return json({ data: { SECONDS_PER_SLOT: "1" } });
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
    const sidecars = /^\/eth\/v1\/beacon\/blob_sidecars\/([^/]+)$/.exec(path);
    if (sidecars !== null) return blobSidecars(source(), sidecars[1], query);
    const m = /^\/eth\/v1\/beacon\/blobs\/([^/]+)$/.exec(path);
    if (m === null) return undefined;
    const s = source();
    const block = blockOf(s, m[1]);
    if (block === null) return error(400, `Invalid block ID: ${m[1]}`);
    if (block === undefined) return error(404, "Block not found");
    const wanted = wantedHashes(query);
    const data: string[] = [];
    for (const { versioned, blob } of blobsOf(s, block)) {
      if (blob === undefined || (wanted !== undefined && !wanted.has(bytesToHex(versioned)))) continue;
      data.push(bytesToHex(blob.blob));
    }
    return json({ execution_optimistic: false, finalized: false, data });
  };
}
