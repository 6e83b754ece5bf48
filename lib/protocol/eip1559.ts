/**
 * The OP-Stack EIP-1559 base-fee rule and the header extraData that carries its parameters.
 * - exec-engine.md "1559 Parameters": chain-configured elasticity and denominator; from Canyon the
 *   `denominatorCanyon` (chosen by the child block's timestamp, as op-geth does).
 * - holocene/exec-engine.md "Dynamic EIP-1559 Parameters": when Holocene is active at the parent's
 *   timestamp, denominator and elasticity come from the parent's extraData `0x00 ++ u32 ++ u32`.
 * - jovian/exec-engine.md "Minimum Base Fee": version 1 extraData appends `u64 minBaseFee`, the computed
 *   base fee is clamped up to it; "DA Footprint Block Limit": the update uses max(gasUsed, blobGasUsed).
 */
import { BaseError } from "../common/errors.ts";
import type { Eip1559Params } from "./chain_config.ts";
import { type ForkSchedule, isForkActive } from "./hardforks.ts";

export const HOLOCENE_EXTRA_DATA_VERSION = 0;
export const JOVIAN_EXTRA_DATA_VERSION = 1;
const HOLOCENE_EXTRA_DATA_LENGTH = 9;
const JOVIAN_EXTRA_DATA_LENGTH = 17;
const UINT32_MAX = 0xffff_ffffn;
const UINT64_MAX = (1n << 64n) - 1n;

/** The parent-header fields the base-fee rule reads. */
export interface BaseFeeParent {
  gasUsed: bigint;
  gasLimit: bigint;
  baseFee: bigint;
  extraData: Uint8Array;
  timestamp: bigint;
  /** From Jovian: the parent's DA footprint. */
  blobGasUsed?: bigint;
}

/** The decoded extraData parameters; `minBaseFee` only in the Jovian (version 1) format. */
export interface ExtraDataParams {
  denominator: bigint;
  elasticity: bigint;
  minBaseFee?: bigint;
}

function invalid(message: string): BaseError {
  return new BaseError("INVALID_EXTRA_DATA", message);
}

