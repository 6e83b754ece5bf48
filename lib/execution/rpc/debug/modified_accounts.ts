/**
 * debug_getModifiedAccountsByNumber [start, end?] (numbers as geth takes them: JSON numbers; hex also) and debug_getModifiedAccountsByHash [start, end?] (geth
 * eth/api_debug.go): the accounts whose nonce, balance, code hash or storage root differ between the state
 * of block `start` and that of block `end`; with `start` alone, those block `start` changed (its parent's
 * state against its own).
 *
 * geth walks the difference of the two account tries and needs the preimages of the hashed keys; keel
 * replays the blocks in between on a layer over the database (nothing written) and takes every account
 * they wrote, system calls included, then keeps those that differ between the two states. At most
 * MAX_MODIFIED_RANGE blocks a request.
 */
import { Address } from "@ethereumjs/util";
import { bytesToHex, equalBytes, type Hex, hexToBytes } from "../../../common/mod.ts";
import { OverlayStore } from "../../../db/mod.ts";
import { hashHeader, type Header } from "../../../protocol/mod.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import { createStateManager, KeelStateManager } from "../../state/mod.ts";
import type { TraceBackend } from "./backend.ts";
import { BlockReplay } from "./replay.ts";

/** The most blocks one request replays. */
export const MAX_MODIFIED_RANGE = 1000n;

async function modifiedBetween(backend: TraceBackend, from: Header, to: Header): Promise<Hex[]> {
  if (to.number - from.number > MAX_MODIFIED_RANGE) {
    throw RpcError.server(
      `the range has ${to.number - from.number} blocks, more than the ${MAX_MODIFIED_RANGE} allowed`,
    );
  }
  const chain = backend.chain;
  // The blocks after `from` up to `to`, walked back from `to` by parent hash.
  const blocks = [];
  let hash = hashHeader(to);
  while (true) {
    const block = chain.getBlockByHash(hash);
    if (block === undefined) throw RpcError.server(`block ${bytesToHex(hash)} not found`);
    if (block.header.number <= from.number) {
      if (!equalBytes(hash, hashHeader(from))) {
        throw RpcError.server("the start block is not an ancestor of the end block");
      }
      break;
    }
    blocks.unshift(block);
    hash = block.header.parentHash;
  }
  const candidates = new Set<string>();
  for (const block of blocks) {
    const parent = chain.getHeaderByHash(block.header.parentHash)!;
    const base = await backend.stateAt(parent);
    if (!(base instanceof KeelStateManager) || base.nodeDb === undefined) {
      throw RpcError.server("debug_getModifiedAccounts needs the node's own state database");
    }
    const sm = await createStateManager(new OverlayStore(base.nodeDb.store), await base.getStateRoot());
    sm.startStream();
    const replay = await BlockReplay.open({ ...backend, stateAt: () => Promise.resolve(sm) }, block);
    await replay.skipTo(block.transactions.length);
    const delta = sm.drainDelta();
    for (const [a] of delta.accounts) candidates.add(a);
    for (const [a] of delta.slots) candidates.add(a);
    for (const a of delta.resets) candidates.add(a);
  }
  const before = await backend.stateAt(from);
  const after = await backend.stateAt(to);
  const out: Hex[] = [];
  for (const a of [...candidates].sort()) {
    const address = new Address(hexToBytes(a));
    const x = await before.getAccount(address);
    const y = await after.getAccount(address);
    const same = x === undefined || y === undefined
      ? x === y
      : x.nonce === y.nonce && x.balance === y.balance && equalBytes(x.codeHash, y.codeHash) &&
        equalBytes(x.storageRoot, y.storageRoot);
    if (!same) out.push(bytesToHex(address.bytes));
  }
  return out;
}

/** The two headers a request compares: `start`'s parent and `start`, or `start` and `end`. */
function range(
  backend: TraceBackend,
  start: Header | undefined,
  end: Header | undefined,
  what: string,
  endGiven: boolean,
) {
  if (start === undefined) throw RpcError.server(`start block ${what} not found`);
  if (!endGiven) {
    const parent = backend.chain.getHeaderByHash(start.parentHash);
    if (parent === undefined || start.number === 0n) throw RpcError.server("the genesis block has no parent");
    return [parent, start] as const;
  }
  if (end === undefined) throw RpcError.server("end block not found");
  if (start.number >= end.number) {
    throw RpcError.server(
      `start block height (${start.number}) must be less than end block height (${end.number})`,
    );
  }
  return [start, end] as const;
}

export function getModifiedAccountsByNumber(backend: TraceBackend) {
  return defineMethod({
    name: "debug_getModifiedAccountsByNumber",
    params: [s.hexOrDecimal(), s.optional(s.hexOrDecimal())] as const,
    handler: async ([startNum, endNum]) => {
      const byNumber = (n: bigint) => {
        const hash = backend.chain.getCanonicalHash(n);
        return hash === undefined ? undefined : backend.chain.getHeaderByHash(hash);
      };
      const [from, to] = range(
        backend,
        byNumber(startNum),
        endNum === undefined ? undefined : byNumber(endNum),
        String(startNum),
        endNum !== undefined,
      );
      return await modifiedBetween(backend, from, to);
    },
  });
}

export function getModifiedAccountsByHash(backend: TraceBackend) {
  return defineMethod({
    name: "debug_getModifiedAccountsByHash",
    params: [s.hash(), s.optional(s.hash())] as const,
    handler: async ([startHash, endHash]) => {
      const [from, to] = range(
        backend,
        backend.chain.getHeaderByHash(startHash),
        endHash === undefined ? undefined : backend.chain.getHeaderByHash(endHash),
        bytesToHex(startHash),
        endHash !== undefined,
      );
      return await modifiedBetween(backend, from, to);
    },
  });
}
