/** Polling filters: eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter. */
import { hexToBytes } from "../../../common/mod.ts";
import { defineMethod, s } from "../../../rpc/mod.ts";
import type { LogEntry } from "../../chain/mod.ts";
import type { EthContext } from "../backend.ts";
import type { FilterManager, PendingTransaction } from "../filters.ts";
import { formatLog, formatTransaction } from "../format.ts";
import { checkFilterRange, logFilterSchema, queryLogs, toCriteria } from "../logs.ts";

export function ethNewFilter(_ctx: EthContext, filters: FilterManager) {
  return defineMethod({
    name: "eth_newFilter",
    params: [logFilterSchema],
    handler: ([filter]) => {
      const criteria = toCriteria(filter);
      checkFilterRange(criteria);
      return filters.newLogFilter(criteria);
    },
  });
}

export function ethNewBlockFilter(_ctx: EthContext, filters: FilterManager) {
  return defineMethod({ name: "eth_newBlockFilter", params: [], handler: () => filters.newBlockFilter() });
}

export function ethNewPendingTransactionFilter(_ctx: EthContext, filters: FilterManager) {
  return defineMethod({
    name: "eth_newPendingTransactionFilter",
    params: [s.optional(s.bool())],
    handler: ([fullTx]) => filters.newPendingTransactionFilter(fullTx === true),
  });
}

export function ethGetFilterChanges(_ctx: EthContext, filters: FilterManager) {
  return defineMethod({
    name: "eth_getFilterChanges",
    params: [s.string()],
    handler: ([id]) =>
      filters.changes(id).map((x) =>
        typeof x === "string" ? x : "tx" in (x as object)
          // geth NewRPCPendingTransaction: no block yet.
          ? formatTransaction(
            (x as PendingTransaction).tx,
            undefined,
            hexToBytes((x as PendingTransaction).hash),
          )
          : formatLog(x as LogEntry)
      ),
  });
}

export function ethGetFilterLogs(ctx: EthContext, filters: FilterManager) {
  return defineMethod({
    name: "eth_getFilterLogs",
    params: [s.string()],
    handler: ([id]) => queryLogs(ctx.backend, filters.criteria(id)).map(formatLog),
  });
}

export function ethUninstallFilter(_ctx: EthContext, filters: FilterManager) {
  return defineMethod({
    name: "eth_uninstallFilter",
    params: [s.string()],
    handler: ([id]) => filters.uninstall(id),
  });
}
