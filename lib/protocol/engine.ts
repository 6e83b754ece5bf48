/**
 * Engine API data (ethereum/execution-apis `src/engine/`, with the OP additions of
 * specs/protocol/exec-engine.md) and the `EngineApi` interface where the rollup node and the
 * execution client meet: in-process for the embedded engine, HTTP + JWT for an external one.
 * Plain data inside (bigint, Uint8Array); the JSON wire form lives in the RPC layers.
 */

export interface Withdrawal {
  index: bigint;
  validatorIndex: bigint;
  address: Uint8Array;
  amount: bigint;
}

/** ExecutionPayloadV1..V3, plus OP's `withdrawalsRoot` from Isthmus (isthmus/exec-engine.md). */
export interface ExecutionPayload {
  parentHash: Uint8Array;
  feeRecipient: Uint8Array;
  stateRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  prevRandao: Uint8Array;
  blockNumber: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  baseFeePerGas: bigint;
  blockHash: Uint8Array;
  transactions: Uint8Array[];
  /** V2+ (Canyon): always empty on OP. */
  withdrawals?: Withdrawal[];
  /** V3+ (Ecotone): always 0 on OP. */
  blobGasUsed?: bigint;
  excessBlobGas?: bigint;
  /** Isthmus: the L2ToL1MessagePasser storage root. */
  withdrawalsRoot?: Uint8Array;
}

/** engine_getPayloadV3/V4 envelope; OP adds parentBeaconBlockRoot (exec-engine.md "engine_getPayloadV3"). */
export interface ExecutionPayloadEnvelope {
  executionPayload: ExecutionPayload;
  blockValue: bigint;
  parentBeaconBlockRoot?: Uint8Array;
  shouldOverrideBuilder?: boolean;
  /** V4 (Isthmus): always empty on OP. */
  executionRequests?: Uint8Array[];
}

/** PayloadAttributesV1..V3 with the OP extensions (exec-engine.md "Extended PayloadAttributesV1"). */
export interface PayloadAttributes {
  timestamp: bigint;
  prevRandao: Uint8Array;
  suggestedFeeRecipient: Uint8Array;
  withdrawals?: Withdrawal[];
  parentBeaconBlockRoot?: Uint8Array;
  /** Deposits first, then sequenced transactions, as encoded typed envelopes. */
  transactions?: Uint8Array[];
  noTxPool?: boolean;
  gasLimit?: bigint;
  /** Holocene: 8 bytes, denominator u32 BE || elasticity u32 BE. */
  eip1559Params?: Uint8Array;
  /** Jovian: minimum base fee. */
  minBaseFee?: bigint;
}

export interface ForkchoiceState {
  headBlockHash: Uint8Array;
  safeBlockHash: Uint8Array;
  finalizedBlockHash: Uint8Array;
}

export type PayloadStatusKind = "VALID" | "INVALID" | "SYNCING" | "ACCEPTED" | "INVALID_BLOCK_HASH";

export interface PayloadStatus {
  status: PayloadStatusKind;
  latestValidHash: Uint8Array | null;
  validationError: string | null;
}

export interface ForkchoiceUpdatedResult {
  payloadStatus: PayloadStatus;
  /** 8 bytes, or null when no build was started. */
  payloadId: Uint8Array | null;
}

export type EngineVersion = 1 | 2 | 3 | 4;

/** The Engine API as the rollup node drives it. */
export interface EngineApi {
  forkchoiceUpdated(
    version: EngineVersion,
    state: ForkchoiceState,
    attributes?: PayloadAttributes | null,
  ): Promise<ForkchoiceUpdatedResult>;
  newPayload(
    version: EngineVersion,
    payload: ExecutionPayload,
    versionedHashes?: Uint8Array[],
    parentBeaconBlockRoot?: Uint8Array,
    executionRequests?: Uint8Array[],
  ): Promise<PayloadStatus>;
  getPayload(version: EngineVersion, payloadId: Uint8Array): Promise<ExecutionPayloadEnvelope>;
  /**
   * engine_signalSuperchainV1 (exec-engine.md, optional): the L1-signalled protocol versions in, the
   * engine's supported version out.
   */
  signalSuperchain?(recommended: Uint8Array, required: Uint8Array): Promise<Uint8Array> | Uint8Array;
}
