/** eth_getProof (EIP-1186): account and storage proofs from the state trie. */
import { getMerkleStateProof } from "@ethereumjs/statemanager";
import { Address } from "@ethereumjs/util";
import { bigIntToBytes } from "../../../common/mod.ts";
import { defineMethod, s, SchemaError } from "../../../rpc/mod.ts";
import { type EthContext, requireHeader } from "../backend.ts";

const keySchema = s.custom<{ raw: string; bytes: Uint8Array }>("storageKey", (v) => {
  if (typeof v !== "string" || !/^0[xX][0-9a-fA-F]{1,64}$/.test(v)) {
    throw new SchemaError("invalid storage key: want hex of at most 32 bytes");
  }
  return { raw: v, bytes: bigIntToBytes(BigInt(v), 32) };
});

export function ethGetProof(ctx: EthContext) {
  return defineMethod({
    name: "eth_getProof",
    params: [s.address(), s.array(keySchema, { max: 1024 }), s.optional(s.blockTag())],
    handler: async ([address, keys, block]) => {
      const { header } = requireHeader(ctx.backend, block);
      // A fresh manager: building a proof flushes and walks the trie, which shared readers must not see.
      const sm = await ctx.backend.stateAt(header);
      const proof = await getMerkleStateProof(sm, new Address(address), keys.map((k) => k.bytes));
      return {
        ...proof,
        balance: proof.balance === "0x" ? "0x0" : proof.balance,
        nonce: proof.nonce === "0x" ? "0x0" : proof.nonce,
        storageProof: proof.storageProof.map((p, i) => ({
          key: keys[i].raw,
          value: p.value === "0x" || p.value === "0x0" ? "0x0" : `0x${BigInt(p.value).toString(16)}`,
          proof: p.proof,
        })),
      };
    },
  });
}
