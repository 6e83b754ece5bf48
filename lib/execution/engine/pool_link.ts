/**
 * The execution engine's side of the transaction pool: a block takes the pool's pending transactions
 * in price and nonce order, and the pool follows the canonical head (included transactions leave it,
 * those of dropped blocks come back).
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex } from "../../common/bytes.ts";
import type { Logger } from "../../common/logger.ts";
import { type ChainConfig, estimatedDaSize, flzCompressLen } from "../../protocol/mod.ts";
import { type BlockBuilder, decodeSignedTx, encodingOf, forkRules } from "../evm/mod.ts";
import type { TxPool } from "../txpool/mod.ts";
import type { EngineTxPool } from "./engine_types.ts";
import { headerConditionalError, stateConditionalError, type TxConditionals } from "../txpool/mod.ts";

/** `pool` as the engine uses it: dropped blocks' transactions decoded under the new head's rules. */
export function engineTxPool(pool: TxPool, config: ChainConfig): EngineTxPool {
  return {
    pending: (baseFee) => pool.pending(baseFee),
    onNewHead: async (event) => {
      const common = forkRules(config, event.head.timestamp).common;
      const removed: TypedTransaction[] = [];
      for (const b of event.removed) {
        for (const raw of b.block.transactions) {
          if (raw.length > 0 && raw[0] === 0x7e) continue;
          try {
            removed.push(decodeSignedTx(raw, common));
          } catch {
            // Not decodable under today's rules: it cannot go back into the pool.
          }
        }
      }
      const included = event.added.flatMap((b) => b.receipts.map((r) => r.txHash));
      await pool.onNewHead({ included, removed });
    },
  };
}

/**
 * The sequencer's data-availability limits (op-geth's miner.config.MaxDATxSize / MaxDABlockSize, set by
 * op-batcher's throttling through miner_setMaxDASize), in estimated DA bytes (the Fjord FastLZ
 * estimate, op-geth RollupCostData.EstimatedDASize); 0 is no limit. Deposits are never held back.
 */
export interface DaLimits {
  /** A pool transaction estimated larger waits, and so do its sender's later ones. */
  maxTxSize: bigint;
  /** The pool transactions of one block together. */
  maxBlockSize: bigint;
}

/** The smallest estimate a transaction can have (op-geth types.MinTransactionSize). */
const MIN_TRANSACTION_SIZE = 100n;

/** A transaction's estimated DA size: the Fjord estimate over its signed encoding. */
export function estimatedTxDaSize(tx: TypedTransaction): bigint {
  return estimatedDaSize(BigInt(flzCompressLen(encodingOf(tx))));
}

/**
 * Adds `pool`'s pending transactions to the block, best first, until the gas runs out or `max` are in;
 * returns how many failed (each skips its account for this block, as geth's miner: txs.Pop()).
 * With DA `limits` (op-geth miner commitTransactions and its pool's MaxDATxSize filter): a transaction
 * over the per-transaction limit holds back its account; one that would take the block over the block
 * limit skips its account, and filling stops once less than the smallest transaction's estimate is left.
 * With `conditionals` (eth_sendRawTransactionConditional), a conditional transaction whose conditional
 * fails on the block being built leaves the pool and skips its account.
 */
export async function fillFromPool(
  builder: BlockBuilder,
  pool: EngineTxPool,
  max: number,
  logger: Logger,
  limits: DaLimits = { maxTxSize: 0n, maxBlockSize: 0n },
  conditionals?: TxConditionals,
): Promise<number> {
  conditionals?.prune();
  const baseFee = builder.header.baseFeePerGas ?? 0n;
  const txs = pool.pending(baseFee);
  let taken = 0;
  let skipped = 0;
  let blockDa = 0n;
  const limited = limits.maxTxSize > 0n || limits.maxBlockSize > 0n;
  for (let tx = txs.peek(); tx !== undefined && taken < max; tx = txs.peek()) {
    if (builder.header.gasLimit - builder.gasUsed < 21_000n) break;
    if (tx.gasLimit > builder.header.gasLimit - builder.gasUsed) {
      txs.pop();
      continue;
    }
    const da = limited ? estimatedTxDaSize(tx) : 0n;
    if (limits.maxTxSize > 0n && da > limits.maxTxSize) {
      logger.debug("Pool transaction over the DA size limit", { hash: bytesToHex(tx.hash()), da });
      txs.pop();
      continue;
    }
    if (limits.maxBlockSize > 0n && blockDa + da > limits.maxBlockSize) {
      logger.debug("Pool transaction would exceed the block's DA size limit", {
        hash: bytesToHex(tx.hash()),
        da,
      });
      txs.pop();
      if (limits.maxBlockSize - blockDa < MIN_TRANSACTION_SIZE) break;
      continue;
    }
    if (conditionals !== undefined && conditionals.size > 0) {
      // eth_sendRawTransactionConditional: checked again on the block being built (op-geth miner).
      const hash = bytesToHex(tx.hash());
      const cond = conditionals.get(hash);
      const failure = cond === undefined
        ? undefined
        : headerConditionalError(cond, builder.header) ?? await stateConditionalError(cond, builder.state);
      if (failure !== undefined) {
        logger.warn("Conditional transaction rejected", { hash, reason: failure });
        conditionals.reject(hash);
        skipped++;
        txs.pop();
        continue;
      }
    }
    try {
      await builder.addTransaction(tx);
      blockDa += da;
      txs.shift();
      taken++;
    } catch (e) {
      // The transaction left no trace.
      skipped++;
      logger.debug("Pool transaction skipped", { hash: bytesToHex(tx.hash()), error: (e as Error).message });
      txs.pop();
    }
  }
  return skipped;
}
