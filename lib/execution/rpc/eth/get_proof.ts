/** eth_getProof (EIP-1186): account and storage proofs from the state trie. */
import { getMerkleStateProof } from "@ethereumjs/statemanager";
import { Address } from "@ethereumjs/util";
import { bigIntToBytes, bytesToHex } from "../../../common/mod.ts";
import { defineMethod, s, SchemaError } from "../../../rpc/mod.ts";
import { type EthContext, requireHeader } from "../backend.ts";

/**
 * A storage key as geth's decodeHash reads it: hex with or without 0x, odd lengths left-padded, at
 * most 32 bytes. `out` is how the answer names it (geth GetProof): a 32-byte key as 32 bytes of
 * lower-case hex, a shorter one as a quantity ("0x01" -> "0x1", "0x" -> "0x0").
 */
const keySchema = s.custom<{ out: string; bytes: Uint8Array }>("storageKey", (v) => {
  if (typeof v !== "string") throw new SchemaError("hex string invalid");
  let digits = v.startsWith("0x") || v.startsWith("0X") ? v.slice(2) : v;
  if (digits.length % 2 === 1) digits = `0${digits}`;
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new SchemaError("hex string invalid");
  if (digits.length > 64) throw new SchemaError("hex string too long, want at most 32 bytes");
  const n = digits.length === 0 ? 0n : BigInt(`0x${digits}`);
  const bytes = bigIntToBytes(n, 32);
  return { out: digits.length === 64 ? bytesToHex(bytes) : `0x${n.toString(16)}`, bytes };
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
        // An account that does not exist has no storage trie: each key still gets its entry, value 0
        // and no proof nodes (geth GetProof); @ethereumjs leaves the list empty.
        storageProof: keys.map((k, i) => {
          const p = proof.storageProof[i];
          if (p === undefined) return { key: k.out, value: "0x0", proof: [] };
          return {
            key: k.out,
            value: p.value === "0x" || p.value === "0x0" ? "0x0" : `0x${BigInt(p.value).toString(16)}`,
            proof: p.proof,
          };
        }),
      };
    },
  });
}
