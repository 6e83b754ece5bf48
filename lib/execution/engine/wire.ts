/**
 * The Engine API's JSON wire form (execution-apis `src/engine/` structures; OP fields as op-node's
 * `op-service/eth/types.go` marshals them: `transactions`, `noTxPool`, `gasLimit`, `eip1559Params`,
 * `minBaseFee`, `withdrawalsRoot`, and the envelope's `parentBeaconBlockRoot`). Parsing is strict:
 * quantities without leading zeros, fixed-size hashes and addresses, and a bad field is named in
 * the -32602 message ("field 'gasLimit': ...").
 */
import { bytesToHex, type Hex, toQuantity } from "../../common/bytes.ts";
import type {
  ExecutionPayload,
  ExecutionPayloadEnvelope,
  ForkchoiceState,
  ForkchoiceUpdatedResult,
  PayloadAttributes,
  PayloadStatus,
  Withdrawal,
} from "../../protocol/mod.ts";
import { type Infer, s, type Schema, SchemaError } from "../../rpc/mod.ts";
import type { BlobsBundle } from "../evm/mod.ts";

function fixedBytes(length: number, goType: string): Schema<Uint8Array> {
  const hex = s.hex();
  return s.custom(goType, (v) => {
    const b = hex.parse(v);
    if (b.length !== length) {
      throw new SchemaError(`hex string has length ${b.length * 2}, want ${length * 2} for ${goType}`);
    }
    return b;
  });
}

export const withdrawalSchema = s.object({
  index: s.uint64(),
  validatorIndex: s.uint64(),
  address: s.address(),
  amount: s.uint64(),
});

/** ExecutionPayloadV1..V3 plus OP's withdrawalsRoot; the method checks which fields its version needs. */
export const executionPayloadSchema = s.object({
  parentHash: s.hash(),
  feeRecipient: s.address(),
  stateRoot: s.hash(),
  receiptsRoot: s.hash(),
  logsBloom: fixedBytes(256, "types.Bloom"),
  prevRandao: s.hash(),
  blockNumber: s.uint64(),
  gasLimit: s.uint64(),
  gasUsed: s.uint64(),
  timestamp: s.uint64(),
  extraData: s.custom("hexutil.Bytes", (v) => {
    const b = s.hex().parse(v);
    // paris.md: extraData is at most 32 bytes.
    if (b.length > 32) throw new SchemaError(`extraData has ${b.length} bytes, want at most 32`);
    return b;
  }),
  baseFeePerGas: s.quantity(),
  blockHash: s.hash(),
  transactions: s.array(s.hex()),
  withdrawals: s.optional(s.array(withdrawalSchema, { max: 16 })),
  blobGasUsed: s.optional(s.uint64()),
  excessBlobGas: s.optional(s.uint64()),
  withdrawalsRoot: s.optional(s.hash()),
});

/** PayloadAttributesV1..V3 with OP's extensions (exec-engine.md "Extended PayloadAttributes"). */
export const payloadAttributesSchema = s.object({
  timestamp: s.uint64(),
  prevRandao: s.hash(),
  suggestedFeeRecipient: s.address(),
  withdrawals: s.optional(s.array(withdrawalSchema, { max: 16 })),
  parentBeaconBlockRoot: s.optional(s.hash()),
  transactions: s.optional(s.array(s.hex())),
  noTxPool: s.optional(s.bool()),
  gasLimit: s.optional(s.uint64()),
  eip1559Params: s.optional(fixedBytes(8, "eth.Bytes8")),
  // op-node marshals `MinBaseFee *uint64` as a JSON number (op-service/eth/types.go); hex is accepted too.
  minBaseFee: s.optional(s.hexOrDecimal()),
});

export const forkchoiceStateSchema = s.object({
  headBlockHash: s.hash(),
  safeBlockHash: s.hash(),
  finalizedBlockHash: s.hash(),
});

export const payloadIdSchema: Schema<Uint8Array> = fixedBytes(8, "engine.PayloadID");

export const clientVersionSchema = s.object({
  code: s.string(),
  name: s.string(),
  version: s.string(),
  commit: s.string(),
});

/** Drops the keys whose value is undefined (the schemas set absent optional fields to undefined). */
function compact<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}

function toWithdrawal(w: Infer<typeof withdrawalSchema>): Withdrawal {
  return { index: w.index, validatorIndex: w.validatorIndex, address: w.address, amount: w.amount };
}

