/**
 * The node Worker's entry. The main thread starts it with file permissions narrowed to the
 * paths of the options (permissions.ts), sends `{type: "start", request}`, and later
 * `{type: "stop"}`. The Worker answers `ready` (with endpoints), `error` (one line), `stopped`.
 */
/// <reference lib="deno.worker" />
import { getLogger } from "../common/logger.ts";
import { formatPermissionError } from "./permissions.ts";
import type { RoleRequest, RunningRole } from "./role.ts";
import { startRole } from "./start_role.ts";
import { onThreadFailure, setThreadHost, type ThreadFailure, type ThreadRequest } from "./threads.ts";

/** `stop`'s `reason`: what asked for it (a signal's name), for the log. */
export type WorkerCommand =
  | { type: "start"; request: RoleRequest }
  | { type: "stop"; reason?: string }
  | ThreadFailure;
export type WorkerEvent =
  | { type: "ready"; endpoints: Record<string, string> }
  | { type: "error"; message: string }
  | { type: "stopped" }
  | ThreadRequest;

function describe(err: unknown): string {
  return formatPermissionError(err) ?? `keel: ${err instanceof Error ? err.message : String(err)}`;
}

let running: RunningRole | undefined;
let stopping = false;

function post(event: WorkerEvent): void {
  self.postMessage(event);
}

// Helper threads are started by the main thread on request (threads.ts).
setThreadHost((request) => self.postMessage(request, [request.port]));

self.onmessage = async (e: MessageEvent<WorkerCommand>) => {
  const command = e.data;
  if (command.type === "threadFailed") {
    onThreadFailure(command);
    return;
  }
  if (command.type === "start") {
    try {
      running = await startRole(command.request);
      if (stopping) {
        await running.stop();
        post({ type: "stopped" });
        return;
      }
      post({ type: "ready", endpoints: { ...running.endpoints } });
      const role = running;
      void role.halted?.then(async (reason) => {
        if (stopping) return;
        stopping = true;
        try {
          await role.stop();
        } finally {
          post({ type: "error", message: `keel: ${reason}` });
        }
      });
    } catch (err) {
      post({ type: "error", message: describe(err) });
    }
    return;
  }
  stopping = true;
  // As geth's "Got interrupt, shutting down...": the journal shows a stop that was asked for, and its end.
  const log = getLogger(["node"]);
  if (running !== undefined) log.info("Shutting down", { reason: command.reason ?? "stop requested" });
  try {
    await running?.stop();
    if (running !== undefined) log.info("Stopped");
    post({ type: "stopped" });
  } catch (err) {
    post({ type: "error", message: describe(err) });
  }
};
