/**
 * The L1Block predeploy (0x4200…0015): its storage layout, the fee parameters the execution engine reads
 * from it, and the calldata of the L1-info deposit that writes it, per fork.
 * - Storage: contracts-bedrock `L1Block.sol` storageLayout (forge-artifacts/L1Block.sol/L1Block.json),
 *   exec-engine.md "L1-Cost fees" (slots 1, 3, 5, 6, 7), isthmus/exec-engine.md "Configuring Operator Fee
 *   Parameters" and jovian/exec-engine.md "Scalar loading" (slot 8). Solidity packs from the low-order
 *   end: an "offset" counts bytes from the right of the 32-byte word. Slot 8 follows the declaration order
 *   of L1Block.sol 1.8.0 (`uint64 operatorFeeConstant; uint32 operatorFeeScalar; uint16
 *   daFootprintGasScalar`), which is also where op-geth's ExtractOperatorFeeParams reads ([20:24) scalar,
 *   [24:32) constant); the Isthmus spec's "scalar at offset 0, constant at offset 4" wording disagrees.
 * - Calldata: deposits.md "L1 Attributes - Bedrock, Canyon, Delta" (ABI `setL1BlockValues`),
 *   ecotone/l1-attributes.md, isthmus/l1-attributes.md, jovian/l1-attributes.md (packed encodings).
 */