export function parseExecutionPayload(json: unknown): ExecutionPayload {
  const p = executionPayloadSchema.parse(json);
  return compact({ ...p, withdrawals: p.withdrawals?.map(toWithdrawal) });
}

export function parsePayloadAttributes(json: unknown): PayloadAttributes {
  const a = payloadAttributesSchema.parse(json);
  return compact({ ...a, withdrawals: a.withdrawals?.map(toWithdrawal) });
}

export function parseForkchoiceState(json: unknown): ForkchoiceState {
  return forkchoiceStateSchema.parse(json);
}

// ---- to JSON ----------------------------------------------------------------------------------

export interface WithdrawalJson {
  index: Hex;
  validatorIndex: Hex;
  address: Hex;
  amount: Hex;
}

export interface ExecutionPayloadJson {
  parentHash: Hex;
  feeRecipient: Hex;
  stateRoot: Hex;
  receiptsRoot: Hex;
  logsBloom: Hex;
  prevRandao: Hex;
  blockNumber: Hex;
  gasLimit: Hex;
  gasUsed: Hex;
  timestamp: Hex;
  extraData: Hex;
  baseFeePerGas: Hex;
  blockHash: Hex;
  transactions: Hex[];
  withdrawals?: WithdrawalJson[];
  blobGasUsed?: Hex;
  excessBlobGas?: Hex;
  withdrawalsRoot?: Hex;
}

export function withdrawalToJson(w: Withdrawal): WithdrawalJson {
  return {
    index: toQuantity(w.index),
    validatorIndex: toQuantity(w.validatorIndex),
    address: bytesToHex(w.address),
    amount: toQuantity(w.amount),
  };
}

export function executionPayloadToJson(p: ExecutionPayload): ExecutionPayloadJson {
  const out: ExecutionPayloadJson = {
    parentHash: bytesToHex(p.parentHash),
    feeRecipient: bytesToHex(p.feeRecipient),
    stateRoot: bytesToHex(p.stateRoot),
    receiptsRoot: bytesToHex(p.receiptsRoot),
    logsBloom: bytesToHex(p.logsBloom),
    prevRandao: bytesToHex(p.prevRandao),
    blockNumber: toQuantity(p.blockNumber),
    gasLimit: toQuantity(p.gasLimit),
    gasUsed: toQuantity(p.gasUsed),
    timestamp: toQuantity(p.timestamp),
    extraData: bytesToHex(p.extraData),
    baseFeePerGas: toQuantity(p.baseFeePerGas),
    blockHash: bytesToHex(p.blockHash),
    transactions: p.transactions.map(bytesToHex),
  };
  if (p.withdrawals !== undefined) out.withdrawals = p.withdrawals.map(withdrawalToJson);
  if (p.blobGasUsed !== undefined) out.blobGasUsed = toQuantity(p.blobGasUsed);
  if (p.excessBlobGas !== undefined) out.excessBlobGas = toQuantity(p.excessBlobGas);
  if (p.withdrawalsRoot !== undefined) out.withdrawalsRoot = bytesToHex(p.withdrawalsRoot);
  return out;
}

export function payloadAttributesToJson(a: PayloadAttributes): Record<string, unknown> {
  return compact({
    timestamp: toQuantity(a.timestamp),
    prevRandao: bytesToHex(a.prevRandao),
    suggestedFeeRecipient: bytesToHex(a.suggestedFeeRecipient),
    withdrawals: a.withdrawals?.map(withdrawalToJson),
    parentBeaconBlockRoot: a.parentBeaconBlockRoot && bytesToHex(a.parentBeaconBlockRoot),
    transactions: a.transactions?.map(bytesToHex),
    noTxPool: a.noTxPool,
    gasLimit: a.gasLimit === undefined ? undefined : toQuantity(a.gasLimit),
    eip1559Params: a.eip1559Params && bytesToHex(a.eip1559Params),
    // A JSON number, as op-node sends it (a string beyond 2^53, which the parser also accepts).
    minBaseFee: a.minBaseFee === undefined
      ? undefined
      : a.minBaseFee <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(a.minBaseFee)
      : a.minBaseFee.toString(),
  });
}

export function forkchoiceStateToJson(f: ForkchoiceState): Record<string, Hex> {
  return {
    headBlockHash: bytesToHex(f.headBlockHash),
    safeBlockHash: bytesToHex(f.safeBlockHash),
    finalizedBlockHash: bytesToHex(f.finalizedBlockHash),
  };
}

