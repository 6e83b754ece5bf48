/**
 * anvil_reorg [depth, [[transaction, block index], ...]]: the last `depth` blocks are replaced by as
 * many new ones, as anvil 1.7.1 does it: the head goes back to block `head - depth` (anvil_rollback),
 * then `depth` blocks are mined, the i-th with the transactions paired with i and none of the pool's.
 * A transaction is a raw signed one (hex) or a JSON request, filled and signed as eth_sendTransaction's
 * (from the first dev account when it names none) with the nonce counted on per sender from the
 * common block's state (the request's own nonce wins, the count goes on either way). One that cannot
 * be applied is left out of its block. The replaced blocks' transactions do not return to the pool,
 * and snapshots taken on them are gone. Answers null.
 *
 * Everything is checked before the chain moves: a depth beyond the chain, a block index at or beyond
 * the depth, a raw transaction that does not decode or a request that cannot be signed is refused
 * (-32602, anvil's messages where anvil has one) with the chain untouched.
 */
import { Address } from "@ethereumjs/util";
import { bytesToHex, hexToBytes } from "../../../common/bytes.ts";
import { defineMethod, RpcError, s, SchemaError } from "../../../rpc/mod.ts";
import { decodeTx } from "../format.ts";
import type { DevContext } from "./backend.ts";

/** One pair: a raw transaction or a JSON request, and the index of its block among the new ones. */
interface ReorgPair {
  tx: Uint8Array | Record<string, unknown>;
  block: bigint;
}

const HEX = /^0x([0-9a-fA-F]{2})*$/;

const pairsParam = s.custom<ReorgPair[]>("transaction and block index pairs", (v) => {
  if (!Array.isArray(v)) throw new SchemaError("want an array of [transaction, block index] pairs");
  return v.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new SchemaError(`pair ${i}: want [transaction, block index]`);
    }
    const [tx, block] = pair;
    let parsed: ReorgPair["tx"];
    if (typeof tx === "string") {
      if (!HEX.test(tx)) throw new SchemaError(`pair ${i}: a raw transaction must be 0x-prefixed hex bytes`);
      parsed = hexToBytes(tx);
    } else if (tx !== null && typeof tx === "object" && !Array.isArray(tx)) {
      parsed = tx as Record<string, unknown>;
    } else {
      throw new SchemaError(`pair ${i}: want raw transaction hex or a transaction object`);
    }
    return { tx: parsed, block: s.hexOrDecimal().parse(block) };
  });
});

export function anvilReorg(ctx: DevContext) {
  return defineMethod({
    name: "anvil_reorg",
    params: [s.hexOrDecimal(), s.optional(pairsParam)],
    handler: async ([depth, pairs]) => {
      const chain = ctx.chain;
      const height = chain.head().header.number;
      if (depth > height) {
        throw RpcError.invalidParams(
          `Reorg depth must not exceed current chain height: current height ${height}, depth ${depth}`,
        );
      }
      const common = height - depth;
      const hash = chain.chain.getCanonicalHash(common)!;
      const list = [...(pairs ?? [])].sort((a, b) => (a.block < b.block ? -1 : a.block > b.block ? 1 : 0));
      const late = list.find((p) => p.block >= depth);
      if (late !== undefined) {
        throw RpcError.invalidParams(
          `Block number for reorg tx will exceed the reorged chain height. Block number ${late.block} ` +
            `must not exceed (depth-1) ${depth - 1n}`,
        );
      }
      const blocks: Uint8Array[][] = Array.from({ length: Number(depth) }, () => []);
      const nonces = new Map<string, bigint>();
      const header = chain.chain.getHeaderByHash(hash)!;
      const nonceFor = async (from: Uint8Array) => {
        const key = bytesToHex(from);
        const n = nonces.get(key) ??
          await chain.readState(header, async (sm) => (await sm.getAccount(new Address(from)))?.nonce ?? 0n);
        nonces.set(key, n + 1n);
        return n;
      };
      for (const pair of list) {
        let raw: Uint8Array;
        if (pair.tx instanceof Uint8Array) {
          try {
            decodeTx(pair.tx, chain.config.chainId);
          } catch {
            throw RpcError.invalidParams("Failed to decode transaction");
          }
          raw = pair.tx;
        } else {
          raw = await ctx.info.signRequest(pair.tx, nonceFor);
        }
        blocks[Number(pair.block)].push(raw);
      }
      await ctx.miner.reorg(async () => {
        // Between the checks and now only new blocks can have come (the miner's): block `common` stands.
        const now = chain.chain.getCanonicalHash(common);
        if (now === undefined || bytesToHex(now) !== bytesToHex(hash)) {
          throw RpcError.server(`Cannot reorg: block ${common} left the chain meanwhile`);
        }
        await chain.revertTo(hash, chain.irregular.get(hash));
        for (const [id, snap] of ctx.snapshots) if (snap.number > Number(common)) ctx.snapshots.delete(id);
      }, blocks);
      return null;
    },
  });
}
