/**
 * The reference of an L2 block from its payload (op-node's PayloadToBlockRef): the L1 origin and the
 * sequence number come from its L1-info deposit, the first transaction; the genesis block has none
 * and takes the rollup config's genesis L1 block.
 */
import { BaseError } from "../../common/errors.ts";
import type { L2BlockRef } from "../../protocol/block_ref.ts";
import { decodeDepositTx, DEPOSIT_TX_TYPE } from "../../protocol/deposit_tx.ts";
import type { ExecutionPayload } from "../../protocol/engine.ts";
import { decodeL1InfoCalldata } from "../../protocol/l1_block_info.ts";
import type { RollupConfig } from "../../protocol/rollup_config.ts";

export function l2BlockRefFromPayload(cfg: RollupConfig, p: ExecutionPayload): L2BlockRef {
  const base = { hash: p.blockHash, number: p.blockNumber, parentHash: p.parentHash, timestamp: p.timestamp };
  if (p.blockNumber === cfg.genesis.l2.number) {
    return { ...base, l1Origin: cfg.genesis.l1, sequenceNumber: 0n };
  }
  const first = p.transactions[0];
  if (first === undefined || first[0] !== DEPOSIT_TX_TYPE) {
    throw new BaseError(
      "L2_BLOCK_NO_L1_INFO",
      `Cannot read L2 block ${p.blockNumber}: its first transaction is not the L1-info deposit`,
    );
  }
  const { info } = decodeL1InfoCalldata(decodeDepositTx(first).data);
  return {
    ...base,
    l1Origin: { hash: info.blockHash, number: info.number },
    sequenceNumber: info.sequenceNumber,
  };
}