function readU32(b: Uint8Array, at: number): bigint {
  return BigInt(((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0);
}

function writeU32(out: Uint8Array, at: number, v: bigint, name: string): void {
  if (v < 0n || v > UINT32_MAX) {
    throw invalid(`Cannot encode EIP-1559 params: ${name} ${v} is out of uint32 range`);
  }
  new DataView(out.buffer, out.byteOffset).setUint32(at, Number(v));
}

/** `eip1559Params` of PayloadAttributesV3: `u32 denominator ++ u32 elasticity` (8 bytes). */
export function encodeEip1559Params(denominator: bigint, elasticity: bigint): Uint8Array {
  const out = new Uint8Array(8);
  writeU32(out, 0, denominator, "denominator");
  writeU32(out, 4, elasticity, "elasticity");
  return out;
}

/**
 * Decode and check PayloadAttributesV3 `eip1559Params`: 8 bytes; a zero denominator is allowed only
 * together with a zero elasticity (meaning "use the chain's constants").
 */
export function decodeEip1559Params(params: Uint8Array): { denominator: bigint; elasticity: bigint } {
  if (params.length !== 8) {
    throw invalid(`Cannot decode eip1559Params: length is ${params.length}, expected 8`);
  }
  const denominator = readU32(params, 0);
  const elasticity = readU32(params, 4);
  if (denominator === 0n && elasticity !== 0n) {
    throw invalid("Cannot decode eip1559Params: denominator is 0 but elasticity is not");
  }
  return { denominator, elasticity };
}

/** Holocene header extraData: `0x00 ++ u32 denominator ++ u32 elasticity`. */
export function encodeHoloceneExtraData(denominator: bigint, elasticity: bigint): Uint8Array {
  const out = new Uint8Array(HOLOCENE_EXTRA_DATA_LENGTH);
  out[0] = HOLOCENE_EXTRA_DATA_VERSION;
  writeU32(out, 1, denominator, "denominator");
  writeU32(out, 5, elasticity, "elasticity");
  return out;
}

/** Jovian header extraData: `0x01 ++ u32 denominator ++ u32 elasticity ++ u64 minBaseFee`. */
export function encodeJovianExtraData(
  denominator: bigint,
  elasticity: bigint,
  minBaseFee: bigint,
): Uint8Array {
  if (minBaseFee < 0n || minBaseFee > UINT64_MAX) {
    throw invalid(`Cannot encode extraData: minBaseFee ${minBaseFee} is out of uint64 range`);
  }
  const out = new Uint8Array(JOVIAN_EXTRA_DATA_LENGTH);
  out[0] = JOVIAN_EXTRA_DATA_VERSION;
  writeU32(out, 1, denominator, "denominator");
  writeU32(out, 5, elasticity, "elasticity");
  new DataView(out.buffer).setBigUint64(9, minBaseFee);
  return out;
}

/**
 * Decode a Holocene (9 bytes, version 0) or Jovian (17 bytes, version 1) extraData. Strict: length,
 * version and non-zero denominator and elasticity are checked (holocene/exec-engine.md "EIP-1559
 * Parameters in Block Header", jovian/exec-engine.md "Minimum Base Fee in Block Header").
 */
export function decodeExtraData(extraData: Uint8Array): ExtraDataParams {
  if (extraData.length === 0) throw invalid("Cannot decode extraData: it is empty");
  const version = extraData[0];
  const expected = version === HOLOCENE_EXTRA_DATA_VERSION
    ? HOLOCENE_EXTRA_DATA_LENGTH
    : version === JOVIAN_EXTRA_DATA_VERSION
    ? JOVIAN_EXTRA_DATA_LENGTH
    : undefined;
  if (expected === undefined) throw invalid(`Cannot decode extraData: unknown version ${version}`);
  if (extraData.length !== expected) {
    throw invalid(
      `Cannot decode extraData: version ${version} needs ${expected} bytes, got ${extraData.length}`,
    );
  }
  const denominator = readU32(extraData, 1);
  const elasticity = readU32(extraData, 5);
  if (denominator === 0n) throw invalid("Cannot decode extraData: denominator is 0");
  if (elasticity === 0n) throw invalid("Cannot decode extraData: elasticity is 0");
  if (version === HOLOCENE_EXTRA_DATA_VERSION) return { denominator, elasticity };
  const minBaseFee = new DataView(extraData.buffer, extraData.byteOffset).getBigUint64(9);
  return { denominator, elasticity, minBaseFee };
}

/**
 * Check a (non-genesis) L2 header's extraData for the fork active at its timestamp: empty before
 * Holocene (exec-engine.md "Extra Data"), the version-0 format under Holocene, version 1 from Jovian.
 */
export function validateExtraData(
  forks: ForkSchedule,
  timestamp: bigint,
  extraData: Uint8Array,
): ExtraDataParams | null {
  if (!isForkActive(forks, "holocene", timestamp)) {
    if (extraData.length !== 0) {
      throw invalid(`Invalid extraData: must be empty before Holocene, got ${extraData.length} bytes`);
    }
    return null;
  }
  const params = decodeExtraData(extraData);
  const jovian = isForkActive(forks, "jovian", timestamp);
  if (jovian && params.minBaseFee === undefined) {
    throw invalid("Invalid extraData: Jovian requires version 1");
  }
  if (!jovian && params.minBaseFee !== undefined) throw invalid("Invalid extraData: version 1 before Jovian");
  return params;
}

/**
 * The extraData a block built from PayloadAttributesV3 carries: nothing before Holocene; the attributes'
 * eip1559Params, or the chain's Canyon constants when both are 0 (holocene/exec-engine.md "Payload
 * Attributes Processing"); plus minBaseFee from Jovian, where it is required.
 */
export function payloadExtraData(
  forks: ForkSchedule,
  timestamp: bigint,
  chain: Eip1559Params,
  eip1559Params: Uint8Array | undefined,
  minBaseFee?: bigint,
): Uint8Array {
  if (!isForkActive(forks, "holocene", timestamp)) {
    if (eip1559Params !== undefined) {
      throw invalid("Invalid payload attributes: eip1559Params before Holocene");
    }
    if (minBaseFee !== undefined) throw invalid("Invalid payload attributes: minBaseFee before Jovian");
    return new Uint8Array();
  }
  if (eip1559Params === undefined) {
    throw invalid("Invalid payload attributes: eip1559Params missing from Holocene");
  }
  let { denominator, elasticity } = decodeEip1559Params(eip1559Params);
  if (denominator === 0n && elasticity === 0n) {
    denominator = chain.denominatorCanyon;
    elasticity = chain.elasticity;
  }
  if (!isForkActive(forks, "jovian", timestamp)) {
    if (minBaseFee !== undefined) throw invalid("Invalid payload attributes: minBaseFee before Jovian");
    return encodeHoloceneExtraData(denominator, elasticity);
  }
  if (minBaseFee === undefined) throw invalid("Invalid payload attributes: minBaseFee missing from Jovian");
  return encodeJovianExtraData(denominator, elasticity, minBaseFee);
}

/**
 * The base fee of the child of `parent`, at `childTimestamp`. Parameters: the chain's (Canyon
 * denominator from Canyon on) until Holocene is active at the parent's timestamp, then the parent's
 * extraData. From Jovian (at the parent's timestamp) the gas measure is max(gasUsed, blobGasUsed) and the
 * result is at least the extraData's minBaseFee.
 */
export function nextBaseFee(
  parent: BaseFeeParent,
  chain: Eip1559Params,
  forks: ForkSchedule,
  childTimestamp: bigint,
): bigint {
  let elasticity = chain.elasticity;
  let denominator = isForkActive(forks, "canyon", childTimestamp)
    ? chain.denominatorCanyon
    : chain.denominator;
  let minBaseFee: bigint | undefined;
  const jovian = isForkActive(forks, "jovian", parent.timestamp);
  if (isForkActive(forks, "holocene", parent.timestamp)) {
    const params = validateExtraData(forks, parent.timestamp, parent.extraData)!;
    ({ denominator, elasticity, minBaseFee } = params);
  }
  if (elasticity <= 0n || denominator <= 0n) {
    throw invalid(`Cannot compute base fee: elasticity ${elasticity}, denominator ${denominator}`);
  }
  const gasUsed = jovian && parent.blobGasUsed !== undefined && parent.blobGasUsed > parent.gasUsed
    ? parent.blobGasUsed
    : parent.gasUsed;
  const target = parent.gasLimit / elasticity;
  let baseFee: bigint;
  if (gasUsed === target || target === 0n) {
    baseFee = parent.baseFee;
  } else if (gasUsed > target) {
    const delta = parent.baseFee * (gasUsed - target) / target / denominator;
    baseFee = parent.baseFee + (delta < 1n ? 1n : delta);
  } else {
    const delta = parent.baseFee * (target - gasUsed) / target / denominator;
    baseFee = parent.baseFee - delta;
    if (baseFee < 0n) baseFee = 0n;
  }
  if (minBaseFee !== undefined && baseFee < minBaseFee) baseFee = minBaseFee;
  return baseFee;
}
