/**
 * debug_executionWitness [block] and debug_executionWitnessByBlockHash [hash] (reth, op-reth; the shape
 * the OP Stack's proof hosts read: kona-host, op-program's experimental witness source, and the
 * optimism monorepo's op-service/eth ExecutionWitness): what a stateless client needs to execute a
 * block on its parent's state root and check the roots it produces.
 *
 *   state    the trie nodes (state trie and storage tries) read from the parent's state, RLP-encoded:
 *            the paths to every account and slot the block read or wrote, and the nodes computing the
 *            new roots needed (a branch folding onto its last child reads that child);
 *   codes    the bytecode of every contract the block loaded or created;
 *   keys     the preimages of the hashed trie keys: the addresses (20 bytes) and slots (32 bytes) used;
 *   headers  the RLP of the ancestors from the oldest one BLOCKHASH asked for to the parent (the parent
 *            always: its state root is where the witness starts).
 *
 * keel imports the block again, with the full validation of block import, on a layer over the database
 * (nothing written), and records what the import read from the parent's state. The import must
 * produce the block's own roots: a witness is never built from an execution that disagrees with it.
 */
import { type Address, setLengthLeft } from "@ethereumjs/util";
import { bytesToHex, equalBytes, type Hex } from "../../../common/mod.ts";
import { keccak256 } from "../../../common/hash.ts";
import { type KvStore, OverlayStore, PREFIXES } from "../../../db/mod.ts";
import { type Block, encodeHeader, type Header } from "../../../protocol/mod.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import { importBlock } from "../../evm/mod.ts";
import { createStateManager, KeelStateManager } from "../../state/mod.ts";
import { resolveBlock, type TraceBackend } from "./backend.ts";

export interface ExecutionWitness {
  state: Hex[];
  codes: Hex[];
  keys: Hex[];
  headers: Hex[];
}

/** BLOCKHASH answers for the 256 most recent blocks only. */
const BLOCKHASH_WINDOW = 256n;

/**
 * The database under the layer, with every trie node read from it kept: a row under the trie-node
 * prefix whose key is the keccak256 of its value (code rows have a longer key).
 */
function recordingBase(base: KvStore, nodes: Map<string, Uint8Array>): KvStore {
  return new Proxy(base, {
    get(target, prop) {
      if (prop === "get") {
        return (key: Uint8Array) => {
          const value = target.get(key);
          if (value !== undefined && key.length === 33 && key[0] === PREFIXES.trieNode) {
            const hash = key.subarray(1);
            const hex = bytesToHex(hash);
            if (!nodes.has(hex) && equalBytes(keccak256(value), hash)) nodes.set(hex, value.slice());
          }
          return value;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Records the addresses, slots and code the block's execution asks the state manager for. */
function recordAccess(sm: KeelStateManager, keys: Set<Hex>, codes: Map<Hex, Uint8Array>): void {
  const address = (a: Address) => keys.add(bytesToHex(a.bytes));
  const slot = (k: Uint8Array) => keys.add(bytesToHex(setLengthLeft(k, 32)));
  const code = (c: Uint8Array) => {
    if (c.length > 0) codes.set(bytesToHex(keccak256(c)), c);
  };
  const m = sm as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const wrap = (name: string, before: (args: unknown[]) => void, after?: (result: unknown) => void) => {
    const original = m[name].bind(sm);
    m[name] = async (...args: unknown[]) => {
      before(args);
      const result = await original(...args);
      after?.(result);
      return result;
    };
  };
  for (const name of ["getAccount", "putAccount", "deleteAccount", "modifyAccountFields", "getCodeSize"]) {
    wrap(name, (args) => address(args[0] as Address));
  }
  wrap("getCode", (args) => address(args[0] as Address), (result) => code(result as Uint8Array));
  wrap("putCode", (args) => {
    address(args[0] as Address);
    code(args[1] as Uint8Array);
  });
  for (const name of ["getStorage", "putStorage"]) {
    wrap(name, (args) => {
      address(args[0] as Address);
      slot(args[1] as Uint8Array);
    });
  }
  wrap("clearStorage", (args) => address(args[0] as Address));
}

/** The execution witness of `block` (not the genesis), built by importing it again over its parent's state. */
export async function executionWitness(backend: TraceBackend, block: Block): Promise<ExecutionWitness> {
  const h = block.header;
  if (h.number === 0n) throw RpcError.server("cannot make a witness for the genesis block");
  const parent = backend.chain.getHeaderByHash(h.parentHash);
  if (parent === undefined) throw RpcError.server(`parent ${bytesToHex(h.parentHash)} not found`);
  const base = await backend.stateAt(parent);
  if (!(base instanceof KeelStateManager) || base.nodeDb === undefined) {
    throw RpcError.server("debug_executionWitness needs the node's own state database");
  }
  const nodes = new Map<string, Uint8Array>();
  const store = new OverlayStore(recordingBase(base.nodeDb.store, nodes));
  const sm = await createStateManager(store, await base.getStateRoot());
  const keys = new Set<Hex>();
  const codes = new Map<Hex, Uint8Array>();
  recordAccess(sm, keys, codes);
  // BLOCKHASH: the ancestors walked back from the parent, the oldest asked for noted.
  const ancestors = new Map<bigint, Header>([[parent.number, parent]]);
  let deepest = parent;
  let oldest = parent.number;
  const getBlockHash = (n: bigint): Promise<Uint8Array | undefined> => {
    if (n >= h.number || n < 0n || h.number - n > BLOCKHASH_WINDOW) return Promise.resolve(undefined);
    while (deepest.number > n) {
      const next = backend.chain.getHeaderByHash(deepest.parentHash);
      if (next === undefined) return Promise.resolve(undefined);
      ancestors.set(next.number, next);
      deepest = next;
    }
    if (n < oldest) oldest = n;
    // The hash of block n is the parentHash its child carries.
    return Promise.resolve(ancestors.get(n + 1n)?.parentHash ?? h.parentHash);
  };
  try {
    await importBlock(backend.config, parent, block, { stateManager: sm, getBlockHash });
  } catch (e) {
    throw RpcError.server(`cannot re-execute block ${h.number}: ${(e as Error).message}`);
  }
  const headers: Hex[] = [];
  for (let n = oldest; n <= parent.number; n++) headers.push(bytesToHex(encodeHeader(ancestors.get(n)!)));
  return {
    state: [...nodes.values()].map(bytesToHex),
    codes: [...codes.values()].map(bytesToHex),
    keys: [...keys],
    headers,
  };
}

export function executionWitnessMethod(backend: TraceBackend) {
  return defineMethod({
    name: "debug_executionWitness",
    params: [s.blockTag()] as const,
    handler: async ([tag]) => {
      const { hash } = resolveBlock(backend, tag);
      return await executionWitness(backend, backend.chain.getBlockByHash(hash)!);
    },
  });
}

export function executionWitnessByBlockHash(backend: TraceBackend) {
  return defineMethod({
    name: "debug_executionWitnessByBlockHash",
    params: [s.hash()] as const,
    handler: async ([hash]) => {
      const block = backend.chain.getBlockByHash(hash);
      if (block === undefined) throw RpcError.server(`block ${bytesToHex(hash)} not found`);
      return await executionWitness(backend, block);
    },
  });
}
