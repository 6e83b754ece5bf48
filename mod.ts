/**
 * keel as a library: start the roles in-process, or use the pieces (protocol codecs, the
 * execution engine, the JSON-RPC server core) directly. The CLI is `main.ts`.
 *
 * @example
 * ```ts
 * import { parseArgs, startRole } from "./mod.ts";
 * const parsed = parseArgs(["execution", "--dev", "--http.port=8545"], {});
 * if (parsed.command === "execution") {
 *   const running = await startRole({ role: "execution", options: parsed.options, sources: parsed.sources });
 *   await running.stop();
 * }
 * ```
 */
export { keelVersion, parseArgs, type ParsedCommand } from "./lib/config/mod.ts";
export {
  initExecution,
  loadRollupConfig,
  type RoleRequest,
  runExecution,
  type RunningRole,
  runNode,
  startRole,
} from "./lib/node/mod.ts";
export { buildDevGenesis, ExecutionEngine, ExecutionEngineApi, parseGenesis } from "./lib/execution/mod.ts";
export { MethodRegistry, RpcServer } from "./lib/rpc/mod.ts";
export * as protocol from "./lib/protocol/mod.ts";
export { getNetworkPreset, listNetworks, NETWORK_NAMES } from "./networks/mod.ts";
