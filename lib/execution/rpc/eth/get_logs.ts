/** eth_getLogs: logs by address, topics and block range or hash. */
import { defineMethod, RawJson } from "../../../rpc/mod.ts";
import type { EthContext } from "../backend.ts";
import { logsJsonBytes } from "../format.ts";
import { logFilterSchema, queryLogs, toCriteria } from "../logs.ts";

export function ethGetLogs(ctx: EthContext) {
  return defineMethod({
    name: "eth_getLogs",
    params: [logFilterSchema],
    // Pages of thousands of logs: written as JSON bytes directly (formatLog's shape, see logsJsonBytes).
    handler: ([filter]) => new RawJson(logsJsonBytes(queryLogs(ctx.backend, toCriteria(filter)))),
  });
}
