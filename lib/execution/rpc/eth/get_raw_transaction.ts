/**
 * eth_getRawTransactionByHash, eth_getRawTransactionByBlockHashAndIndex and
 * eth_getRawTransactionByBlockNumberAndIndex (geth internal/ethapi TransactionAPI): a transaction's
 * EIP-2718 encoding, canonical or (by hash) pooled; "0x" when there is none, as geth answers.
 * `cast tx <hash> --raw` asks the first.
 */
import { bytesToHex, type Hex } from "../../../common/mod.ts";
import { defineMethod, s } from "../../../rpc/mod.ts";
import { encodingOf } from "../../evm/mod.ts";
import { type EthContext, resolveHeader } from "../backend.ts";

function rawAt(ctx: EthContext, blockHash: Uint8Array, index: bigint): Hex {
  const raw = ctx.backend.chain.getBlockByHash(blockHash)?.transactions[Number(index)];
  return raw === undefined ? "0x" : bytesToHex(raw);
}

export function ethGetRawTransactionByHash(ctx: EthContext) {
  return defineMethod({
    name: "eth_getRawTransactionByHash",
    params: [s.hash()],
    handler: ([hash]): Hex => {
      const loc = ctx.backend.chain.getTransactionLocation(hash);
      if (loc !== undefined) return rawAt(ctx, loc.blockHash, BigInt(loc.index));
      const pooled = ctx.backend.pool.get(bytesToHex(hash));
      return pooled === undefined ? "0x" : bytesToHex(encodingOf(pooled));
    },
  });
}

export function ethGetRawTransactionByBlockHashAndIndex(ctx: EthContext) {
  return defineMethod({
    name: "eth_getRawTransactionByBlockHashAndIndex",
    params: [s.hash(), s.uint64()],
    handler: ([hash, index]): Hex => rawAt(ctx, hash, index),
  });
}

export function ethGetRawTransactionByBlockNumberAndIndex(ctx: EthContext) {
  return defineMethod({
    name: "eth_getRawTransactionByBlockNumberAndIndex",
    params: [s.blockTag(), s.uint64()],
    handler: ([block, index]): Hex => {
      const r = resolveHeader(ctx.backend, block);
      return r === undefined ? "0x" : rawAt(ctx, r.hash, index);
    },
  });
}
