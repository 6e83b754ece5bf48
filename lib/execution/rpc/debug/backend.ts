/**
 * What the debug and trace namespaces need from the execution client: the chain, the chain config
 * and archive state by header. `EthBackend` (../backend.ts) satisfies it, so the composition root
 * passes the same object to every namespace.
 */
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { bytesToHex, equalBytes } from "../../../common/mod.ts";
import type { Block, ChainConfig, Header } from "../../../protocol/mod.ts";
import { type BlockSpec, RpcError } from "../../../rpc/mod.ts";
import type { ChainStore } from "../../chain/mod.ts";

export interface TraceBackend {
  config: ChainConfig;
  chain: ChainStore;
  /** A fresh state manager at the header's state root; throws when the state is missing. */
  stateAt(header: Header): Promise<MerkleStateManager>;
  /** Blocks imports found invalid, highest first (debug_getBadBlocks, debug_traceBadBlock). */
  badBlocks?: {
    list(): { hash: Uint8Array; block: Block; rlp: Uint8Array }[];
    get(hash: Uint8Array): Block | undefined;
  };
  /** debug_setHead: rewinds the canonical chain to block `number` (the engine's setHead). */
  setHead?(number: bigint): Promise<unknown>;
  options: {
    /** rpc.evmtimeout in ms: the default trace timeout is geth's 5 s (eth/tracers/api.go defaultTraceTimeout). */
    evmTimeoutMs: number;
    /** rpc.gascap: gas cap of debug_traceCall / trace_call (0 = none). */
    gasCap: bigint;
  };
}

/** geth eth/tracers/api.go defaultTraceTimeout. */
export const DEFAULT_TRACE_TIMEOUT_MS = 5_000;

/** A block with its hash, resolved from a block parameter. */
export interface ResolvedBlock {
  header: Header;
  hash: Uint8Array;
}

/** The canonical block a tag, number or EIP-1898 object names; geth's errors when absent. */
export function resolveBlock(backend: TraceBackend, spec: BlockSpec): ResolvedBlock {
  const chain = backend.chain;
  let hash: Uint8Array | undefined;
  switch (spec.kind) {
    case "hash": {
      hash = spec.hash;
      const header = chain.getHeaderByHash(hash);
      if (header === undefined) throw RpcError.server(`block ${bytesToHex(hash)} not found`);
      if (spec.requireCanonical) {
        const canonical = chain.getCanonicalHash(header.number);
        if (canonical === undefined || !equalBytes(canonical, hash)) {
          throw RpcError.server("hash is not currently canonical");
        }
      }
      return { header, hash };
    }
    case "number":
      hash = chain.getCanonicalHash(spec.number);
      if (hash === undefined) throw RpcError.server(`block #${spec.number} not found`);
      break;
    case "tag": {
      if (spec.tag === "earliest") hash = chain.getCanonicalHash(0n);
      else {
        // pending = latest: op-geth's default without --rollup.computependingblock (no block built from the pool).
        const label = spec.tag === "pending" ? "latest" : spec.tag;
        hash = chain.getHead(label)?.hash;
        if (hash === undefined) throw RpcError.server(`${spec.tag} block not found`);
      }
      if (hash === undefined) throw RpcError.server("genesis block not found");
    }
  }
  const header = chain.getHeaderByHash(hash);
  if (header === undefined) throw RpcError.server(`block ${bytesToHex(hash)} not found`);
  return { header, hash };
}
