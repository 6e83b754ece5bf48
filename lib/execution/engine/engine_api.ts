/**
 * The Engine API over the ExecutionEngine (ethereum/execution-apis `src/engine/` paris, shanghai,
 * cancun, prague; OP additions in specs/protocol/exec-engine.md and the holocene, isthmus, jovian
 * exec-engine.md). Plain data in and out; `engine_rpc.ts` puts it on the wire, and the embedded
 * rollup node calls it in-process.
 *
 * Version rules follow go-ethereum's eth/catalyst/api.go (op-geth): a method version outside its
 * fork answers -38005, a structure of the wrong version -32602 (or -38003 for attributes).
 * Payload building happens at forkchoiceUpdated time: the block is executed and stored (not
 * canonical) at once, so getPayload is a lookup and newPayload of the same block is "known".
 */
import { Hardfork } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { bigIntToBytes, bytesToHex, concatBytes, equalBytes } from "../../common/bytes.ts";
import { BaseError, isErrorCode } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import { getLogger } from "../../common/logger.ts";
import {
  compareProtocolVersions,
  formatProtocolVersion,
  KEEL_PROTOCOL_VERSION,
} from "../../protocol/protocol_version.ts";
import {
  type EngineApi,
  type EngineVersion,
  type ExecutionPayload,
  type ExecutionPayloadEnvelope,
  type ForkchoiceState,
  type ForkchoiceUpdatedResult,
  hashHeader,
  type PayloadAttributes,
  type PayloadStatus,
} from "../../protocol/mod.ts";
import { type BlobsBundle, checkRequestList, forkRules } from "../evm/mod.ts";
import type { BlobAndProof } from "../txpool/mod.ts";
import { type BuiltBlock, ENGINE_ERRORS } from "./engine_types.ts";
import { hasState } from "./state_pruning.ts";
import type { ExecutionEngine } from "./execution_engine.ts";
import { blockToPayload, encodeWithdrawalItems, payloadToBlock } from "./payload.ts";

/** Engine API error codes (execution-apis `src/engine/common.md` "Errors"). */
export const ENGINE_RPC_CODES = {
  INVALID_PARAMS: -32602,
  UNKNOWN_PAYLOAD: -38001,
  INVALID_FORKCHOICE_STATE: -38002,
  INVALID_PAYLOAD_ATTRIBUTES: -38003,
  TOO_LARGE_REQUEST: -38004,
  UNSUPPORTED_FORK: -38005,
} as const;

/** BaseError codes the Engine API throws; `meta.rpcCode` carries the JSON-RPC code. */
export const ENGINE_API_ERRORS = {
  INVALID_PARAMS: "ENGINE_API_INVALID_PARAMS",
  UNKNOWN_PAYLOAD: "ENGINE_API_UNKNOWN_PAYLOAD",
  INVALID_FORKCHOICE_STATE: "ENGINE_API_INVALID_FORKCHOICE_STATE",
  INVALID_PAYLOAD_ATTRIBUTES: "ENGINE_API_INVALID_PAYLOAD_ATTRIBUTES",
  UNSUPPORTED_FORK: "ENGINE_API_UNSUPPORTED_FORK",
  TOO_LARGE_REQUEST: "ENGINE_API_TOO_LARGE_REQUEST",
} as const;

/** The standard messages (execution-apis common.md). */
export const ENGINE_RPC_MESSAGES: Record<keyof typeof ENGINE_API_ERRORS, string> = {
  INVALID_PARAMS: "Invalid params",
  UNKNOWN_PAYLOAD: "Unknown payload",
  INVALID_FORKCHOICE_STATE: "Invalid forkchoice state",
  INVALID_PAYLOAD_ATTRIBUTES: "Invalid payload attributes",
  UNSUPPORTED_FORK: "Unsupported fork",
  TOO_LARGE_REQUEST: "Too large request",
};

/** An Engine API error: `message` is the detail, `meta.rpcCode` the JSON-RPC code. */
export function engineApiError(
  kind: keyof typeof ENGINE_API_ERRORS,
  detail: string,
  cause?: unknown,
): BaseError {
  return new BaseError(ENGINE_API_ERRORS[kind], `${ENGINE_RPC_MESSAGES[kind]}: ${detail}`, {
    meta: { rpcCode: ENGINE_RPC_CODES[kind], detail },
    cause,
  });
}

