/**
 * eth_getStorageAt: one storage slot (32 bytes) at a block. eth_getStorageValues (anvil, reth): several
 * slots of several accounts in one request, `{address: [slot, ...]}` answered `{address: [value, ...]}`
 * (addresses in lower case, values as 32-byte words), at most 1,024 slots in all (anvil's limit).
 */
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { Address } from "@ethereumjs/util";
import { bigIntToBytes, bytesToHex } from "../../../common/mod.ts";
import { defineMethod, RpcError, s, SchemaError } from "../../../rpc/mod.ts";
import { type EthContext, requireHeader } from "../backend.ts";

/** A storage key: any hex up to 32 bytes, left-padded (geth decodes it as a hash). */
const slotSchema = s.custom<Uint8Array>("storageKey", (v) => {
  if (typeof v !== "string" || !/^0[xX][0-9a-fA-F]{0,64}$/.test(v)) {
    throw new SchemaError("invalid storage key: want hex of at most 32 bytes");
  }
  return bigIntToBytes(v.length === 2 ? 0n : BigInt(v), 32);
});

/** The most slots one eth_getStorageValues request may name (anvil's). */
export const MAX_STORAGE_VALUES = 1024;

/** `{address: [slot, ...]}`. */
const storageRequestSchema = s.custom<[Uint8Array, Uint8Array[]][]>("storageRequests", (v) => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new SchemaError("invalid storage requests: want an object of address to slots");
  }
  const address = s.address();
  const slots = s.array(slotSchema);
  return Object.entries(v).map(([a, list]) => [address.parse(a), slots.parse(list)]);
});

/** Slot `slot` of `address` as a 32-byte word. */
async function word(sm: MerkleStateManager, address: Address, slot: Uint8Array): Promise<Uint8Array> {
  const value = await sm.getStorage(address, slot);
  const out = new Uint8Array(32);
  out.set(value, 32 - value.length);
  return out;
}

export function ethGetStorageAt(ctx: EthContext) {
  return defineMethod({
    name: "eth_getStorageAt",
    params: [s.address(), slotSchema, s.optional(s.blockTag())],
    handler: async ([address, slot, block]) => {
      const sm = await ctx.states.read(requireHeader(ctx.backend, block).header);
      return bytesToHex(await word(sm, new Address(address), slot));
    },
  });
}

export function ethGetStorageValues(ctx: EthContext) {
  return defineMethod({
    name: "eth_getStorageValues",
    params: [storageRequestSchema, s.optional(s.blockTag())],
    handler: async ([requests, block]) => {
      const total = requests.reduce((n, [, slots]) => n + slots.length, 0);
      if (total > MAX_STORAGE_VALUES) {
        throw RpcError.invalidParams(`total slot count ${total} exceeds limit ${MAX_STORAGE_VALUES}`);
      }
      const sm = await ctx.states.read(requireHeader(ctx.backend, block).header);
      const out: Record<string, string[]> = {};
      for (const [address, slots] of requests) {
        const a = new Address(address);
        const values: string[] = [];
        for (const slot of slots) values.push(bytesToHex(await word(sm, a, slot)));
        out[bytesToHex(address)] = values;
      }
      return out;
    },
  });
}
