/**
 * debug_dbGet, debug_codeByHash, debug_setHead and debug_verbosity, as geth serves them.
 *
 * debug_dbGet reads the database by a geth key (hash scheme, core/rawdb/schema.go): a 32-byte key is a
 * state trie node by its hash, `c` (0x63) ‖ code hash is contract code. These are the preimages the
 * fault-proof hosts (op-program, kona) fetch from an L2 node; keel keeps both under
 * PREFIXES.trieNode with the same key. Other geth keys have no counterpart here: "not found".
 *
 * debug_setHead rewinds the canonical chain to a block (geth BlockChain.SetHead, for operators).
 */
import { KECCAK256_NULL } from "@ethereumjs/util";
import { bytesToHex, equalBytes, setLogLevel } from "../../../common/mod.ts";
import { prefixedKey, PREFIXES } from "../../../db/mod.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import { resolveBlock, type TraceBackend } from "./backend.ts";

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

/**
 * debug_codeByHash(hash, [block]) (geth, anvil): contract code by its keccak256 hash, empty (0x) when the
 * node holds none, as anvil 1.7.1 answers. Code is stored by hash once for all blocks: the block only has
 * to exist.
 */
export function codeByHash(backend: TraceBackend) {
  return defineMethod({
    name: "debug_codeByHash",
    params: [s.hash(), s.optional(s.blockTag())],
    handler: ([hash, tag]) => {
      if (tag !== undefined) resolveBlock(backend, tag);
      if (equalBytes(hash, KECCAK256_NULL)) return "0x";
      const key = new Uint8Array(33);
      key[0] = CODE_PREFIX;
      key.set(hash, 1);
      const code = backend.chain.store.get(prefixedKey(PREFIXES.trieNode, key));
      return code === undefined ? "0x" : bytesToHex(code);
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

/**
 * debug_verbosity [level] (geth): the running log level, 0 (silent) to 5 (trace), as `--log.level` takes
 * them (also the level names). Answers null.
 */
export function verbosity() {
  return defineMethod({
    name: "debug_verbosity",
    params: [s.unknown()],
    handler: ([level]) => {
      if (typeof level !== "number" && typeof level !== "string") {
        throw RpcError.invalidParams("invalid argument 0: want a level 0-5 or a level name");
      }
      try {
        setLogLevel(level);
      } catch (e) {
        throw RpcError.invalidParams(`invalid argument 0: ${(e as Error).message}`);
      }
      return null;
    },
  });
}
