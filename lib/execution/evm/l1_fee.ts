/**
 * The L1 data fee and operator fee of one block, from the L1Block predeploy's storage
 * (specs/protocol/exec-engine.md "L1-Cost fees"; ecotone, isthmus and jovian l1-attributes.md for the slots).
 * Read once per block, after the deposits (the L1-info deposit sets them), before the first user tx,
 * as op-geth's per-block L1 cost function does.
 */
import type { StateManagerInterface } from "@ethereumjs/common";
import { Address, bigIntToBytes, bytesToBigInt, setLengthLeft } from "@ethereumjs/util";
import type { OpFork } from "../../protocol/hardforks.ts";
import { readL1CostParams } from "../../protocol/l1_block_info.ts";
import {
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
  const params = readL1CostParams((slot) => values.get(slot) ?? 0n, fork);
  return {
    fork,
    params,
    l1Fee: (encodedTx) => receiptL1Fields(fork, params, encodedTx),
    operatorFee: (gas) => operatorFee(fork, params, gas),
  };
}
