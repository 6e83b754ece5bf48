/**
 * The OP-Stack L1 data fee and operator fee, per fork, and the L1 fields of a transaction receipt.
 * Rules: specs/protocol/exec-engine.md "L1-Cost fees (L1 Fee Vault)" (Bedrock/Regolith, Ecotone),
 * fjord/exec-engine.md "Fjord L1-Cost fee changes (FastLZ estimator)", isthmus/exec-engine.md "Operator Fee",
 * jovian/exec-engine.md "Operator Fee" and "DA Footprint Block Limit". All arithmetic is unbounded bigint.
 */
import { BaseError } from "../common/errors.ts";
import { flzCompressLen } from "./fastlz.ts";
import { OP_FORKS, type OpFork } from "./hardforks.ts";

/** The fee inputs, as the L1Block predeploy holds them (see l1_block_info.ts for the storage reads). */
export interface L1CostParams {
  /** L1 base fee of the L1 origin (slot 1). */
  l1BaseFee: bigint;
  /** Pre-Ecotone fee overhead (slot 5). */
  overhead: bigint;
  /** Pre-Ecotone fee scalar, scaled by 1e6 (slot 6). */
  scalar: bigint;
  /** Ecotone base-fee scalar (uint32, slot 3). */
  baseFeeScalar: bigint;
  /** Ecotone blob-base-fee scalar (uint32, slot 3). */
  blobBaseFeeScalar: bigint;
  /** L1 blob base fee of the L1 origin (slot 7). */
  l1BlobBaseFee: bigint;
  /** Isthmus operator fee scalar (uint32, slot 8). */
  operatorFeeScalar: bigint;
  /** Isthmus operator fee constant (uint64, slot 8). */
  operatorFeeConstant: bigint;
  /** Jovian DA footprint gas scalar (uint16, slot 8); absent before Jovian. */
  daFootprintGasScalar?: bigint;
}

/** Per-transaction inputs of the L1 cost: byte counts of the full signed encoding and its FastLZ length. */
export interface RollupCostData {
  zeroes: bigint;
  ones: bigint;
  fastlzSize: bigint;
}

/** EIP-2028 calldata gas per zero / non-zero byte. */
const TX_DATA_ZERO_GAS = 4n;
const TX_DATA_NON_ZERO_GAS = 16n;
/** Pre-Regolith: 68 extra non-zero bytes, a remnant of the pre-Bedrock signature padding (exec-engine.md). */
const PRE_REGOLITH_EXTRA_BYTES = 68n;
const ONE_MILLION = 1_000_000n;
const ECOTONE_DIVISOR = 16_000_000n;
const FJORD_DIVISOR = 1_000_000_000_000n;

/** Fjord linear-regression constants (fjord/exec-engine.md, table of input args). */
export const L1_COST_INTERCEPT = -42_585_600n;
export const L1_COST_FASTLZ_COEF = 836_500n;
export const MIN_TRANSACTION_SIZE = 100n;
/** jovian/l1-attributes.md: the DA footprint gas scalar used when the SystemConfig value is 0. */
export const DEFAULT_DA_FOOTPRINT_GAS_SCALAR = 400n;

function atLeast(fork: OpFork, target: OpFork): boolean {
  return OP_FORKS.indexOf(fork) >= OP_FORKS.indexOf(target);
}

/** Count zero and non-zero bytes and the FastLZ length of a transaction's full EIP-2718 encoding. */
export function rollupCostData(txRollupData: Uint8Array): RollupCostData {
  let zeroes = 0;
  for (let i = 0; i < txRollupData.length; i++) if (txRollupData[i] === 0) zeroes++;
  return {
    zeroes: BigInt(zeroes),
    ones: BigInt(txRollupData.length - zeroes),
    fastlzSize: BigInt(flzCompressLen(txRollupData)),
  };
}

/**
 * Calldata gas of the encoded transaction: `zeroes*4 + ones*16`, and before Regolith
 * `zeroes*4 + (ones + 68)*16` (exec-engine.md "Pre-Ecotone").
 */
export function rollupDataGas(data: Uint8Array, fork: OpFork): bigint {
  return calldataGas(rollupCostData(data), fork);
}

function calldataGas(cd: RollupCostData, fork: OpFork): bigint {
  const ones = atLeast(fork, "regolith") ? cd.ones : cd.ones + PRE_REGOLITH_EXTRA_BYTES;
  return cd.zeroes * TX_DATA_ZERO_GAS + ones * TX_DATA_NON_ZERO_GAS;
}