/** engine_getClientVersionV1's ClientVersionV1 (execution-apis identification.md). */
export interface ClientVersion {
  code: string;
  name: string;
  version: string;
  /** First 4 bytes of the commit, 0x-hex. */
  commit: string;
}

export interface ExecutionEngineApiOptions {
  /** Built payloads kept for getPayload (geth keeps 10). */
  payloadCacheSize: number;
  /** Invalid block hashes remembered, so their descendants are refused without work. */
  invalidCacheSize: number;
  /** Reported by engine_getClientVersionV1. */
  clientVersion: string;
  /** Full or abbreviated commit hash (hex); its first 4 bytes are reported. */
  clientCommit: string;
}

export const DEFAULT_EXECUTION_ENGINE_API_OPTIONS: ExecutionEngineApiOptions = {
  // eth/catalyst/queue.go maxTrackedPayloads = 10; a few more cover a sequencer's retries.
  payloadCacheSize: 16,
  // eth/catalyst/api.go invalidBlockHitEviction-style bound: a small recent set.
  invalidCacheSize: 128,
  clientVersion: "0.1.0",
  clientCommit: "00000000",
};

/** Two-letter client code: "KL" (keel) is not among the codes of execution-apis identification.md. */
export const CLIENT_CODE = "KL";

/** The Engine API methods keel serves (engine_exchangeCapabilities). */
export const ENGINE_CAPABILITIES = [
  "engine_forkchoiceUpdatedV1",
  "engine_forkchoiceUpdatedV2",
  "engine_forkchoiceUpdatedV3",
  "engine_getPayloadV2",
  "engine_getPayloadV3",
  "engine_getPayloadV4",
  "engine_newPayloadV2",
  "engine_newPayloadV3",
  "engine_newPayloadV4",
  "engine_getClientVersionV1",
  "engine_getBlobsV1",
  "engine_signalSuperchainV1",
] as const;

/** engine_getBlobsV1 answers at most this many versioned hashes (cancun.md "engine_getBlobsV1"). */
export const MAX_BLOB_HASHES_PER_REQUEST = 128;

/** getPayloadV3/V4's envelope with the blobs of the block's blob transactions (BlobsBundleV1). */
export type ExecutionPayloadEnvelopeWithBlobs = ExecutionPayloadEnvelope & { blobsBundle?: BlobsBundle };

interface CachedPayload {
  built: BuiltBlock;
  version: EngineVersion;
  parentBeaconBlockRoot?: Uint8Array;
  /** The sidecars of the block's blob transactions, taken from the pool when the block was built. */
  blobsBundle: BlobsBundle;
}

const ZERO32 = new Uint8Array(32);

function status(
  kind: PayloadStatus["status"],
  latestValidHash: Uint8Array | null,
  validationError: string | null = null,
): PayloadStatus {
  return { status: kind, latestValidHash, validationError };
}

export class ExecutionEngineApi implements EngineApi {
  readonly options: ExecutionEngineApiOptions;
  readonly engine: ExecutionEngine;
  #payloads = new Map<string, CachedPayload>();
  #invalid = new Map<string, { error: string; latestValid: Uint8Array | null }>();
  readonly #log = getLogger(["execution", "engine"]);

  constructor(options: Partial<ExecutionEngineApiOptions>, deps: { engine: ExecutionEngine }) {
    this.options = { ...DEFAULT_EXECUTION_ENGINE_API_OPTIONS, ...options };
    this.engine = deps.engine;
  }

