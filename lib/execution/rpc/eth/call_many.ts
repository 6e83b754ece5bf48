/**
 * eth_callMany [bundles, stateContext?, stateOverrides?] (reth and erigon): bundles of calls run one after
 * the other on one state, each call seeing what the ones before it wrote, nothing written to the chain.
 * A bundle is `{transactions: [call, ...], blockOverride?}`; the state is the block `stateContext.blockNumber`
 * names (latest by default), after its first `stateContext.transactionIndex` transactions when an index is
 * given (-1, or none: after the whole block). Answers one list per bundle of `{value}` (the return data) or
 * `{error}` (reth's messages: "execution reverted" with the reason when it decodes, else the EVM error).
 */
import { bytesToHex } from "../../../common/mod.ts";
import { OverlayStore } from "../../../db/mod.ts";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { defineMethod, RpcError, s, SchemaError } from "../../../rpc/mod.ts";
import { createStateManager, KeelStateManager } from "../../state/mod.ts";
import type { EthContext } from "../backend.ts";
import { type BlockOverrides, blockOverridesSchema, stateOverrideSchema } from "../call_args.ts";
import {
  BlockReplay,
  callArgsSchema,
  decodeRevertReason,
  gethError,
  replayCall,
  resolveBlock,
  toCallMessage,
} from "../debug/mod.ts";
import { applyOverrides } from "../call_args.ts";

const bundleSchema = s.object({
  transactions: s.array(callArgsSchema),
  blockOverride: s.optional(blockOverridesSchema),
});

/** reth's TransactionIndex: a number, or -1 for "after every transaction". */
const stateContextSchema = s.object({
  blockNumber: s.optional(s.blockTag()),
  transactionIndex: s.optional(
    s.custom<number>("transactionIndex", (v) => {
      if (v === -1 || v === "-1") return -1;
      if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
      if (typeof v === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(v)) return Number(v);
      throw new SchemaError("want a transaction index or -1");
    }),
  ),
});

export type CallManyResponse = { value: string } | { error: string };

export function ethCallMany(ctx: EthContext) {
  return defineMethod({
    name: "eth_callMany",
    params: [s.array(bundleSchema), s.optional(stateContextSchema), s.optional(stateOverrideSchema)],
    handler: async ([bundles, context, overrides]): Promise<CallManyResponse[][]> => {
      if (bundles.length === 0) throw RpcError.invalidParams("bundles are empty");
      const backend = ctx.backend;
      const { header, hash } = resolveBlock(backend, context?.blockNumber ?? { kind: "tag", tag: "latest" });
      const index = context?.transactionIndex ?? -1;
      let sm: MerkleStateManager;
      if (index === -1) sm = await backend.stateAt(header);
      else {
        // The block's parent state on a layer of its own, then the block's first `index` transactions.
        const block = backend.chain.getBlockByHash(hash);
        if (block === undefined) throw RpcError.server(`block ${bytesToHex(hash)} not found`);
        if (index > block.transactions.length) {
          throw RpcError.invalidParams(
            `transaction index ${index} out of range (${block.transactions.length})`,
          );
        }
        const parent = backend.chain.getHeaderByHash(header.parentHash);
        if (parent === undefined) throw RpcError.server("the genesis block has no parent state");
        const base = await backend.stateAt(parent);
        if (!(base instanceof KeelStateManager) || base.nodeDb === undefined) {
          throw RpcError.server("eth_callMany needs the node's own state database");
        }
        sm = await createStateManager(new OverlayStore(base.nodeDb.store), await base.getStateRoot());
        const on = sm;
        const replay = await BlockReplay.open({ ...backend, stateAt: () => Promise.resolve(on) }, block);
        await replay.skipTo(index);
      }
      // Never committed: what the overrides and the calls write stays in the manager's checkpoints.
      await sm.checkpoint();
      if (overrides !== undefined) await applyOverrides(sm, overrides);
      const shared = { ...backend, stateAt: () => Promise.resolve(sm) };
      const out: CallManyResponse[][] = [];
      for (const bundle of bundles) {
        const results: CallManyResponse[] = [];
        for (const call of bundle.transactions) {
          const run = await replayCall(shared, header, toCallMessage(call), {
            blockOverrides: bundle.blockOverride as BlockOverrides | undefined,
            timeoutMs: backend.options.evmTimeoutMs,
          });
          const { error, output } = run.outcome;
          if (error === undefined) results.push({ value: bytesToHex(output) });
          else if (error === "revert") {
            const reason = decodeRevertReason(output);
            results.push({
              error: reason === undefined ? "execution reverted" : `execution reverted: ${reason}`,
            });
          } else results.push({ error: gethError(error) });
        }
        out.push(results);
      }
      return out;
    },
  });
}
