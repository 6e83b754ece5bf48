/**
 * The execution engine's side of the transaction pool: a block takes the pool's pending transactions
 * in price and nonce order, and the pool follows the canonical head (included transactions leave it,
 * those of dropped blocks come back).
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex } from "../../common/bytes.ts";
import type { Logger } from "../../common/logger.ts";
import type { ChainConfig } from "../../protocol/mod.ts";
import { type BlockBuilder, decodeSignedTx, forkRules } from "../evm/mod.ts";
import type { TxPool } from "../txpool/mod.ts";
import type { EngineTxPool } from "./engine_types.ts";

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
 * Adds `pool`'s pending transactions to the block, best first, until the gas runs out or `max` are in;
 * returns how many failed (each skips its account for this block, as geth's miner: txs.Pop()).
 */
export async function fillFromPool(
  builder: BlockBuilder,
  pool: EngineTxPool,
  max: number,
  logger: Logger,
): Promise<number> {
  const baseFee = builder.header.baseFeePerGas ?? 0n;
  const txs = pool.pending(baseFee);
  let taken = 0;
  let skipped = 0;
  for (let tx = txs.peek(); tx !== undefined && taken < max; tx = txs.peek()) {
    if (builder.header.gasLimit - builder.gasUsed < 21_000n) break;
    if (tx.gasLimit > builder.header.gasLimit - builder.gasUsed) {
      txs.pop();
      continue;
    }
    try {
      await builder.addTransaction(tx);
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
