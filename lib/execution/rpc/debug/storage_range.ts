/**
 * debug_storageRangeAt(blockHash, txIndex, address, keyStart, maxResult) as geth serves it
 * (eth/tracers/api.go StorageRangeAt): the contract's storage as it stands before transaction
 * `txIndex` of the block runs, at most `maxResult` slots from the hashed key `keyStart` on, in trie
 * (hashed key) order: `{storage: {hashedKey: {key, value}}, nextKey}`. `key` is the slot itself where
 * the node knows it (a dev chain records every slot it writes, state/preimages.ts), else null as on
 * geth without preimages; `value` the slot's 32-byte word; `nextKey` the hashed key after the range,
 * null at the end. The block's transactions before `txIndex` replay on a throwaway layer over the
 * database (nothing is written to it).
 */
import { Address, bytesToBigInt, setLengthLeft } from "@ethereumjs/util";
import { bytesToHex, type Hex, hexToBytes, keccak256, rlpDecode } from "../../../common/mod.ts";
import { OverlayStore } from "../../../db/mod.ts";
import { defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import { createStateManager, KeelStateManager } from "../../state/mod.ts";
import type { TraceBackend } from "./backend.ts";
import { BlockReplay } from "./replay.ts";

/** geth's StorageRangeResult. */
export interface StorageRange {
  storage: Record<Hex, { key: Hex | null; value: Hex }>;
  nextKey: Hex | null;
}

/** What the node may know of the slots behind hashed keys (dev chains). */
export interface SlotPreimages {
  slotsOf(address: Uint8Array): Iterable<Uint8Array>;
}

export function storageRangeAt(backend: TraceBackend & { slotPreimages?: SlotPreimages }) {
  return defineMethod({
    name: "debug_storageRangeAt",
    params: [s.hash(), s.hexOrDecimal(), s.address(), s.hex(), s.hexOrDecimal()] as const,
    handler: async ([blockHash, txIndex, address, keyStart, maxResult]): Promise<StorageRange> => {
      const block = backend.chain.getBlockByHash(blockHash);
      if (block === undefined) throw RpcError.server(`block ${bytesToHex(blockHash)} not found`);
      if (block.header.number === 0n) throw RpcError.server("genesis is not traceable");
      if (txIndex > BigInt(block.transactions.length)) {
        throw RpcError.server(`transaction index ${txIndex} out of range`);
      }
      if (keyStart.length > 32) throw RpcError.invalidParams("keyStart: more than 32 bytes");
      if (maxResult > 1_000_000n) throw RpcError.invalidParams("maxResult: at most 1000000");
      // The parent's state on a layer of its own, so that replaying writes nothing to the database.
      const parent = backend.chain.getHeaderByHash(block.header.parentHash)!;
      const base = await backend.stateAt(parent);
      if (!(base instanceof KeelStateManager) || base.nodeDb === undefined) {
        throw RpcError.server("debug_storageRangeAt needs the node's own state database");
      }
      const sm = await createStateManager(new OverlayStore(base.nodeDb.store), await base.getStateRoot());
      const replay = await BlockReplay.open({ ...backend, stateAt: () => Promise.resolve(sm) }, block);
      await replay.skipTo(Number(txIndex));
      const at = new Address(address);
      if ((await sm.getAccount(at)) === undefined) return { storage: {}, nextKey: null };
      const range = await sm.dumpStorageRange(
        at,
        bytesToBigInt(setLengthLeft(keyStart, 32)),
        Number(maxResult),
      );
      const known = new Map<string, Hex>();
      for (const slot of backend.slotPreimages?.slotsOf(address) ?? []) {
        known.set(bytesToHex(keccak256(slot)), bytesToHex(slot));
      }
      const storage: StorageRange["storage"] = {};
      for (const [hashed, entry] of Object.entries(range.storage)) {
        // The trie holds the slot's RLP: geth answers the word, left-padded to 32 bytes.
        const word = setLengthLeft(rlpDecode(hexToBytes(entry.value as Hex)) as Uint8Array, 32);
        storage[hashed as Hex] = { key: known.get(hashed) ?? null, value: bytesToHex(word) };
      }
      return { storage, nextKey: (range.nextKey as Hex | null) ?? null };
    },
  });
}
