/**
 * debug_dbGet and debug_setHead, as geth serves them.
 *
 * debug_dbGet reads the database by a geth key (hash scheme, core/rawdb/schema.go): a 32-byte key is a
 * state trie node by its hash, `c` (0x63) ‖ code hash is contract code. These are the preimages the
 * fault-proof hosts (op-program, kona) fetch from an L2 node; keel keeps both under
 * PREFIXES.trieNode with the same key. Other geth keys have no counterpart here: "not found".
 *
 * debug_setHead rewinds the canonical chain to a block (geth BlockChain.SetHead, for operators).
 */
import { bytesToHex } from "../../../common/mod.ts";
import { prefixedKey, PREFIXES } from "../../../db/mod.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import type { TraceBackend } from "./backend.ts";

/** geth rawdb CodePrefix. */
const CODE_PREFIX = 0x63;

export function dbGet(backend: TraceBackend) {
  return defineMethod({
    name: "debug_dbGet",
    params: [s.hex()],
    handler: ([key]) => {
      const known = key.length === 32 || (key.length === 33 && key[0] === CODE_PREFIX);
      const value = known ? backend.chain.store.get(prefixedKey(PREFIXES.trieNode, key)) : undefined;
      if (value === undefined) throw RpcError.server("not found");
      return bytesToHex(value);
    },
  });
}

export function setHead(backend: TraceBackend) {
  return defineMethod({
    name: "debug_setHead",
    params: [s.uint64()],
    handler: async ([number]) => {
      if (backend.setHead === undefined) throw RpcError.server("debug_setHead is not available on this node");
      await backend.setHead(number);
      return null;
    },
  });
}
