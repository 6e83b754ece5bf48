/**
 * The payload attributes of the next L2 block on top of a parent, from its epoch's L1 block
 * (specs/protocol/derivation.md "Deriving Payload Attributes", "Deriving the Transaction List" and
 * "Building Individual Payload Attributes"; deposits.md "L1 Attributes Deposited Transaction"; the forks'
 * derivation.md, l1-attributes.md and exec-engine.md from Ecotone to Jovian). The pure counterpart of
 * op-node's `PreparePayloadAttributes` and `L1InfoDeposit`: the caller fetches the L1 header and receipts,
 * applies the epoch's system config updates and supplies the fork upgrade deposits.
 *
 * The attributes hold the deposits only: a verifier appends the batch's transactions, a sequencer asks
 * for `noTxPool: false` to fill the block from its pool.
 */
import { bytesToBigInt, bytesToHex, concatBytes, equalBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { L1Header, L2BlockRef } from "../../protocol/block_ref.ts";
import { depositsFromReceipts, type L1Receipt } from "../../protocol/deposit_event.ts";
import { type DepositTx, encodeDepositTx, l1InfoDepositSourceHash } from "../../protocol/deposit_tx.ts";
import type { PayloadAttributes } from "../../protocol/engine.ts";
import { type L1BlobFeeSchedule, l1HeaderBlobBaseFee } from "../../protocol/l1_blob_fee.ts";
import {
  emptyL1BlockInfo,
  encodeL1InfoCalldata,
  type L1BlockInfo,
  type L1InfoFormat,
  l1InfoFormatAt,
} from "../../protocol/l1_block_info.ts";
import { DEFAULT_DA_FOOTPRINT_GAS_SCALAR } from "../../protocol/l1_cost.ts";
import {
  L1_ATTRIBUTES_DEPOSITOR_ADDRESS,
  L1_BLOCK_ADDRESS,
  SEQUENCER_FEE_VAULT_ADDRESS,
} from "../../protocol/predeploys.ts";
import { isRollupForkActive, type RollupConfig } from "../../protocol/rollup_config.ts";
import {
  decodeEcotoneScalars,
  decodeOperatorFeeParams,
  type SystemConfig,
} from "../../protocol/system_config.ts";

/** Gas of the L1-info deposit before Regolith (deposits.md "L1 Attributes Deposited Transaction"). */
export const L1_INFO_DEPOSIT_GAS_BEDROCK = 150_000_000n;
/** Gas of the L1-info deposit from Regolith. */
export const L1_INFO_DEPOSIT_GAS_REGOLITH = 1_000_000n;

export interface PayloadAttributesInput {
  config: RollupConfig;
  /** The L2 block to build on. */
  parent: L2BlockRef;
  /** The header of the new block's L1 origin: the parent's, or the L1 block right after it. */
  l1Origin: L1Header;
  /**
   * Every receipt of `l1Origin`, in block order. Read only when the new block starts the epoch
   * (`l1Origin` is not the parent's origin); otherwise ignored, and `[]` will do.
   */
  receipts: readonly L1Receipt[];
  /** The system config in force for the new block: the caller has applied `l1Origin`'s config updates. */
  systemConfig: SystemConfig;
  /** The L1 chain's blob fee schedule when known (see `blobBaseFeeUpdateFraction`). */
  l1BlobFeeSchedule?: L1BlobFeeSchedule;
  /**
   * The network upgrade deposits (encoded) of the L2 block at `timestamp`: those of each fork whose
   * activation block it is, in fork order, else none.
   */
  upgradeTransactions: (timestamp: bigint) => Uint8Array[];
  /** `true` (the default) for derivation and deposit-only blocks; a sequencer filling from its pool passes `false`. */
  noTxPool?: boolean;
}

function epochError(message: string, meta: Record<string, unknown>): BaseError {
  return new BaseError("ATTRIBUTES_EPOCH", message, { meta, severity: "reset" });
}

function criticalError(code: string, message: string, cause: unknown): BaseError {
  return new BaseError(code, message, { severity: "critical", cause });
}

/**
 * The L1-info deposit of the L2 block at `l2Timestamp` with L1 origin `l1Origin` and position
 * `sequenceNumber` in its epoch (op-node `L1InfoDeposit`). The calldata format follows
 * `l1InfoFormatAt` (a fork's activation block keeps the previous format). Invalid fee scalars in the
 * system config throw with severity `critical`.
 */
export function l1InfoDepositTx(
  config: RollupConfig,
  systemConfig: SystemConfig,
  l1Origin: L1Header,
  sequenceNumber: bigint,
  l2Timestamp: bigint,
  l1BlobFeeSchedule?: L1BlobFeeSchedule,
): DepositTx {
  const format: L1InfoFormat = l1InfoFormatAt(config.forks, l2Timestamp, config.blockTime);
  const info: L1BlockInfo = {
    ...emptyL1BlockInfo(),
    number: l1Origin.number,
    timestamp: l1Origin.timestamp,
    baseFee: l1Origin.baseFeePerGas,
    blockHash: l1Origin.hash,
    sequenceNumber,
    batcherHash: concatBytes(new Uint8Array(12), systemConfig.batcherAddr),
  };
  if (format === "bedrock") {
    info.l1FeeOverhead = bytesToBigInt(systemConfig.overhead);
    info.l1FeeScalar = bytesToBigInt(systemConfig.scalar);
  } else {
    try {
      const scalars = decodeEcotoneScalars(systemConfig.scalar);
      info.baseFeeScalar = scalars.baseFeeScalar;
      info.blobBaseFeeScalar = scalars.blobBaseFeeScalar;
      if (format === "isthmus" || format === "jovian") {
        const operatorFee = decodeOperatorFeeParams(systemConfig.operatorFeeParams);
        info.operatorFeeScalar = operatorFee.operatorFeeScalar;
        info.operatorFeeConstant = operatorFee.operatorFeeConstant;
      }
    } catch (cause) {
      throw criticalError(
        "ATTRIBUTES_L1_INFO",
        `Cannot build L1 info deposit: ${(cause as Error).message}`,
        cause,
      );
    }
    info.blobBaseFee = l1HeaderBlobBaseFee(config, l1BlobFeeSchedule, l1Origin);
    if (format === "jovian") {
      // jovian/l1-attributes.md: a zero scalar in the SystemConfig is written as the default 400.
      info.daFootprintGasScalar = systemConfig.daFootprintGasScalar === 0n
        ? DEFAULT_DA_FOOTPRINT_GAS_SCALAR
        : systemConfig.daFootprintGasScalar;
    }
  }
  const regolith = isRollupForkActive(config, "regolith", l2Timestamp);
  return {
    sourceHash: l1InfoDepositSourceHash(l1Origin.hash, sequenceNumber),
    from: L1_ATTRIBUTES_DEPOSITOR_ADDRESS.slice(),
    to: L1_BLOCK_ADDRESS.slice(),
    mint: 0n,
    value: 0n,
    gas: regolith ? L1_INFO_DEPOSIT_GAS_REGOLITH : L1_INFO_DEPOSIT_GAS_BEDROCK,
    isSystemTx: !regolith,
    data: encodeL1InfoCalldata(format, info),
  };
}

/**
 * The payload attributes of the block after `input.parent` with L1 origin `input.l1Origin`
 * (op-node `PreparePayloadAttributes`):
 * - a new epoch (origin number differs from the parent's) must be the L1 block right after the parent's
 *   origin: sequence number 0 and the user deposits of the origin's receipts;
 * - the parent's own epoch must be the very same L1 block: sequence number + 1, no user deposits;
 * anything else, or an L2 time before the origin's L1 time, throws `ATTRIBUTES_EPOCH` (severity `reset`).
 * Transactions are `[L1-info deposit, user deposits..., upgrade deposits...]` (derivation.md, "must appear
 * in this order"). Malformed deposit logs throw `INVALID_DEPOSIT_LOG` (severity `critical`).
 */
export function buildPayloadAttributes(input: PayloadAttributesInput): PayloadAttributes {
  const { config, parent, l1Origin, systemConfig } = input;
  const parentOrigin = parent.l1Origin;
  let sequenceNumber: bigint;
  let userDeposits: DepositTx[] = [];
  if (parentOrigin.number !== l1Origin.number) {
    if (l1Origin.number !== parentOrigin.number + 1n || !equalBytes(l1Origin.parentHash, parentOrigin.hash)) {
      throw epochError(
        `Cannot build attributes: L1 origin ${l1Origin.number} (parent ${
          bytesToHex(l1Origin.parentHash)
        }) does not follow the parent's L1 origin ${parentOrigin.number} (${bytesToHex(parentOrigin.hash)})`,
        { l1Origin: l1Origin.number, parentL1Origin: parentOrigin.number },
      );
    }
    userDeposits = depositsFromReceipts(input.receipts, config.depositContractAddress, l1Origin.hash);
    sequenceNumber = 0n;
  } else {
    if (!equalBytes(l1Origin.hash, parentOrigin.hash)) {
      throw epochError(
        `Cannot build attributes: L1 origin ${l1Origin.number} ${
          bytesToHex(l1Origin.hash)
        } conflicts with the parent's L1 origin ${bytesToHex(parentOrigin.hash)}`,
        { l1Origin: l1Origin.number, parentL1Origin: parentOrigin.number },
      );
    }
    sequenceNumber = parent.sequenceNumber + 1n;
  }

  const timestamp = parent.timestamp + config.blockTime;
  if (timestamp < l1Origin.timestamp) {
    throw epochError(
      `Cannot build attributes: L2 time ${timestamp} is before the L1 origin's time ${l1Origin.timestamp}`,
      { timestamp, l1OriginTimestamp: l1Origin.timestamp },
    );
  }

  const l1Info = l1InfoDepositTx(
    config,
    systemConfig,
    l1Origin,
    sequenceNumber,
    timestamp,
    input.l1BlobFeeSchedule,
  );
  const transactions = [
    encodeDepositTx(l1Info),
    ...userDeposits.map(encodeDepositTx),
    ...input.upgradeTransactions(timestamp),
  ];

  const attributes: PayloadAttributes = {
    timestamp,
    prevRandao: l1Origin.mixHash.slice(),
    suggestedFeeRecipient: SEQUENCER_FEE_VAULT_ADDRESS.slice(),
    transactions,
    noTxPool: input.noTxPool ?? true,
    gasLimit: systemConfig.gasLimit,
  };
  if (isRollupForkActive(config, "canyon", timestamp)) attributes.withdrawals = [];
  if (isRollupForkActive(config, "ecotone", timestamp)) {
    // op-node: a zero hash when the L1 header has no beacon block root.
    attributes.parentBeaconBlockRoot = l1Origin.parentBeaconBlockRoot?.slice() ?? new Uint8Array(32);
  }
  if (isRollupForkActive(config, "holocene", timestamp)) {
    attributes.eip1559Params = systemConfig.eip1559Params.slice();
  }
  if (isRollupForkActive(config, "jovian", timestamp)) attributes.minBaseFee = systemConfig.minBaseFee;
  return attributes;
}
