/**
 * eth_syncing (false: the engine imports what it is given), eth_accounts (the dev accounts, if any) and
 * anvil's aliases eth_requestAccounts (of eth_accounts) and eth_networkId (of net_version).
 */
import { bytesToHex, type Hex } from "../../../common/mod.ts";
import { defineMethod } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";

export function ethSyncing(_ctx: EthContext) {
  return defineMethod({ name: "eth_syncing", params: [], handler: () => false });
}

/** The addresses of the keys the node holds (`--dev`: the test mnemonic's, in order), else none. */
export function ethAccounts(ctx: EthContext, name: "eth_accounts" | "eth_requestAccounts" = "eth_accounts") {
  return defineMethod({
    name,
    params: [],
    handler: (): Hex[] => (ctx.backend.devAccounts ?? []).map((a) => bytesToHex(a.address)),
  });
}

/** anvil's eth_networkId: net_version's answer, the chain id in decimal. */
export function ethNetworkId(ctx: EthContext) {
  const version = ctx.backend.config.chainId.toString(10);
  return defineMethod({ name: "eth_networkId", params: [], handler: () => version });
}
