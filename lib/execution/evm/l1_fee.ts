/**
 * The L1 data fee and operator fee of one block, from the L1Block predeploy's storage
 * (specs/protocol/exec-engine.md "L1-Cost fees"; ecotone, isthmus and jovian l1-attributes.md for the slots).
 * Read once per block, after the deposits (the L1-info deposit sets them), before the first user tx,
 * as op-geth's per-block L1 cost function does.
 */
import type { StateManagerInterface } from "@ethereumjs/common";
import { Address, bigIntToBytes, bytesToBigInt, setLengthLeft } from "@ethereumjs/util";
import { OP_FORKS, type OpFork } from "../../protocol/hardforks.ts";
import {
  DEFAULT_DA_FOOTPRINT_GAS_SCALAR,
  type L1CostParams,
  operatorFee,
  type ReceiptL1Fields,
  receiptL1Fields,
} from "../../protocol/l1_cost.ts";
import { L1_BLOCK_ADDRESS } from "../../protocol/predeploys.ts";

export type L1FeeInfo = ReceiptL1Fields;

export interface L1FeeSource {
  fork: OpFork;
  params: L1CostParams;
  /** L1 data fee and receipt fields of a user tx, from its full EIP-2718 encoding. */
  l1Fee(encodedTx: Uint8Array): L1FeeInfo;
  /** Operator fee for `gas` (gas limit when buying, gas used when settling); 0 before Isthmus. */
  operatorFee(gas: bigint): bigint;
}

/** The L1Block slots the fee needs: 0..8. */
const SLOTS = [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n];

/** Reads the fee parameters from the L1Block predeploy in `sm` for a block of fork `fork`. */
export async function loadL1FeeSource(sm: StateManagerInterface, fork: OpFork): Promise<L1FeeSource> {
  const a = new Address(L1_BLOCK_ADDRESS);
  const values = new Map<bigint, bigint>();
  for (const slot of SLOTS) {
    values.set(slot, bytesToBigInt(await sm.getStorage(a, setLengthLeft(bigIntToBytes(slot), 32))));
  }
  const params = decodeL1BlockSlots((slot) => values.get(slot) ?? 0n, fork);
  return {
    fork,
    params,
    l1Fee: (encodedTx) => receiptL1Fields(fork, params, encodedTx),
    operatorFee: (gas) => operatorFee(fork, params, gas),
  };
}

const U32 = 0xffff_ffffn;
const U64 = (1n << 64n) - 1n;

/**
 * The fee parameters from the L1Block slots (Solidity packing, offsets from the low-order end):
 * 1 basefee; 3 sequenceNumber u64 | blobBaseFeeScalar u32 (offset 8) | baseFeeScalar u32 (offset 12);
 * 5 l1FeeOverhead; 6 l1FeeScalar; 7 blobBaseFee; 8 operatorFeeConstant u64 | operatorFeeScalar u32
 * (offset 8) | daFootprintGasScalar u16 (offset 12, Jovian), as op-geth reads bytes [20:24] and [24:32].
 */
export function decodeL1BlockSlots(slot: (n: bigint) => bigint, fork: OpFork): L1CostParams {
  const s3 = slot(3n);
  const s8 = slot(8n);
  const params: L1CostParams = {
    l1BaseFee: slot(1n),
    overhead: slot(5n),
    scalar: slot(6n),
    baseFeeScalar: (s3 >> 96n) & U32,
    blobBaseFeeScalar: (s3 >> 64n) & U32,
    l1BlobBaseFee: slot(7n),
    operatorFeeScalar: (s8 >> 64n) & U32,
    operatorFeeConstant: s8 & U64,
  };
  if (OP_FORKS.indexOf(fork) >= OP_FORKS.indexOf("jovian")) {
    const v = (s8 >> 96n) & 0xffffn;
    // jovian/l1-attributes.md: a zero scalar means the default.
    params.daFootprintGasScalar = v === 0n ? DEFAULT_DA_FOOTPRINT_GAS_SCALAR : v;
  }
  return params;
}
