/** Starts the role a request names (in the node Worker, or in-process in tests). */
import { startExecutionRole } from "./execution_role.ts";
import { startNodeRole } from "./node_role.ts";
import type { RoleRequest, RunningRole } from "./role.ts";

export function startRole(request: RoleRequest): Promise<RunningRole> {
  return request.role === "node"
    ? startNodeRole(request)
    : startExecutionRole(request.options, request.sources);
}
