/** eth_getLogs: logs by address, topics and block range or hash. */
import { defineMethod } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { formatLog } from "../format.ts";
import { logFilterSchema, queryLogs, toCriteria } from "../logs.ts";

export function ethGetLogs(ctx: EthContext) {
  return defineMethod({
    name: "eth_getLogs",
    params: [logFilterSchema],
    handler: ([filter]) => queryLogs(ctx.backend, toCriteria(filter)).map(formatLog),
  });
}
