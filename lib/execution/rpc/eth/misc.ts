/** eth_syncing (false: the engine imports what it is given) and eth_accounts (the dev accounts, if any). */
import { bytesToHex, type Hex } from "../../../common/mod.ts";
import { defineMethod } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";

export function ethSyncing(_ctx: EthContext) {
  return defineMethod({ name: "eth_syncing", params: [], handler: () => false });
}

/** The addresses of the keys the node holds (`--dev`: the test mnemonic's, in order), else none. */
export function ethAccounts(ctx: EthContext) {
  return defineMethod({
    name: "eth_accounts",
    params: [],
    handler: (): Hex[] => (ctx.backend.devAccounts ?? []).map((a) => bytesToHex(a.address)),
  });
}
