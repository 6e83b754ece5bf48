/**
 * Tracing blocks outside the canonical chain (geth eth/tracers/api.go and internal/ethapi DebugAPI):
 *
 * - debug_getBadBlocks: the blocks imports found invalid, highest first, as `{hash, block, rlp}` (the
 *   block as eth_getBlockByHash with full transactions answers it).
 * - debug_traceBadBlock [hash, config]: one of them traced on its parent's state, as debug_traceBlockByHash.
 * - debug_traceBlock [rlp, config]: a block given as its consensus RLP, traced on its parent's state.
 * - debug_intermediateRoots [hash, config]: the state root after each transaction of a block (canonical,
 *   side or bad), the block replayed on a layer over the database so that nothing is written.
 */
import { bytesToHex, type Hex } from "../../../common/mod.ts";
import { OverlayStore } from "../../../db/mod.ts";
import type { Block } from "../../../protocol/mod.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import { decodeBlock } from "../../chain/mod.ts";
import { createStateManager, KeelStateManager } from "../../state/mod.ts";
import { formatBlock } from "../format.ts";
import type { TraceBackend } from "./backend.ts";
import { BlockReplay } from "./replay.ts";
import { traceBlock } from "./trace_block.ts";
import { traceConfigSchema } from "./trace_config.ts";

export function getBadBlocks(backend: TraceBackend) {
  return defineMethod({
    name: "debug_getBadBlocks",
    params: [] as const,
    handler: () =>
      (backend.badBlocks?.list() ?? []).map(({ hash, block, rlp }) => ({
        hash: bytesToHex(hash),
        block: formatBlock(block, hash, true, { chainId: backend.config.chainId }),
        rlp: bytesToHex(rlp),
      })),
  });
}

export function traceBadBlock(backend: TraceBackend) {
  return defineMethod({
    name: "debug_traceBadBlock",
    params: [s.hash(), s.optional(traceConfigSchema)] as const,
    handler: async ([hash, cfg]) => {
      const block = backend.badBlocks?.get(hash);
      if (block === undefined) throw RpcError.server(`bad block ${bytesToHex(hash)} not found`);
      return await traceBlock(backend, block, cfg);
    },
  });
}

export function traceBlockRlp(backend: TraceBackend) {
  return defineMethod({
    name: "debug_traceBlock",
    params: [s.hex(), s.optional(traceConfigSchema)] as const,
    handler: async ([rlp, cfg]) => {
      let block: Block;
      try {
        block = decodeBlock(rlp);
      } catch (e) {
        throw RpcError.server(
          `could not decode block: ${(e as Error).message.replace(/^Cannot decode block: /, "")}`,
        );
      }
      if (block.header.number > 0n && backend.chain.getHeaderByHash(block.header.parentHash) === undefined) {
        throw RpcError.server(`parent ${bytesToHex(block.header.parentHash)} not found`);
      }
      return await traceBlock(backend, block, cfg);
    },
  });
}

export function intermediateRoots(backend: TraceBackend) {
  return defineMethod({
    name: "debug_intermediateRoots",
    params: [s.hash(), s.optional(traceConfigSchema)] as const,
    handler: async ([hash]): Promise<Hex[]> => {
      const block = backend.chain.getBlockByHash(hash) ?? backend.badBlocks?.get(hash);
      if (block === undefined) throw RpcError.server(`block ${bytesToHex(hash)} not found`);
      if (block.header.number === 0n) throw RpcError.server("genesis is not traceable");
      const parent = backend.chain.getHeaderByHash(block.header.parentHash);
      if (parent === undefined) {
        throw RpcError.server(`parent ${bytesToHex(block.header.parentHash)} not found`);
      }
      // The parent's state on a layer of its own: the roots are computed without writing to the database.
      const base = await backend.stateAt(parent);
      if (!(base instanceof KeelStateManager) || base.nodeDb === undefined) {
        throw RpcError.server("debug_intermediateRoots needs the node's own state database");
      }
      const sm = await createStateManager(new OverlayStore(base.nodeDb.store), await base.getStateRoot());
      const replay = await BlockReplay.open({ ...backend, stateAt: () => Promise.resolve(sm) }, block);
      const roots: Hex[] = [];
      for (let i = 0; i < block.transactions.length; i++) {
        await replay.run();
        roots.push(bytesToHex(await sm.getStateRoot()));
      }
      return roots;
    },
  });
}