  #rules(timestamp: bigint): { shanghai: boolean; cancun: boolean; prague: boolean } {
    const common = forkRules(this.engine.config, timestamp).common;
    return {
      shanghai: common.gteHardfork(Hardfork.Shanghai),
      cancun: common.gteHardfork(Hardfork.Cancun),
      prague: common.gteHardfork(Hardfork.Prague),
    };
  }

  /** Per-version attribute checks, as geth's ForkchoiceUpdatedV1/V2/V3. */
  #checkAttributes(version: EngineVersion, a: PayloadAttributes): void {
    const r = this.#rules(a.timestamp);
    const bad = (d: string) => engineApiError("INVALID_PAYLOAD_ATTRIBUTES", d);
    if (version === 1) {
      if (a.withdrawals !== undefined) throw bad("withdrawals not supported in V1");
      if (a.parentBeaconBlockRoot !== undefined) throw bad("parentBeaconBlockRoot not supported in V1");
      if (r.shanghai) {
        throw engineApiError("UNSUPPORTED_FORK", "forkchoiceUpdatedV1 is for pre-Shanghai payloads");
      }
    } else if (version === 2) {
      if (a.parentBeaconBlockRoot !== undefined) throw bad("unexpected parentBeaconBlockRoot");
      if (!r.shanghai && a.withdrawals !== undefined) throw bad("withdrawals before Shanghai");
      if (r.shanghai && a.withdrawals === undefined) throw bad("missing withdrawals");
      if (r.cancun) {
        throw engineApiError(
          "UNSUPPORTED_FORK",
          "forkchoiceUpdatedV2 must only be called with pre-Cancun payloads",
        );
      }
    } else if (version === 3) {
      if (a.withdrawals === undefined) throw bad("missing withdrawals");
      if (a.parentBeaconBlockRoot === undefined) throw bad("missing parentBeaconBlockRoot");
      if (!r.cancun) {
        throw engineApiError(
          "UNSUPPORTED_FORK",
          "forkchoiceUpdatedV3 must only be called for Cancun or later payloads",
        );
      }
    } else {
      throw engineApiError("UNSUPPORTED_FORK", `forkchoiceUpdatedV${version} does not exist`);
    }
    if (a.withdrawals !== undefined && a.withdrawals.length > 0 && this.engine.config.op !== undefined) {
      // exec-engine.md "Extended PayloadAttributesV2": withdrawals must be empty on OP.
      throw bad("withdrawals must be empty on an OP chain");
    }
  }

  /** geth-style payload id: 8 bytes, the version in the first byte, the rest from the inputs. */
  payloadId(version: EngineVersion, head: Uint8Array, a: PayloadAttributes): Uint8Array {
    const parts: Uint8Array[] = [
      head,
      bigIntToBytes(a.timestamp, 8),
      a.prevRandao,
      a.suggestedFeeRecipient,
      RLP.encode((a.withdrawals ?? []).map(encodeWithdrawalItems)),
      a.parentBeaconBlockRoot ?? new Uint8Array(),
      new Uint8Array([a.noTxPool === true ? 1 : 0]),
      RLP.encode(a.transactions ?? []),
      a.gasLimit === undefined ? new Uint8Array() : bigIntToBytes(a.gasLimit, 8),
      a.eip1559Params ?? new Uint8Array(),
      a.minBaseFee === undefined ? new Uint8Array() : bigIntToBytes(a.minBaseFee, 8),
    ];
    const id = keccak256(concatBytes(...parts)).slice(0, 8);
    id[0] = version;
    return id;
  }

  async forkchoiceUpdated(
    version: EngineVersion,
    state: ForkchoiceState,
    attributes?: PayloadAttributes | null,
  ): Promise<ForkchoiceUpdatedResult> {
    if (attributes) this.#checkAttributes(version, attributes);
    if (equalBytes(state.headBlockHash, ZERO32)) {
      return {
        payloadStatus: status("INVALID", null, "forkchoice requested update to zero hash"),
        payloadId: null,
      };
    }
    const known = this.#invalid.get(bytesToHex(state.headBlockHash));
    if (known !== undefined) {
      return { payloadStatus: status("INVALID", known.latestValid, known.error), payloadId: null };
    }
    const head = this.engine.chain.getHeaderByHash(state.headBlockHash);
    if (head === undefined) return { payloadStatus: status("SYNCING", null), payloadId: null };
    // A block whose state was pruned (--gcmode full) cannot be the head: nothing could be built or read on
    // it. As for an unknown block, SYNCING and the head stays.
    if (!hasState(this.engine.store, this.engine.irregular.rootOf(head, state.headBlockHash))) {
      return { payloadStatus: status("SYNCING", null), payloadId: null };
    }
    try {
      await this.engine.forkchoiceUpdate(state.headBlockHash, state.safeBlockHash, state.finalizedBlockHash);
    } catch (e) {
      if (isErrorCode(e, ENGINE_ERRORS.INVALID_FORKCHOICE)) {
        throw engineApiError("INVALID_FORKCHOICE_STATE", (e as Error).message, e);
      }
      throw e;
    }
    const valid = status("VALID", state.headBlockHash);
    if (!attributes) return { payloadStatus: valid, payloadId: null };
    const id = this.payloadId(version, state.headBlockHash, attributes);
    const key = bytesToHex(id);
    if (!this.#payloads.has(key)) {
      let built: BuiltBlock;
      try {
        built = await this.engine.buildBlock(state.headBlockHash, attributes);
      } catch (e) {
        if (isErrorCode(e, ENGINE_ERRORS.INVALID_ATTRIBUTES)) {
          throw engineApiError("INVALID_PAYLOAD_ATTRIBUTES", (e as Error).message, e);
        }
        throw e;
      }
      this.#remember(this.#payloads, key, {
        built,
        version,
        parentBeaconBlockRoot: attributes.parentBeaconBlockRoot,
        blobsBundle: this.#blobsBundle(built),
      }, this.options.payloadCacheSize);
    }
    return { payloadStatus: valid, payloadId: id };
  }

  /**
   * The pooled sidecars of a built block's blob transactions, in block order (cancun.md "BlobsBundleV1":
   * commitments, proofs and blobs in the order of the versioned hashes). The builder takes blob
   * transactions only from the pool, which keeps their sidecars until they are included.
   */
  #blobsBundle(built: BuiltBlock): BlobsBundle {
    const bundle: BlobsBundle = { commitments: [], proofs: [], blobs: [] };
    for (const r of built.results) {
      if (r.type !== 3) continue;
      const sidecar = this.engine.pool.blobSidecar(r.txHash);
      if (sidecar === undefined) continue;
      bundle.commitments.push(...sidecar.commitments);
      bundle.proofs.push(...sidecar.proofs);
      bundle.blobs.push(...sidecar.blobs);
    }
    return bundle;
  }

  /**
   * engine_getBlobsV1 (cancun.md): the pooled blob and proof for each versioned hash, null where none is
   * pooled; more than 128 hashes is -38004.
   */
  getBlobs(versionedHashes: Uint8Array[]): (BlobAndProof | null)[] {
    if (versionedHashes.length > MAX_BLOB_HASHES_PER_REQUEST) {
      throw engineApiError(
        "TOO_LARGE_REQUEST",
        `${versionedHashes.length} versioned hashes, at most ${MAX_BLOB_HASHES_PER_REQUEST}`,
      );
    }
    return this.engine.pool.getBlobs(versionedHashes);
  }

  async getPayload(
    version: EngineVersion,
    payloadId: Uint8Array,
  ): Promise<ExecutionPayloadEnvelopeWithBlobs> {
    await Promise.resolve();
    const cached = this.#payloads.get(bytesToHex(payloadId));
    if (cached === undefined) {
      throw engineApiError("UNKNOWN_PAYLOAD", `no payload with id ${bytesToHex(payloadId)}`);
    }
    const { block, hash, blockValue, requests } = cached.built;
    const r = this.#rules(block.header.timestamp);
    const unsupported = (d: string) => engineApiError("UNSUPPORTED_FORK", d);
    if (version <= 2 && r.cancun) throw unsupported(`getPayloadV${version} is for pre-Cancun payloads`);
    if (version === 3 && (!r.cancun || r.prague)) throw unsupported("getPayloadV3 is for Cancun payloads");
    if (version === 4 && !r.prague) throw unsupported("getPayloadV4 is for Prague payloads");
    if (version > 4) throw unsupported(`getPayloadV${version} does not exist`);
    const payload = blockToPayload(block, hash);
    if (this.#isthmus(block.header.timestamp)) payload.withdrawalsRoot = block.header.withdrawalsRoot;
    const envelope: ExecutionPayloadEnvelopeWithBlobs = { executionPayload: payload, blockValue };
    if (version >= 3) {
      envelope.parentBeaconBlockRoot = block.header.parentBeaconBlockRoot;
      envelope.shouldOverrideBuilder = false;
      envelope.blobsBundle = cached.blobsBundle;
    }
    // prague.md "engine_getPayloadV4": the block's EIP-7685 requests (L1); OP chains have none.
    if (version >= 4) envelope.executionRequests = requests ?? [];
    return envelope;
  }

  #isthmus(timestamp: bigint): boolean {
    const op = this.engine.config.op;
    return op !== undefined && op.forks.isthmus !== undefined && timestamp >= op.forks.isthmus;
  }

  /** Per-version payload checks, as geth's NewPayloadV1..V4 (-32602 / -38005). */
  #checkPayload(
    version: EngineVersion,
    p: ExecutionPayload,
    versionedHashes: Uint8Array[] | undefined,
    beaconRoot: Uint8Array | undefined,
    requests: Uint8Array[] | undefined,
  ): void {
    const r = this.#rules(p.timestamp);
    const params = (d: string) => engineApiError("INVALID_PARAMS", d);
    const unsupported = (d: string) => engineApiError("UNSUPPORTED_FORK", d);
    if (version <= 2) {
      if (r.cancun) throw unsupported(`newPayloadV${version} is for pre-Cancun payloads`);
      if (r.shanghai && p.withdrawals === undefined) throw params("nil withdrawals post-Shanghai");
      if (!r.shanghai && p.withdrawals !== undefined) throw params("non-nil withdrawals pre-Shanghai");
      if (p.blobGasUsed !== undefined || p.excessBlobGas !== undefined) {
        throw params("non-nil blobGasUsed or excessBlobGas pre-Cancun");
      }
      if (version === 1 && p.withdrawals !== undefined) throw params("withdrawals not supported in V1");
    } else {
      if (p.withdrawals === undefined) throw params("nil withdrawals post-Shanghai");
      if (p.excessBlobGas === undefined) throw params("nil excessBlobGas post-Cancun");
      if (p.blobGasUsed === undefined) throw params("nil blobGasUsed post-Cancun");
      if (versionedHashes === undefined) throw params("nil versionedHashes post-Cancun");
      if (beaconRoot === undefined) throw params("nil parentBeaconBlockRoot post-Cancun");
      if (version === 3 && (!r.cancun || r.prague)) throw unsupported("newPayloadV3 is for Cancun payloads");
      if (version === 4) {
        if (requests === undefined) throw params("nil executionRequests post-Prague");
        if (!r.prague) throw unsupported("newPayloadV4 is for Prague payloads");
        if (this.engine.config.op !== undefined && requests.length > 0) {
          // isthmus/exec-engine.md "engine_newPayloadV4": executionRequests must be empty.
          throw params("non-empty executionRequests on an OP chain");
        }
        try {
          // prague.md "engine_newPayloadV4": ascending types, no duplicates, no element of 1 byte or less.
          checkRequestList(requests);
        } catch (e) {
          throw params((e as Error).message);
        }
      }
      if (version > 4) throw unsupported(`newPayloadV${version} does not exist`);
    }
    const isthmus = this.#isthmus(p.timestamp);
    if (isthmus && p.withdrawalsRoot === undefined) throw params("nil withdrawalsRoot post-Isthmus");
    if (!isthmus && p.withdrawalsRoot !== undefined) throw params("non-nil withdrawalsRoot pre-Isthmus");
  }

  async newPayload(
    version: EngineVersion,
    payload: ExecutionPayload,
    versionedHashes?: Uint8Array[],
    parentBeaconBlockRoot?: Uint8Array,
    executionRequests?: Uint8Array[],
  ): Promise<PayloadStatus> {
    this.#checkPayload(version, payload, versionedHashes, parentBeaconBlockRoot, executionRequests);
    const block = payloadToBlock(payload, {
      parentBeaconBlockRoot: version >= 3 ? parentBeaconBlockRoot : undefined,
      executionRequests: version >= 4 ? executionRequests : undefined,
    });
    const hash = hashHeader(block.header);
    if (!equalBytes(hash, payload.blockHash)) {
      const msg = `blockhash mismatch, want ${bytesToHex(payload.blockHash)}, got ${bytesToHex(hash)}`;
      // paris.md: INVALID_BLOCK_HASH in V1; shanghai.md onward: INVALID with latestValidHash null.
      return version === 1 ? status("INVALID_BLOCK_HASH", null, msg) : status("INVALID", null, msg);
    }
    if (version >= 3) {
      const got = this.#blobHashes(payload);
      const want = versionedHashes ?? [];
      if (got.length !== want.length || got.some((h, i) => !equalBytes(h, want[i]))) {
        return status("INVALID", null, "invalid blob versioned hashes");
      }
    }
    if (this.engine.chain.getHeaderByHash(hash) !== undefined) return status("VALID", hash);
    const parentKey = bytesToHex(payload.parentHash);
    const badParent = this.#invalid.get(parentKey);
    if (badParent !== undefined) {
      const error = `links to previously rejected block ${parentKey}`;
      this.#remember(
        this.#invalid,
        bytesToHex(hash),
        { error, latestValid: badParent.latestValid },
        this.options.invalidCacheSize,
      );
      return status("INVALID", badParent.latestValid, error);
    }
    // geth: an unknown parent means we are behind; the CL will sync us (no ACCEPTED: we keep all state).
    if (this.engine.chain.getHeaderByHash(payload.parentHash) === undefined) return status("SYNCING", null);
    try {
      await this.engine.importPayload(block, hash);
    } catch (e) {
      if (!(e instanceof BaseError) || e.code === ENGINE_ERRORS.CLOSED || e.code.startsWith("DB_")) throw e;
      // The parent's state was pruned (--gcmode full): the payload cannot be executed here, which does
      // not make it invalid; as geth with a parent state it lacks, SYNCING, and nothing remembered as bad.
      if (e.code === "STATE_ROOT_MISSING") return status("SYNCING", null);
      const error = e.message;
      this.#remember(
        this.#invalid,
        bytesToHex(hash),
        { error, latestValid: payload.parentHash },
        this.options.invalidCacheSize,
      );
      return status("INVALID", payload.parentHash, error);
    }
    return status("VALID", hash);
  }

  /**
   * The EIP-4844 versioned hashes of the payload's blob transactions, in order: field 10 of each
   * `0x03 || rlp([chain_id, nonce, max_priority_fee_per_gas, max_fee_per_gas, gas_limit, to, value, data,
   * access_list, max_fee_per_blob_gas, blob_versioned_hashes, y_parity, r, s])` (read without decoding
   * the transaction, which @ethereumjs refuses without KZG loaded).
   */
  #blobHashes(p: ExecutionPayload): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (const raw of p.transactions) {
      if (raw.length === 0 || raw[0] !== 3) continue;
      try {
        const fields = RLP.decode(raw.subarray(1)) as unknown[];
        const hashes = fields[10];
        if (Array.isArray(hashes)) { for (const h of hashes) if (h instanceof Uint8Array) out.push(h); }
      } catch {
        // An undecodable transaction fails block validation below.
      }
    }
    return out;
  }

  /** engine_exchangeCapabilities: the methods keel serves, whatever the consensus client lists. */
  exchangeCapabilities(_theirs: readonly string[]): string[] {
    return [...ENGINE_CAPABILITIES];
  }

  /**
   * engine_signalSuperchainV1 (exec-engine.md): the rollup node passes on the protocol versions the L1
   * ProtocolVersions contract signals; the engine warns when it is behind them and answers the version
   * it supports.
   */
  signalSuperchain(recommended: Uint8Array, required: Uint8Array): Uint8Array {
    for (const [what, version] of [["recommended", recommended], ["required", required]] as const) {
      const cmp = compareProtocolVersions(KEEL_PROTOCOL_VERSION, version);
      if (cmp.startsWith("outdated")) {
        this.#log.warn("The {what} OP-Stack protocol version {version} is newer than keel's {local}", {
          what,
          version: formatProtocolVersion(version),
          local: formatProtocolVersion(KEEL_PROTOCOL_VERSION),
        });
      }
    }
    return KEEL_PROTOCOL_VERSION;
  }

  /** engine_getClientVersionV1. */
  getClientVersion(_theirs?: ClientVersion): ClientVersion[] {
    const hex = this.options.clientCommit.replace(/^0x/, "").padEnd(8, "0").slice(0, 8);
    return [{ code: CLIENT_CODE, name: "keel", version: this.options.clientVersion, commit: `0x${hex}` }];
  }

  #remember<V>(map: Map<string, V>, key: string, value: V, size: number): void {
    map.delete(key);
    map.set(key, value);
    while (map.size > size) map.delete(map.keys().next().value as string);
  }
}
