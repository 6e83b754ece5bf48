/**
 * The system config in force at an L2 block, read back from the block (op-node's
 * PayloadToSystemConfig): the batcher, fee scalars, operator fee and DA footprint scalar from its
 * L1-info deposit, the gas limit from its header, and from Holocene the EIP-1559 parameters (and from
 * Jovian the minimum base fee) from its extraData. The genesis block takes the rollup config's.
 */
import { BaseError } from "../../common/errors.ts";
import { decodeDepositTx, DEPOSIT_TX_TYPE } from "../../protocol/deposit_tx.ts";
import { decodeExtraData, encodeEip1559Params } from "../../protocol/eip1559.ts";
import { decodeL1InfoCalldata } from "../../protocol/l1_block_info.ts";
import { isRollupForkActive, type RollupConfig } from "../../protocol/rollup_config.ts";
import {
  encodeEcotoneScalar,
  encodeOperatorFeeParams,
  type SystemConfig,
  systemConfigFromGenesis,
} from "../../protocol/system_config.ts";

/** The L2 block fields the system config is read from. */
export interface L2BlockForConfig {
  blockNumber: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  extraData: Uint8Array;
  transactions: Uint8Array[];
}

function word(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  new DataView(out.buffer).setBigUint64(24, v & 0xffffffffffffffffn);
  new DataView(out.buffer).setBigUint64(16, (v >> 64n) & 0xffffffffffffffffn);
  new DataView(out.buffer).setBigUint64(8, (v >> 128n) & 0xffffffffffffffffn);
  new DataView(out.buffer).setBigUint64(0, v >> 192n);
  return out;
}

export function systemConfigFromL2Block(cfg: RollupConfig, block: L2BlockForConfig): SystemConfig {
  if (block.blockNumber === cfg.genesis.l2.number) return systemConfigFromGenesis(cfg.genesis.systemConfig);
  const first = block.transactions[0];
  if (first === undefined || first[0] !== DEPOSIT_TX_TYPE) {
    throw new BaseError(
      "L2_BLOCK_NO_L1_INFO",
      `Cannot read the system config of L2 block ${block.blockNumber}: no L1-info deposit`,
    );
  }
  const { format, info } = decodeL1InfoCalldata(decodeDepositTx(first).data);
  const bedrock = format === "bedrock";
  const out: SystemConfig = {
    batcherAddr: info.batcherHash.slice(12),
    overhead: bedrock ? word(info.l1FeeOverhead) : new Uint8Array(32),
    scalar: bedrock
      ? word(info.l1FeeScalar)
      : encodeEcotoneScalar({ baseFeeScalar: info.baseFeeScalar, blobBaseFeeScalar: info.blobBaseFeeScalar }),
    gasLimit: block.gasLimit,
    eip1559Params: new Uint8Array(8),
    operatorFeeParams: encodeOperatorFeeParams({
      operatorFeeScalar: info.operatorFeeScalar,
      operatorFeeConstant: info.operatorFeeConstant,
    }),
    minBaseFee: 0n,
    daFootprintGasScalar: info.daFootprintGasScalar,
  };
  if (isRollupForkActive(cfg, "holocene", block.timestamp) && block.extraData.length > 0) {
    const params = decodeExtraData(block.extraData);
    out.eip1559Params = encodeEip1559Params(params.denominator, params.elasticity);
    out.minBaseFee = params.minBaseFee ?? 0n;
  }
  return out;
}
