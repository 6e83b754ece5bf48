/**
 * Starts the role a request names (in the node Worker, or in-process in tests). Each role's
 * module graph loads only when that role starts: `keel execution` never loads the rollup node.
 */
import type { RoleRequest, RunningRole } from "./role.ts";

export async function startRole(request: RoleRequest): Promise<RunningRole> {
  if (request.role === "node") {
    const { startNodeRole } = await import("./node_role.ts");
    return await startNodeRole(request);
  }
  if (request.role === "devnet") {
    const { startDevnetRole } = await import("./devnet_role.ts");
    return await startDevnetRole(request.options);
  }
  if (request.role === "da-server") {
    const { startDaServerRole } = await import("./da_server_role.ts");
    return await startDaServerRole(request.options);
  }
  if (request.role === "batcher") {
    const { startBatcherRole } = await import("./batcher_role.ts");
    return await startBatcherRole(request.options);
  }
  const { startExecutionRole } = await import("./execution_role.ts");
  return await startExecutionRole(request.options, request.sources);
}
