/**
 * Runs a role in the node Worker and keeps the main thread as its supervisor: it resolves the
 * file grants, starts the Worker, forwards SIGINT/SIGTERM as a graceful stop, and returns when
 * the Worker has stopped. A start failure rejects with the Worker's one-line message.
 */
import { BaseError } from "../common/errors.ts";
import {
  type NodeFilePaths,
  nodeWorkerPermissions,
  resolveNodeFileGrants,
  startRestrictedWorker,
} from "./permissions.ts";
import type { RoleRequest } from "./role.ts";
import { startThread } from "./threads.ts";
import type { WorkerCommand, WorkerEvent } from "./worker.ts";

export interface LaunchHooks {
  /** Called once the role is serving. */
  onReady?: (endpoints: Record<string, string>) => void;
  /** Resolves to request a stop (tests); signals do the same in a real run. */
  stopSignal?: AbortSignal;
}

/** Start `request` in a restricted Worker and wait until it stops. */
export async function launchRole(
  request: RoleRequest,
  paths: NodeFilePaths,
  hooks: LaunchHooks = {},
): Promise<void> {
  const grants = await resolveNodeFileGrants(paths);
  const worker = startRestrictedWorker(
    new URL("./worker.ts", import.meta.url),
    nodeWorkerPermissions(grants),
  );
  const send = (command: WorkerCommand, transfer: Transferable[] = []) =>
    worker.postMessage(command, transfer);
  const threads: Worker[] = [];
  let stopRequested = false;
  const requestStop = (reason: string) => {
    if (stopRequested) return;
    stopRequested = true;
    send({ type: "stop", reason });
  };
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  const onSignal = signals.map((sig) => [sig, () => requestStop(sig)] as const);
  for (const [sig, fn] of onSignal) Deno.addSignalListener(sig, fn);
  const onAbort = () => requestStop("stop requested");
  hooks.stopSignal?.addEventListener("abort", onAbort, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<WorkerEvent>) => {
        const event = e.data;
        if (event.type === "thread") {
          // A helper thread for the node Worker, with only what it needs (threads.ts).
          const { id } = event;
          const failed = (message: string) => send({ type: "threadFailed", id, message });
          try {
            threads.push(startThread(event.kind, grants.read, event.port, failed));
          } catch (err) {
            failed((err as Error).message);
          }
        } else if (event.type === "ready") hooks.onReady?.(event.endpoints);
        else if (event.type === "stopped") resolve();
        else reject(new BaseError("NODE_FAILED", event.message.replace(/^keel: /, "")));
      };
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new BaseError("NODE_FAILED", e.message));
      };
      send({ type: "start", request });
    });
  } finally {
    for (const [sig, fn] of onSignal) Deno.removeSignalListener(sig, fn);
    hooks.stopSignal?.removeEventListener("abort", onAbort);
    worker.terminate();
    for (const t of threads) t.terminate();
  }
}