/**
 * True when Ecotone is active but the L1Block predeploy still holds pre-Ecotone values: the Ecotone
 * activation block, whose L1-info deposit still calls `setL1BlockValues` (ecotone/l1-attributes.md).
 * op-geth detects it the same way: blob base fee and both Ecotone scalars are zero.
 */
export function isPreEcotoneL1Info(params: L1CostParams): boolean {
  return params.l1BlobBaseFee === 0n && params.baseFeeScalar === 0n && params.blobBaseFeeScalar === 0n;
}

/** Fjord estimated DA size scaled by 1e6: `max(minTransactionSize*1e6, intercept + fastlzCoef*fastlzSize)`. */
function estimatedDaSizeScaled(fastlzSize: bigint): bigint {
  const size = L1_COST_INTERCEPT + L1_COST_FASTLZ_COEF * fastlzSize;
  const min = MIN_TRANSACTION_SIZE * ONE_MILLION;
  return size < min ? min : size;
}

/** Fjord estimated compressed size in bytes of a transaction with this FastLZ length (at least 100). */
export function estimatedDaSize(fastlzSize: bigint): bigint {
  return estimatedDaSizeScaled(fastlzSize) / ONE_MILLION;
}

/**
 * Jovian DA footprint of one non-deposit transaction: `estimatedDaSize * daFootprintGasScalar`
 * (jovian/exec-engine.md "DA Footprint Block Limit"). A block's footprint is the sum over its
 * non-deposit transactions; it becomes the header's blobGasUsed.
 */
export function daFootprint(txRollupData: Uint8Array, daFootprintGasScalar: bigint): bigint {
  return estimatedDaSize(BigInt(flzCompressLen(txRollupData))) * daFootprintGasScalar;
}

/** The L1 data fee and the `l1GasUsed` receipt value for prepared cost data (see {@link l1Cost}). */
export function l1CostFromCostData(
  fork: OpFork,
  params: L1CostParams,
  cd: RollupCostData,
): { fee: bigint; l1GasUsed: bigint } {
  if (cd.zeroes === 0n && cd.ones === 0n && cd.fastlzSize === 0n) return { fee: 0n, l1GasUsed: 0n };
  if (!atLeast(fork, "ecotone") || isPreEcotoneL1Info(params)) {
    // exec-engine.md "Pre-Ecotone": (rollupDataGas + overhead) * l1BaseFee * scalar / 1e6
    const l1GasUsed = calldataGas(cd, fork) + params.overhead;
    return { fee: l1GasUsed * params.l1BaseFee * params.scalar / ONE_MILLION, l1GasUsed };
  }
  const l1FeeScaled = 16n * params.baseFeeScalar * params.l1BaseFee +
    params.blobBaseFeeScalar * params.l1BlobBaseFee;
  if (!atLeast(fork, "fjord")) {
    // exec-engine.md "Ecotone L1-Cost fee changes": calldataGas * (16*l1BaseFee*baseFeeScalar + ...) / 16e6
    const l1GasUsed = calldataGas(cd, fork);
    return { fee: l1GasUsed * l1FeeScaled / ECOTONE_DIVISOR, l1GasUsed };
  }
  // fjord/exec-engine.md: estimatedSizeScaled * l1FeeScaled / 1e12; l1GasUsed = estimatedSize * 16
  const size = estimatedDaSizeScaled(cd.fastlzSize);
  return { fee: size * l1FeeScaled / FJORD_DIVISOR, l1GasUsed: size * TX_DATA_NON_ZERO_GAS / ONE_MILLION };
}

/**
 * The L1 data fee charged to a non-deposit transaction, given its full EIP-2718 encoding (signature
 * included), and the `l1GasUsed` its receipt reports. Empty data (e.g. a call without a transaction)
 * costs nothing. Deposits are never charged: callers skip them.
 */
export function l1Cost(
  fork: OpFork,
  params: L1CostParams,
  txRollupData: Uint8Array,
): { fee: bigint; l1GasUsed: bigint } {
  return l1CostFromCostData(fork, params, rollupCostData(txRollupData));
}

/**
 * The operator fee for `gas` (the gas limit when buying gas, the gas used when settling): zero before
 * Isthmus; `gas * operatorFeeScalar / 1e6 + operatorFeeConstant` from Isthmus (isthmus/exec-engine.md
 * "Fee Formula"); `gas * operatorFeeScalar * 100 + operatorFeeConstant` from Jovian (jovian/exec-engine.md
 * "Fee Formula Update"). Deposits pay none: callers skip them.
 */