import { bigIntToBytes, bytesToBigInt, concatBytes, equalBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import {
  type ForkSchedule,
  isForkActivationBlock,
  isForkActive,
  OP_FORKS,
  type OpFork,
} from "./hardforks.ts";
import type { L1CostParams } from "./l1_cost.ts";

/** Storage slots of L1Block. */
export const L1_BLOCK_SLOTS = {
  /** number (uint64, offset 0) and timestamp (uint64, offset 8). */
  numberTimestamp: 0n,
  basefee: 1n,
  hash: 2n,
  /** sequenceNumber (uint64, offset 0), blobBaseFeeScalar (uint32, offset 8), baseFeeScalar (uint32, offset 12). */
  scalars: 3n,
  batcherHash: 4n,
  l1FeeOverhead: 5n,
  l1FeeScalar: 6n,
  blobBaseFee: 7n,
  /** operatorFeeConstant (uint64, offset 0), operatorFeeScalar (uint32, offset 8), daFootprintGasScalar (uint16, offset 12). */
  operatorFee: 8n,
} as const;

/** Everything an L1-info deposit carries; fields of later forks are 0 in earlier formats. */
export interface L1BlockInfo {
  number: bigint;
  timestamp: bigint;
  baseFee: bigint;
  blockHash: Uint8Array;
  sequenceNumber: bigint;
  batcherHash: Uint8Array;
  /** Bedrock format only. */
  l1FeeOverhead: bigint;
  /** Bedrock format only. */
  l1FeeScalar: bigint;
  /** From Ecotone. */
  blobBaseFee: bigint;
  baseFeeScalar: bigint;
  blobBaseFeeScalar: bigint;
  /** From Isthmus. */
  operatorFeeScalar: bigint;
  operatorFeeConstant: bigint;
  /** From Jovian. */
  daFootprintGasScalar: bigint;
}

/** The calldata formats; each is named after the fork that introduced it. */
export type L1InfoFormat = "bedrock" | "ecotone" | "isthmus" | "jovian";

/** Function selectors: first 4 bytes of keccak256 of the signature. */
export const L1_INFO_SELECTORS: Record<L1InfoFormat, Uint8Array> = {
  // setL1BlockValues(uint64,uint64,uint256,bytes32,uint64,bytes32,uint256,uint256)
  bedrock: new Uint8Array([0x01, 0x5d, 0x8e, 0xb9]),
  // setL1BlockValuesEcotone()
  ecotone: new Uint8Array([0x44, 0x0a, 0x5e, 0x20]),
  // setL1BlockValuesIsthmus()
  isthmus: new Uint8Array([0x09, 0x89, 0x99, 0xbe]),
  // setL1BlockValuesJovian()
  jovian: new Uint8Array([0x3d, 0xb6, 0xbe, 0x2b]),
};

/** Exact calldata length of each format. */
export const L1_INFO_LENGTHS: Record<L1InfoFormat, number> = {
  bedrock: 4 + 32 * 8,
  ecotone: 164,
  isthmus: 176,
  jovian: 178,
};

const UINT16_MAX = 0xffffn;
const UINT32_MAX = 0xffff_ffffn;
const UINT64_MAX = (1n << 64n) - 1n;
const UINT256_MAX = (1n << 256n) - 1n;

function atLeast(fork: OpFork, target: OpFork): boolean {
  return OP_FORKS.indexOf(fork) >= OP_FORKS.indexOf(target);
}

/** The calldata format of the fork `fork` (the format a block fully inside that fork uses). */
export function l1InfoFormatOf(fork: OpFork): L1InfoFormat {
  if (atLeast(fork, "jovian")) return "jovian";
  if (atLeast(fork, "isthmus")) return "isthmus";
  if (atLeast(fork, "ecotone")) return "ecotone";
  return "bedrock";
}

/**
 * The format the L1-info deposit of the L2 block at `timestamp` must use. A fork's activation block
 * still uses the previous format, because the L1Block upgrade runs later in that block
 * (ecotone/l1-attributes.md, isthmus/l1-attributes.md, jovian/l1-attributes.md).
 */
export function l1InfoFormatAt(forks: ForkSchedule, timestamp: bigint, blockTime: bigint): L1InfoFormat {
  for (
    const [fork, previous] of [["jovian", "isthmus"], ["isthmus", "ecotone"], ["ecotone", "bedrock"]] as const
  ) {
    if (isForkActive(forks, fork, timestamp)) {
      return isForkActivationBlock(forks, fork, timestamp, blockTime) ? previous : fork;
    }
  }
  return "bedrock";
}

function invalid(message: string): BaseError {
  return new BaseError("INVALID_L1_INFO", message);
}

function uint(name: string, value: bigint, max: bigint, bytes: number): Uint8Array {
  if (value < 0n || value > max) throw invalid(`Cannot encode L1 info: ${name} ${value} is out of range`);
  return bigIntToBytes(value, bytes);
}

function bytes32(name: string, value: Uint8Array): Uint8Array {
  if (value.length !== 32) {
    throw invalid(`Cannot encode L1 info: ${name} length is ${value.length}, expected 32`);
  }
  return value;
}

/** Encode the L1-info deposit calldata in `format` (or the format of a fork name). */
export function encodeL1InfoCalldata(format: L1InfoFormat | OpFork, info: L1BlockInfo): Uint8Array {
  const f: L1InfoFormat = format in L1_INFO_LENGTHS
    ? format as L1InfoFormat
    : l1InfoFormatOf(format as OpFork);
  if (f === "bedrock") {
    return concatBytes(
      L1_INFO_SELECTORS.bedrock,
      uint("number", info.number, UINT64_MAX, 32),
      uint("timestamp", info.timestamp, UINT64_MAX, 32),
      uint("baseFee", info.baseFee, UINT256_MAX, 32),
      bytes32("blockHash", info.blockHash),
      uint("sequenceNumber", info.sequenceNumber, UINT64_MAX, 32),
      bytes32("batcherHash", info.batcherHash),
      uint("l1FeeOverhead", info.l1FeeOverhead, UINT256_MAX, 32),
      uint("l1FeeScalar", info.l1FeeScalar, UINT256_MAX, 32),
    );
  }
  const parts = [
    L1_INFO_SELECTORS[f],
    uint("baseFeeScalar", info.baseFeeScalar, UINT32_MAX, 4),
    uint("blobBaseFeeScalar", info.blobBaseFeeScalar, UINT32_MAX, 4),
    uint("sequenceNumber", info.sequenceNumber, UINT64_MAX, 8),
    uint("timestamp", info.timestamp, UINT64_MAX, 8),
    uint("number", info.number, UINT64_MAX, 8),
    uint("baseFee", info.baseFee, UINT256_MAX, 32),
    uint("blobBaseFee", info.blobBaseFee, UINT256_MAX, 32),
    bytes32("blockHash", info.blockHash),
    bytes32("batcherHash", info.batcherHash),
  ];
  if (f === "isthmus" || f === "jovian") {
    parts.push(
      uint("operatorFeeScalar", info.operatorFeeScalar, UINT32_MAX, 4),
      uint("operatorFeeConstant", info.operatorFeeConstant, UINT64_MAX, 8),
    );
  }
  if (f === "jovian") parts.push(uint("daFootprintGasScalar", info.daFootprintGasScalar, UINT16_MAX, 2));
  return concatBytes(...parts);
}

/** An L1BlockInfo with every field zero (the fields a format does not carry stay so). */
export function emptyL1BlockInfo(): L1BlockInfo {
  return {
    number: 0n,
    timestamp: 0n,
    baseFee: 0n,
    blockHash: new Uint8Array(32),
    sequenceNumber: 0n,
    batcherHash: new Uint8Array(32),
    l1FeeOverhead: 0n,
    l1FeeScalar: 0n,
    blobBaseFee: 0n,
    baseFeeScalar: 0n,
    blobBaseFeeScalar: 0n,
    operatorFeeScalar: 0n,
    operatorFeeConstant: 0n,
    daFootprintGasScalar: 0n,
  };
}

/** Decode L1-info calldata of any format, chosen by its selector. Strict: the exact length is required. */
export function decodeL1InfoCalldata(data: Uint8Array): { format: L1InfoFormat; info: L1BlockInfo } {
  if (data.length < 4) throw invalid(`Cannot decode L1 info: data length is ${data.length}`);
  const selector = data.subarray(0, 4);
  const format = (Object.keys(L1_INFO_SELECTORS) as L1InfoFormat[]).find((f) =>
    equalBytes(L1_INFO_SELECTORS[f], selector)
  );
  if (format === undefined) {
    throw invalid(
      `Cannot decode L1 info: unknown selector 0x${
        [...selector].map((b) => b.toString(16).padStart(2, "0")).join("")
      }`,
    );
  }
  if (data.length !== L1_INFO_LENGTHS[format]) {
    throw invalid(
      `Cannot decode L1 info: ${format} data length is ${data.length}, expected ${L1_INFO_LENGTHS[format]}`,
    );
  }
  const info = emptyL1BlockInfo();
  const at = (start: number, len: number) => bytesToBigInt(data.subarray(start, start + len));
  if (format === "bedrock") {
    const word = (i: number) => data.subarray(4 + 32 * i, 4 + 32 * (i + 1));
    const u64 = (name: string, i: number) => {
      const v = bytesToBigInt(word(i));
      if (v > UINT64_MAX) throw invalid(`Cannot decode L1 info: ${name} does not fit in uint64`);
      return v;
    };
    info.number = u64("number", 0);
    info.timestamp = u64("timestamp", 1);
    info.baseFee = bytesToBigInt(word(2));
    info.blockHash = word(3).slice();
    info.sequenceNumber = u64("sequenceNumber", 4);
    info.batcherHash = word(5).slice();
    info.l1FeeOverhead = bytesToBigInt(word(6));
    info.l1FeeScalar = bytesToBigInt(word(7));
    return { format, info };
  }
  info.baseFeeScalar = at(4, 4);
  info.blobBaseFeeScalar = at(8, 4);
  info.sequenceNumber = at(12, 8);
  info.timestamp = at(20, 8);
  info.number = at(28, 8);
  info.baseFee = at(36, 32);
  info.blobBaseFee = at(68, 32);
  info.blockHash = data.slice(100, 132);
  info.batcherHash = data.slice(132, 164);
  if (format === "isthmus" || format === "jovian") {
    info.operatorFeeScalar = at(164, 4);
    info.operatorFeeConstant = at(168, 8);
  }
  if (format === "jovian") info.daFootprintGasScalar = at(176, 2);
  return { format, info };
}

/** Bytes [32 - offset - size, 32 - offset) of a slot value, as an integer. */
function field(word: bigint, offset: number, size: number): bigint {
  return (word >> BigInt(offset * 8)) & ((1n << BigInt(size * 8)) - 1n);
}

/**
 * The fee parameters for transactions of a block under `fork`, read from the L1Block storage after the
 * block's deposits ran (op-geth reads them lazily for the same reason). Only the slots the fork uses are
 * read; the others are 0.
 */
export function readL1CostParams(getStorage: (slot: bigint) => bigint, fork: OpFork): L1CostParams {
  const params: L1CostParams = {
    l1BaseFee: getStorage(L1_BLOCK_SLOTS.basefee),
    overhead: 0n,
    scalar: 0n,
    baseFeeScalar: 0n,
    blobBaseFeeScalar: 0n,
    l1BlobBaseFee: 0n,
    operatorFeeScalar: 0n,
    operatorFeeConstant: 0n,
  };
  const loadBedrock = () => {
    params.overhead = getStorage(L1_BLOCK_SLOTS.l1FeeOverhead);
    params.scalar = getStorage(L1_BLOCK_SLOTS.l1FeeScalar);
  };
  if (!atLeast(fork, "ecotone")) {
    loadBedrock();
    return params;
  }
  const scalars = getStorage(L1_BLOCK_SLOTS.scalars);
  params.baseFeeScalar = field(scalars, 12, 4);
  params.blobBaseFeeScalar = field(scalars, 8, 4);
  params.l1BlobBaseFee = getStorage(L1_BLOCK_SLOTS.blobBaseFee);
  // The Ecotone activation block still holds pre-Ecotone values; its cost function needs them.
  if (params.l1BlobBaseFee === 0n && params.baseFeeScalar === 0n && params.blobBaseFeeScalar === 0n) {
    loadBedrock();
  }
  if (atLeast(fork, "isthmus")) {
    const op = getStorage(L1_BLOCK_SLOTS.operatorFee);
    params.operatorFeeConstant = field(op, 0, 8);
    params.operatorFeeScalar = field(op, 8, 4);
    if (atLeast(fork, "jovian")) params.daFootprintGasScalar = field(op, 12, 2);
  }
  return params;
}

/**
 * The L1Block storage an L1-info deposit with `info` leaves behind (non-zero slots only), to preset the
 * predeploy in a genesis. Values of every format are written; readers pick what their fork uses.
 */
export function l1BlockStorage(info: L1BlockInfo): Map<bigint, bigint> {
  const pack = (...fields: [bigint, number, number][]) =>
    fields.reduce((acc, [v, offset, size]) => {
      if (v < 0n || v >= 1n << BigInt(size * 8)) {
        throw invalid(`Cannot pack L1Block slot: value ${v} too large`);
      }
      return acc | (v << BigInt(offset * 8));
    }, 0n);
  const entries: [bigint, bigint][] = [
    [L1_BLOCK_SLOTS.numberTimestamp, pack([info.number, 0, 8], [info.timestamp, 8, 8])],
    [L1_BLOCK_SLOTS.basefee, info.baseFee],
    [L1_BLOCK_SLOTS.hash, bytesToBigInt(bytes32("blockHash", info.blockHash))],
    [
      L1_BLOCK_SLOTS.scalars,
      pack([info.sequenceNumber, 0, 8], [info.blobBaseFeeScalar, 8, 4], [info.baseFeeScalar, 12, 4]),
    ],
    [L1_BLOCK_SLOTS.batcherHash, bytesToBigInt(bytes32("batcherHash", info.batcherHash))],
    [L1_BLOCK_SLOTS.l1FeeOverhead, info.l1FeeOverhead],
    [L1_BLOCK_SLOTS.l1FeeScalar, info.l1FeeScalar],
    [L1_BLOCK_SLOTS.blobBaseFee, info.blobBaseFee],
    [
      L1_BLOCK_SLOTS.operatorFee,
      pack([info.operatorFeeConstant, 0, 8], [info.operatorFeeScalar, 8, 4], [
        info.daFootprintGasScalar,
        12,
        2,
      ]),
    ],
  ];
  const out = new Map<bigint, bigint>();
  for (const [slot, value] of entries) {
    if (value < 0n || value > UINT256_MAX) {
      throw invalid(`Cannot store L1Block slot ${slot}: value out of range`);
    }
    if (value !== 0n) out.set(slot, value);
  }
  return out;
}

/**
 * Plausible L1 values for a dev genesis: L1 block 1 with a 1 gwei base fee and the minimum blob base fee,
 * the pre-Ecotone defaults overhead 188 and scalar 684000, Ecotone scalars of the order OP Stack chains
 * run with (base fee 1368, blob base fee 810949), no operator fee, and Jovian's default DA footprint
 * gas scalar 400 (jovian/l1-attributes.md).
 */
export const DEV_L1_BLOCK_INFO: Readonly<L1BlockInfo> = Object.freeze({
  number: 1n,
  timestamp: 0n,
  baseFee: 1_000_000_000n,
  blockHash: new Uint8Array(32),
  sequenceNumber: 0n,
  batcherHash: new Uint8Array(32),
  l1FeeOverhead: 188n,
  l1FeeScalar: 684_000n,
  blobBaseFee: 1n,
  baseFeeScalar: 1368n,
  blobBaseFeeScalar: 810_949n,
  operatorFeeScalar: 0n,
  operatorFeeConstant: 0n,
  daFootprintGasScalar: 400n,
});
