/** eth_syncing (false: the engine imports what it is given) and eth_accounts (no keys held). */
import { defineMethod } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";

export function ethSyncing(_ctx: EthContext) {
  return defineMethod({ name: "eth_syncing", params: [], handler: () => false });
}

export function ethAccounts(_ctx: EthContext) {
  return defineMethod({ name: "eth_accounts", params: [], handler: () => [] as string[] });
}