export function operatorFee(fork: OpFork, params: L1CostParams, gas: bigint): bigint {
  if (!atLeast(fork, "isthmus")) return 0n;
  if (gas < 0n) throw new BaseError("INVALID_GAS", `Cannot compute operator fee: gas is ${gas}`);
  if (atLeast(fork, "jovian")) return gas * params.operatorFeeScalar * 100n + params.operatorFeeConstant;
  return gas * params.operatorFeeScalar / ONE_MILLION + params.operatorFeeConstant;
}

/** The OP fields of a non-deposit transaction's receipt (JSON-RPC names; values inside as bigint). */
export interface ReceiptL1Fields {
  l1GasUsed: bigint;
  l1GasPrice: bigint;
  l1Fee: bigint;
  /** Pre-Ecotone (and the Ecotone activation block): scalar / 1e6 as a decimal string. */
  l1FeeScalar?: string;
  /** From Ecotone. */
  l1BaseFeeScalar?: bigint;
  l1BlobBaseFee?: bigint;
  l1BlobBaseFeeScalar?: bigint;
  /** From Isthmus, and only when at least one of the two is non-zero (isthmus/exec-engine.md "Receipts"). */
  operatorFeeScalar?: bigint;
  operatorFeeConstant?: bigint;
  /** From Jovian: the block's DA footprint gas scalar (jovian/exec-engine.md "Receipts"). */
  daFootprintGasScalar?: bigint;
  /** From Jovian: the transaction's DA footprint, reported as the receipt's blobGasUsed. */
  blobGasUsed?: bigint;
}

/**
 * The L1 fee fields of a receipt, as op-geth derives them: `l1FeeScalar` is set while the pre-Ecotone
 * cost function applies; the Ecotone scalars and blob base fee from then on.
 */
export function receiptL1Fields(
  fork: OpFork,
  params: L1CostParams,
  txRollupData: Uint8Array,
): ReceiptL1Fields {
  const cd = rollupCostData(txRollupData);
  const { fee, l1GasUsed } = l1CostFromCostData(fork, params, cd);
  const out: ReceiptL1Fields = { l1GasUsed, l1GasPrice: params.l1BaseFee, l1Fee: fee };
  if (!atLeast(fork, "ecotone") || isPreEcotoneL1Info(params)) {
    out.l1FeeScalar = formatFeeScalar(params.scalar);
    return out;
  }
  out.l1BaseFeeScalar = params.baseFeeScalar;
  out.l1BlobBaseFee = params.l1BlobBaseFee;
  out.l1BlobBaseFeeScalar = params.blobBaseFeeScalar;
  if (atLeast(fork, "isthmus") && (params.operatorFeeScalar !== 0n || params.operatorFeeConstant !== 0n)) {
    out.operatorFeeScalar = params.operatorFeeScalar;
    out.operatorFeeConstant = params.operatorFeeConstant;
  }
  if (atLeast(fork, "jovian") && params.daFootprintGasScalar !== undefined) {
    out.daFootprintGasScalar = params.daFootprintGasScalar;
    out.blobGasUsed = estimatedDaSize(cd.fastlzSize) * params.daFootprintGasScalar;
  }
  return out;
}

/**
 * `scalar / 1e6` as op-geth prints the receipt's `l1FeeScalar` (a big.Float marshalled with
 * Text('g', -1)): plain decimal without trailing zeros, or exponent form ("5e-05", "1.5e+06") when the
 * decimal exponent is below -4 or at least 6. Exact for scalars below 10^18.
 */
export function formatFeeScalar(scalar: bigint): string {
  if (scalar < 0n) throw new BaseError("INVALID_QUANTITY", `Cannot format negative fee scalar ${scalar}`);
  if (scalar === 0n) return "0";
  const digits = scalar.toString().replace(/0+$/, "");
  // value = 0.d1d2d3... * 10^(pointPos), with decimal exponent exp = pointPos - 1
  const pointPos = scalar.toString().length - 6;
  const exp = pointPos - 1;
  if (exp < -4 || exp >= 6) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const sign = exp < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (pointPos <= 0) return `0.${"0".repeat(-pointPos)}${digits}`;
  if (digits.length <= pointPos) return digits + "0".repeat(pointPos - digits.length);
  return `${digits.slice(0, pointPos)}.${digits.slice(pointPos)}`;
}
