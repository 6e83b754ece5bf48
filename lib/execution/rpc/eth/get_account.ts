/**
 * eth_getAccount (geth): an account's trie fields at a block, `{codeHash, storageRoot, balance, nonce}`
 * (an absent account: the empty ones and zeros); eth_getAccountInfo (anvil, reth): `{balance, nonce,
 * code}` in one request.
 */
import { Address, KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";
import { bytesToHex } from "../../../common/mod.ts";
import { defineMethod, s } from "../../../rpc/mod.ts";
import { type EthContext, requireHeader } from "../backend.ts";
import { q } from "../format.ts";

export function ethGetAccount(ctx: EthContext) {
  return defineMethod({
    name: "eth_getAccount",
    params: [s.address(), s.optional(s.blockTag())],
    handler: async ([address, block]) => {
      const sm = await ctx.states.read(requireHeader(ctx.backend, block).header);
      const account = await sm.getAccount(new Address(address));
      return {
        codeHash: bytesToHex(account?.codeHash ?? KECCAK256_NULL),
        storageRoot: bytesToHex(account?.storageRoot ?? KECCAK256_RLP),
        balance: q(account?.balance ?? 0n),
        nonce: q(account?.nonce ?? 0n),
      };
    },
  });
}

export function ethGetAccountInfo(ctx: EthContext) {
  return defineMethod({
    name: "eth_getAccountInfo",
    params: [s.address(), s.optional(s.blockTag())],
    handler: async ([address, block]) => {
      const sm = await ctx.states.read(requireHeader(ctx.backend, block).header);
      const at = new Address(address);
      const account = await sm.getAccount(at);
      return {
        balance: q(account?.balance ?? 0n),
        nonce: q(account?.nonce ?? 0n),
        code: bytesToHex(account === undefined ? new Uint8Array() : await sm.getCode(at)),
      };
    },
  });
}
