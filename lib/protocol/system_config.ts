/**
 * The L2 system config and its updates from the L1 SystemConfig contract's `ConfigUpdate` event
 * (specs/protocol/system-config.md "System Config Updates" and "Post-Ecotone Scalar Encoding";
 * holocene/system-config.md, isthmus/system-config.md and jovian/system-config.md "ConfigUpdate").
 * Decoding follows op-node `derive.ProcessSystemConfigUpdateLogEvent` and
 * `UpdateSystemConfigWithL1Receipts`; the shape follows op-service `eth.SystemConfig`.
 *
 * ```solidity
 * event ConfigUpdate(uint256 indexed version, UpdateType indexed updateType, bytes data);
 * ```
 *
 * `data` is an ABI `bytes`: `pointer (= 32) ++ length ++ payload`, with no trailing bytes.
 */
import { bigIntToBytes, bytesToBigInt, bytesToHex, concatBytes, equalBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import { keccak256 } from "../common/hash.ts";
import type { L1Log, L1Receipt } from "./deposit_event.ts";
import { type ForkSchedule, isForkActive } from "./hardforks.ts";
import type { GenesisSystemConfig } from "./rollup_config.ts";

/**
 * The system config carried from one L2 block to the next (op-service `eth.SystemConfig`).
 * Structurally a `GenesisSystemConfig` with every field present; zero values mean "not set".
 */
export interface SystemConfig {
  /** Batch sender accepted by the batch inbox (20 bytes). */
  batcherAddr: Uint8Array;
  /** L1 fee overhead (32 bytes); zeroed by FEE_SCALARS updates from Ecotone. */
  overhead: Uint8Array;
  /** L1 fee scalar (32 bytes): a uint256 before Ecotone, the versioned scalar encoding after. */
  scalar: Uint8Array;
  /** L2 block gas limit (uint64). */
  gasLimit: bigint;
  /** Holocene: denominator u32 ++ elasticity u32 (8 bytes); zero until an EIP_1559_PARAMS update. */
  eip1559Params: Uint8Array;
  /** Isthmus: `uint256(operatorFeeScalar) << 64 | operatorFeeConstant` (32 bytes). */
  operatorFeeParams: Uint8Array;
  /** Jovian: minimum base fee in wei (uint64). */
  minBaseFee: bigint;
  /** Jovian: DA footprint gas scalar (uint16). */
  daFootprintGasScalar: bigint;
}

/** The event signature whose keccak256 is topic 0 (ProtocolVersions emits the same topic). */
export const CONFIG_UPDATE_SIGNATURE = "ConfigUpdate(uint256,uint8,bytes)";

/** `keccak256("ConfigUpdate(uint256,uint8,bytes)")`. */
export const CONFIG_UPDATE_TOPIC: Uint8Array = keccak256(new TextEncoder().encode(CONFIG_UPDATE_SIGNATURE));

/** Topic 1 of a version-0 config update: `uint256(0)`. */
export const CONFIG_UPDATE_VERSION_0: Uint8Array = new Uint8Array(32);

/** The `UpdateType` values of version 0 (system-config.md "System Config Updates"). */
export const SYSTEM_CONFIG_UPDATE_TYPE = {
  batcher: 0,
  feeScalars: 1,
  gasLimit: 2,
  unsafeBlockSigner: 3,
  eip1559Params: 4,
  operatorFeeParams: 5,
  minBaseFee: 6,
  daFootprintGasScalar: 7,
} as const;

export type SystemConfigUpdateType = keyof typeof SYSTEM_CONFIG_UPDATE_TYPE;

/** One update, as `encodeSystemConfigLog` emits it (the devnet and tests play the contract). */
export type SystemConfigUpdate =
  | { type: "batcher"; batcherAddr: Uint8Array }
  | { type: "feeScalars"; overhead: Uint8Array; scalar: Uint8Array }
  | { type: "gasLimit"; gasLimit: bigint }
  | { type: "unsafeBlockSigner"; signer: Uint8Array }
  | { type: "eip1559Params"; denominator: bigint; elasticity: bigint }
  | { type: "operatorFeeParams"; operatorFeeScalar: bigint; operatorFeeConstant: bigint }
  | { type: "minBaseFee"; minBaseFee: bigint }
  | { type: "daFootprintGasScalar"; daFootprintGasScalar: bigint };

/** A log that could not be applied, with its position among the receipts. */
export interface SystemConfigLogError {
  receipt: number;
  log: number;
  error: BaseError;
}

/** Ecotone L1-fee scalars (system-config.md "Post-Ecotone Scalar Encoding"). */
export interface EcotoneScalars {
  baseFeeScalar: bigint;
  blobBaseFeeScalar: bigint;
}

/** Isthmus operator fee parameters (isthmus/system-config.md). */
export interface OperatorFeeParams {
  operatorFeeScalar: bigint;
  operatorFeeConstant: bigint;
}

const UINT16_MAX = 0xffffn;
const UINT32_MAX = 0xffff_ffffn;
const UINT64_MAX = (1n << 64n) - 1n;
const SCALAR_VERSION_BEDROCK = 0;
const SCALAR_VERSION_ECOTONE = 1;

/** The system config at L2 genesis: the rollup config's, with absent fields zero. */
export function systemConfigFromGenesis(genesis: GenesisSystemConfig): SystemConfig {
  return {
    batcherAddr: genesis.batcherAddr.slice(),
    overhead: genesis.overhead.slice(),
    scalar: genesis.scalar.slice(),
    gasLimit: genesis.gasLimit,
    eip1559Params: genesis.eip1559Params?.slice() ?? new Uint8Array(8),
    operatorFeeParams: genesis.operatorFeeParams?.slice() ?? new Uint8Array(32),
    minBaseFee: 0n,
    daFootprintGasScalar: 0n,
  };
}

function parseError(reason: string): BaseError {
  return new BaseError("INVALID_SYSTEM_CONFIG_LOG", `Cannot apply system config log: ${reason}`, {
    meta: { reason },
  });
}

function isZero(bytes: Uint8Array): boolean {
  return bytes.every((b) => b === 0);
}

/** A uint64 in a 32-byte word whose 24 high bytes must be zero (op-service `solabi.ReadUint64`). */
function readUint64Word(data: Uint8Array, at: number): bigint | undefined {
  if (data.length < at + 32 || !isZero(data.subarray(at, at + 24))) return undefined;
  return bytesToBigInt(data.subarray(at + 24, at + 32));
}

/** The payload of the ABI `bytes`: pointer must be 32, length must be `length`. */
function readPayload(data: Uint8Array, length: bigint): void {
  if (readUint64Word(data, 0) !== 32n) throw parseError("invalid pointer field");
  if (readUint64Word(data, 32) !== length) throw parseError("invalid length field");
}

function word(data: Uint8Array, at: number, what: string): Uint8Array {
  if (data.length < at + 32) throw parseError(`could not read ${what}`);
  return data.subarray(at, at + 32);
}

function expectEnd(data: Uint8Array, end: number): void {
  if (data.length > end) throw parseError("too many bytes");
}

/** A word with `padding` zero high bytes; the low bytes as a number. */
function paddedUint(data: Uint8Array, at: number, padding: number, what: string): bigint {
  const w = word(data, at, what);
  if (!isZero(w.subarray(0, padding))) throw parseError(`could not read ${what}`);
  return bytesToBigInt(w.subarray(padding));
}

function readU32(bytes: Uint8Array, at: number): bigint {
  return bytesToBigInt(bytes.subarray(at, at + 4));
}

/**
 * Whether a FEE_SCALARS scalar is valid from Ecotone (op-service `CheckEcotoneL1SystemConfigScalar`):
 * version 0 with bytes [1, 28) zero, or version 1 with bytes [1, 24) zero.
 */
function isValidEcotoneScalar(scalar: Uint8Array): boolean {
  if (scalar[0] === SCALAR_VERSION_BEDROCK) return isZero(scalar.subarray(1, 28));
  if (scalar[0] === SCALAR_VERSION_ECOTONE) return isZero(scalar.subarray(1, 24));
  return false;
}

/**
 * Decode the 32-byte `scalar` into the Ecotone scalars (system-config.md "Post-Ecotone Scalar
 * Encoding"; op-service `SystemConfig.EcotoneScalars`): version 0 gives `baseFeeScalar` from bytes
 * [28, 32) and `blobBaseFeeScalar` 0, or `baseFeeScalar` = MaxUint32 when the padding [1, 28) is not
 * zero; version 1 reads blob [24, 28) and base [28, 32) and requires [1, 24) zero. Other versions,
 * and a version 1 with non-zero padding, throw `INVALID_FEE_SCALAR`.
 */
export function decodeEcotoneScalars(scalar: Uint8Array): EcotoneScalars {
  if (scalar.length !== 32) {
    throw new BaseError(
      "INVALID_FEE_SCALAR",
      `Cannot decode fee scalar: length is ${scalar.length}, expected 32`,
    );
  }
  if (scalar[0] === SCALAR_VERSION_BEDROCK) {
    if (!isZero(scalar.subarray(1, 28))) return { baseFeeScalar: UINT32_MAX, blobBaseFeeScalar: 0n };
    return { baseFeeScalar: readU32(scalar, 28), blobBaseFeeScalar: 0n };
  }
  if (scalar[0] === SCALAR_VERSION_ECOTONE) {
    if (!isZero(scalar.subarray(1, 24))) {
      throw new BaseError("INVALID_FEE_SCALAR", "Cannot decode fee scalar: version 1 padding is not zero", {
        meta: { scalar: bytesToHex(scalar) },
      });
    }
    return { baseFeeScalar: readU32(scalar, 28), blobBaseFeeScalar: readU32(scalar, 24) };
  }
  throw new BaseError("INVALID_FEE_SCALAR", `Cannot decode fee scalar: unknown version ${scalar[0]}`, {
    meta: { scalar: bytesToHex(scalar) },
  });
}

function checkRange(what: string, name: string, value: bigint, max: bigint, code: string): void {
  if (value < 0n || value > max) {
    throw new BaseError(code, `Cannot encode ${what}: ${name} ${value} is out of range`);
  }
}

/** The version-1 scalar: `0x01 ++ zeros(23) ++ blobBaseFeeScalar u32 ++ baseFeeScalar u32` (op-service `EncodeScalar`). */
export function encodeEcotoneScalar(scalars: EcotoneScalars): Uint8Array {
  checkRange("fee scalar", "baseFeeScalar", scalars.baseFeeScalar, UINT32_MAX, "INVALID_FEE_SCALAR");
  checkRange("fee scalar", "blobBaseFeeScalar", scalars.blobBaseFeeScalar, UINT32_MAX, "INVALID_FEE_SCALAR");
  const out = new Uint8Array(32);
  out[0] = SCALAR_VERSION_ECOTONE;
  out.set(bigIntToBytes(scalars.blobBaseFeeScalar, 4), 24);
  out.set(bigIntToBytes(scalars.baseFeeScalar, 4), 28);
  return out;
}

/** The operator fee scalar (uint32, bytes [20, 24)) and constant (uint64, bytes [24, 32)) of `operatorFeeParams`. */
export function decodeOperatorFeeParams(params: Uint8Array): OperatorFeeParams {
  if (params.length !== 32) {
    throw new BaseError(
      "INVALID_OPERATOR_FEE_PARAMS",
      `Cannot decode operator fee params: length is ${params.length}, expected 32`,
    );
  }
  return {
    operatorFeeScalar: readU32(params, 20),
    operatorFeeConstant: bytesToBigInt(params.subarray(24, 32)),
  };
}

/** `uint256(operatorFeeScalar) << 64 | operatorFeeConstant` as 32 bytes (isthmus/system-config.md). */
export function encodeOperatorFeeParams(params: OperatorFeeParams): Uint8Array {
  const code = "INVALID_OPERATOR_FEE_PARAMS";
  checkRange("operator fee params", "operatorFeeScalar", params.operatorFeeScalar, UINT32_MAX, code);
  checkRange("operator fee params", "operatorFeeConstant", params.operatorFeeConstant, UINT64_MAX, code);
  return bigIntToBytes((params.operatorFeeScalar << 64n) | params.operatorFeeConstant, 32);
}

function updateTypeName(topic: Uint8Array): SystemConfigUpdateType | undefined {
  if (topic.length !== 32 || !isZero(topic.subarray(0, 31))) return undefined;
  for (const [name, value] of Object.entries(SYSTEM_CONFIG_UPDATE_TYPE)) {
    if (topic[31] === value) return name as SystemConfigUpdateType;
  }
  return undefined;
}

/**
 * Apply one `ConfigUpdate` log to `config` and return the updated copy (`config` is not changed).
 * Rules of op-node's `ProcessSystemConfigUpdateLogEvent`:
 * - 3 topics, topic 0 the event (else `INVALID_SYSTEM_CONFIG_LOG`), version 0 (else
 *   `UNKNOWN_SYSTEM_CONFIG_VERSION`), a known update type (else `UNKNOWN_SYSTEM_CONFIG_UPDATE_TYPE`).
 *   Updates are not gated by fork: every known type applies whenever it is emitted.
 * - `data`: pointer 32, then the length of the type's payload (64 for FEE_SCALARS, else 32), the
 *   payload, nothing after it (else `INVALID_SYSTEM_CONFIG_LOG`: "invalid pointer field", "invalid
 *   length field", "could not read ...", "too many bytes"). Addresses and integers must have zero
 *   padding.
 * - FEE_SCALARS: before Ecotone (by `l1Time`, the L1 origin's timestamp, against `rollupConfig`'s
 *   Ecotone time) overhead and scalar are stored as given. From Ecotone the scalar must be a valid
 *   versioned scalar, else the update is ignored without error (the old values stay); if valid, the
 *   scalar is stored encoded and the overhead zeroed. Without `rollupConfig`, pre-Ecotone rules.
 * - EIP_1559_PARAMS keeps bytes [24, 32) of the word; denominator and elasticity must be both zero
 *   or both non-zero (else `INVALID_EIP1559_PARAMS`).
 * - UNSAFE_BLOCK_SIGNER is not read: it is not a derivation input.
 */
export function applySystemConfigLog(
  config: SystemConfig,
  log: L1Log,
  l1Time = 0n,
  rollupConfig?: { forks: ForkSchedule },
): SystemConfig {
  const { topics, data } = log;
  if (topics.length !== 3) {
    throw new BaseError(
      "INVALID_SYSTEM_CONFIG_LOG",
      `Cannot apply system config log: expected 3 event topics (event identity, indexed version, indexed updateType), got ${topics.length}`,
      { meta: { topics: topics.length } },
    );
  }
  if (!equalBytes(topics[0], CONFIG_UPDATE_TOPIC)) {
    throw new BaseError(
      "INVALID_SYSTEM_CONFIG_LOG",
      "Cannot apply system config log: topic 0 is not ConfigUpdate",
    );
  }
  if (!equalBytes(topics[1], CONFIG_UPDATE_VERSION_0)) {
    throw new BaseError(
      "UNKNOWN_SYSTEM_CONFIG_VERSION",
      `Cannot apply system config log: unknown SystemConfig event version ${bytesToHex(topics[1])}`,
      { meta: { version: bytesToHex(topics[1]) } },
    );
  }
  const type = updateTypeName(topics[2]);
  switch (type) {
    case "batcher": {
      readPayload(data, 32n);
      const w = word(data, 64, "address");
      if (!isZero(w.subarray(0, 12))) throw parseError("could not read address");
      expectEnd(data, 96);
      return { ...config, batcherAddr: w.slice(12) };
    }
    case "feeScalars": {
      readPayload(data, 64n);
      const overhead = word(data, 64, "overhead");
      const scalar = word(data, 96, "scalar");
      expectEnd(data, 128);
      if (rollupConfig !== undefined && isForkActive(rollupConfig.forks, "ecotone", l1Time)) {
        if (!isValidEcotoneScalar(scalar)) return config;
        return { ...config, overhead: new Uint8Array(32), scalar: scalar.slice() };
      }
      return { ...config, overhead: overhead.slice(), scalar: scalar.slice() };
    }
    case "gasLimit": {
      readPayload(data, 32n);
      const gasLimit = paddedUint(data, 64, 24, "gas limit");
      expectEnd(data, 96);
      return { ...config, gasLimit };
    }
    case "unsafeBlockSigner":
      return config;
    case "eip1559Params": {
      readPayload(data, 32n);
      const params = word(data, 64, "eip-1559 params").slice(24);
      expectEnd(data, 96);
      const denominator = readU32(params, 0);
      const elasticity = readU32(params, 4);
      if ((denominator === 0n) !== (elasticity === 0n)) {
        throw new BaseError(
          "INVALID_EIP1559_PARAMS",
          `Cannot apply system config log: EIP-1559 denominator ${denominator} and elasticity ${elasticity} must both be zero or both non-zero`,
          { meta: { denominator, elasticity } },
        );
      }
      return { ...config, eip1559Params: params };
    }
    case "operatorFeeParams": {
      readPayload(data, 32n);
      const params = word(data, 64, "operator fee params").slice();
      expectEnd(data, 96);
      return { ...config, operatorFeeParams: params };
    }
    case "minBaseFee": {
      readPayload(data, 32n);
      const minBaseFee = paddedUint(data, 64, 24, "minBaseFee");
      expectEnd(data, 96);
      return { ...config, minBaseFee };
    }
    case "daFootprintGasScalar": {
      readPayload(data, 32n);
      const daFootprintGasScalar = paddedUint(data, 64, 30, "DA footprint gas scalar");
      expectEnd(data, 96);
      return { ...config, daFootprintGasScalar };
    }
    default:
      throw new BaseError(
        "UNKNOWN_SYSTEM_CONFIG_UPDATE_TYPE",
        `Cannot apply system config log: unknown SystemConfig event type ${bytesToHex(topics[2])}`,
        { meta: { updateType: bytesToHex(topics[2]) } },
      );
  }
}

/**
 * Apply every `ConfigUpdate` of one L1 block's receipts, in order (op-node
 * `UpdateSystemConfigWithL1Receipts`): logs of successful receipts emitted by
 * `systemConfigAddress` with topic 0 = ConfigUpdate. Each log applies on its own: one that fails
 * changes nothing and is reported in `errors`, and the others still apply (system-config.md: an
 * update that cannot be parsed "is not applied and is instead skipped"). op-node's derivation
 * ignores these errors; they are returned for logging.
 */
export function systemConfigUpdatesFromReceipts(
  config: SystemConfig,
  receipts: readonly L1Receipt[],
  systemConfigAddress: Uint8Array,
  l1Time = 0n,
  rollupConfig?: { forks: ForkSchedule },
): { config: SystemConfig; errors: SystemConfigLogError[] } {
  let current = config;
  const errors: SystemConfigLogError[] = [];
  receipts.forEach((receipt, i) => {
    if (receipt.status !== 1) return;
    receipt.logs.forEach((log, j) => {
      if (!equalBytes(log.address, systemConfigAddress)) return;
      if (log.topics.length === 0 || !equalBytes(log.topics[0], CONFIG_UPDATE_TOPIC)) return;
      try {
        current = applySystemConfigLog(current, log, l1Time, rollupConfig);
      } catch (error) {
        if (!(error instanceof BaseError)) throw error;
        errors.push({ receipt: i, log: j, error });
      }
    });
  });
  return { config: current, errors };
}

function checkAddress(name: string, address: Uint8Array): void {
  if (address.length !== 20) {
    throw new BaseError(
      "INVALID_SYSTEM_CONFIG_UPDATE",
      `Cannot encode system config log: ${name} is ${address.length} bytes, expected 20`,
    );
  }
}

function uintWord(name: string, value: bigint, max: bigint): Uint8Array {
  checkRange("system config log", name, value, max, "INVALID_SYSTEM_CONFIG_UPDATE");
  return bigIntToBytes(value, 32);
}

function addressWord(name: string, address: Uint8Array): Uint8Array {
  checkAddress(name, address);
  const out = new Uint8Array(32);
  out.set(address, 12);
  return out;
}

function bytes32(name: string, value: Uint8Array): Uint8Array {
  if (value.length !== 32) {
    throw new BaseError(
      "INVALID_SYSTEM_CONFIG_UPDATE",
      `Cannot encode system config log: ${name} is ${value.length} bytes, expected 32`,
    );
  }
  return value;
}

function payloadOf(update: SystemConfigUpdate): Uint8Array {
  switch (update.type) {
    case "batcher":
      return addressWord("batcherAddr", update.batcherAddr);
    case "feeScalars":
      return concatBytes(bytes32("overhead", update.overhead), bytes32("scalar", update.scalar));
    case "gasLimit":
      return uintWord("gasLimit", update.gasLimit, UINT64_MAX);
    case "unsafeBlockSigner":
      return addressWord("signer", update.signer);
    case "eip1559Params":
      checkRange(
        "system config log",
        "denominator",
        update.denominator,
        UINT32_MAX,
        "INVALID_SYSTEM_CONFIG_UPDATE",
      );
      checkRange(
        "system config log",
        "elasticity",
        update.elasticity,
        UINT32_MAX,
        "INVALID_SYSTEM_CONFIG_UPDATE",
      );
      return bigIntToBytes((update.denominator << 32n) | update.elasticity, 32);
    case "operatorFeeParams":
      return encodeOperatorFeeParams(update);
    case "minBaseFee":
      return uintWord("minBaseFee", update.minBaseFee, UINT64_MAX);
    case "daFootprintGasScalar":
      return uintWord("daFootprintGasScalar", update.daFootprintGasScalar, UINT16_MAX);
  }
}

/**
 * The version-0 `ConfigUpdate` log the SystemConfig contract at `systemConfigAddress` emits for
 * `update` (the data layouts of system-config.md and the fork tables): `abi.encode(bytes(payload))`.
 */
export function encodeSystemConfigLog(systemConfigAddress: Uint8Array, update: SystemConfigUpdate): L1Log {
  checkAddress("SystemConfig address", systemConfigAddress);
  const payload = payloadOf(update);
  return {
    address: systemConfigAddress.slice(),
    topics: [
      CONFIG_UPDATE_TOPIC.slice(),
      CONFIG_UPDATE_VERSION_0.slice(),
      bigIntToBytes(BigInt(SYSTEM_CONFIG_UPDATE_TYPE[update.type]), 32),
    ],
    data: concatBytes(bigIntToBytes(32n, 32), bigIntToBytes(BigInt(payload.length), 32), payload),
  };
}