export interface PayloadStatusJson {
  status: string;
  latestValidHash: Hex | null;
  validationError: string | null;
}

export function payloadStatusToJson(p: PayloadStatus): PayloadStatusJson {
  return {
    status: p.status,
    latestValidHash: p.latestValidHash === null ? null : bytesToHex(p.latestValidHash),
    validationError: p.validationError,
  };
}

export function forkchoiceUpdatedResultToJson(r: ForkchoiceUpdatedResult): {
  payloadStatus: PayloadStatusJson;
  payloadId: Hex | null;
} {
  return {
    payloadStatus: payloadStatusToJson(r.payloadStatus),
    payloadId: r.payloadId === null ? null : bytesToHex(r.payloadId),
  };
}

/** BlobsBundleV1 (cancun.md): commitments, proofs and blobs as hex. */
export function blobsBundleToJson(b: BlobsBundle): { commitments: Hex[]; proofs: Hex[]; blobs: Hex[] } {
  return {
    commitments: b.commitments.map(bytesToHex),
    proofs: b.proofs.map(bytesToHex),
    blobs: b.blobs.map(bytesToHex),
  };
}

/** engine_getBlobsV1's result: BlobAndProofV1 or null per requested hash. */
export function blobsToJson(items: readonly ({ blob: Uint8Array; proof: Uint8Array } | null)[]) {
  return items.map((i) => i === null ? null : { blob: bytesToHex(i.blob), proof: bytesToHex(i.proof) });
}

/**
 * getPayloadV2: `{executionPayload, blockValue}`; V3 adds `blobsBundle` (the included blob transactions'
 * sidecars; empty on OP), `shouldOverrideBuilder` and OP's `parentBeaconBlockRoot`; V4 adds
 * `executionRequests` (empty on OP).
 */
export function envelopeToJson(
  e: ExecutionPayloadEnvelope & { blobsBundle?: BlobsBundle },
  version: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    executionPayload: executionPayloadToJson(e.executionPayload),
    blockValue: toQuantity(e.blockValue),
  };
  if (version >= 3) {
    out.blobsBundle = blobsBundleToJson(e.blobsBundle ?? { commitments: [], proofs: [], blobs: [] });
    out.shouldOverrideBuilder = e.shouldOverrideBuilder ?? false;
    if (e.parentBeaconBlockRoot !== undefined) {
      out.parentBeaconBlockRoot = bytesToHex(e.parentBeaconBlockRoot);
    }
  }
  if (version >= 4) out.executionRequests = (e.executionRequests ?? []).map(bytesToHex);
  return out;
}

/** The envelope from JSON (what an external engine client reads back). */
export function parseEnvelope(json: unknown): ExecutionPayloadEnvelope & { blobsBundle?: BlobsBundle } {
  const e = s.object({
    executionPayload: s.unknown(),
    blockValue: s.quantity(),
    parentBeaconBlockRoot: s.optional(s.hash()),
    shouldOverrideBuilder: s.optional(s.bool()),
    executionRequests: s.optional(s.array(s.hex())),
    blobsBundle: s.optional(s.object({
      commitments: s.array(fixedBytes(48, "hexutil.Bytes")),
      proofs: s.array(fixedBytes(48, "hexutil.Bytes")),
      blobs: s.array(fixedBytes(131_072, "hexutil.Bytes")),
    })),
  }).parse(json);
  return compact({
    executionPayload: parseExecutionPayload(e.executionPayload),
    blockValue: e.blockValue,
    parentBeaconBlockRoot: e.parentBeaconBlockRoot,
    shouldOverrideBuilder: e.shouldOverrideBuilder,
    executionRequests: e.executionRequests,
    blobsBundle: e.blobsBundle,
  });
}

/** A payload status from JSON. */
export function parsePayloadStatus(json: unknown): PayloadStatus {
  const p = s.object({
    status: s.enum(["VALID", "INVALID", "SYNCING", "ACCEPTED", "INVALID_BLOCK_HASH"] as const),
    latestValidHash: s.optional(s.hash()),
    validationError: s.optional(s.string()),
  }).parse(json);
  return {
    status: p.status,
    latestValidHash: p.latestValidHash ?? null,
    validationError: p.validationError ?? null,
  };
}
