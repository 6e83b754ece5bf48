/** eth_getStorageAt: one storage slot (32 bytes) at a block. */
import { Address } from "@ethereumjs/util";
import { bigIntToBytes, bytesToHex } from "../../../common/mod.ts";
import { defineMethod, s, SchemaError } from "../../../rpc/mod.ts";
import { type EthContext, requireHeader } from "../backend.ts";

/** A storage key: any hex up to 32 bytes, left-padded (geth decodes it as a hash). */
const slotSchema = s.custom<Uint8Array>("storageKey", (v) => {
  if (typeof v !== "string" || !/^0[xX][0-9a-fA-F]{0,64}$/.test(v)) {
    throw new SchemaError("invalid storage key: want hex of at most 32 bytes");
  }
  return bigIntToBytes(v.length === 2 ? 0n : BigInt(v), 32);
});

export function ethGetStorageAt(ctx: EthContext) {
  return defineMethod({
    name: "eth_getStorageAt",
    params: [s.address(), slotSchema, s.optional(s.blockTag())],
    handler: async ([address, slot, block]) => {
      const sm = await ctx.states.read(requireHeader(ctx.backend, block).header);
      const value = await sm.getStorage(new Address(address), slot);
      const out = new Uint8Array(32);
      out.set(value, 32 - value.length);
      return bytesToHex(out);
    },
  });
}
