/**
 * The composition root: `run.ts` is what `main.ts` calls for `keel node`, `keel execution` and
 * `keel execution init`. Each role runs in the node Worker, whose file access is exactly the paths
 * of its options (permissions.ts); the main thread supervises it and forwards signals.
 */
export { initExecution, runExecution, runNode } from "./run.ts";
export type { RoleRequest, RunningRole } from "./role.ts";
export { startRole } from "./start_role.ts";
export { startExecutionRole } from "./execution_role.ts";
export { loadRollupConfig, startNodeRole } from "./node_role.ts";
export { type LaunchHooks, launchRole } from "./launcher.ts";
