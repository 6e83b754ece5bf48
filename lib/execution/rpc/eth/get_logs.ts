/** eth_getLogs: logs by address, topics and block range or hash. */
import { defineMethod, RawJson } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { logsJson } from "../format.ts";
import { logFilterSchema, queryLogs, toCriteria } from "../logs.ts";

export function ethGetLogs(ctx: EthContext) {
  return defineMethod({
    name: "eth_getLogs",
    params: [logFilterSchema],
    // Pages of thousands of logs: written as JSON text directly (formatLog's shape, see logJson).
    handler: ([filter]) => new RawJson(logsJson(queryLogs(ctx.backend, toCriteria(filter)))),
  });
}
