/**
 * Helper threads of the node Worker. The node Worker runs with its file access narrowed to the paths
 * of its options (permissions.ts), so it cannot start Workers of its own: loading their modules needs
 * read access to keel's code. The main thread starts them instead, with the node Worker's file grants
 * and nothing more, and hands the node Worker a MessagePort to each: the node Worker sends a `thread`
 * event, the launcher answers with a `thread` command carrying the port (or an error), and a
 * `threadFailed` command if the thread dies later.
 */
import { BaseError } from "../common/errors.ts";
import { ROOT_WORKER_MODULE, type RootWorkerChannel } from "../execution/state/mod.ts";
import { BLOCK_SENDERS_WORKER_MODULE, type SendersWorkerChannel } from "../execution/txpool/mod.ts";

/**
 * The kinds of helper thread: the state-root worker of block import (execution/state/root_task.ts) and
 * the sender recovery of block import (execution/txpool/block_senders.ts).
 */
export type ThreadKind = "state-root" | "senders";

/** Node Worker -> main thread. */
export interface ThreadRequest {
  type: "thread";
  id: number;
  kind: ThreadKind;
}

/** Main thread -> node Worker. */
export type ThreadAnswer =
  | { type: "thread"; id: number; port?: MessagePort; error?: string }
  | { type: "threadFailed"; id: number; message: string };

/** The module each kind runs. */
export const THREAD_MODULES: Record<ThreadKind, URL> = {
  "state-root": ROOT_WORKER_MODULE,
  senders: BLOCK_SENDERS_WORKER_MODULE,
};

/** What each kind may read: the state-root worker the node Worker's files (the database), the other nothing. */
export function threadPermissions(kind: ThreadKind, read: string[]): Deno.PermissionOptionsObject {
  return {
    read: kind === "state-root" ? read : false,
    write: false,
    net: false,
    env: false,
    sys: false,
    run: false,
    ffi: false,
    import: false,
  };
}

// ---------------------------------------------------------------------------------------------
// In the node Worker

let host: ((request: ThreadRequest) => void) | undefined;
let nextId = 0;
const waiting = new Map<number, (answer: { port?: MessagePort; error?: string }) => void>();
const failureHandlers = new Map<number, (message: string) => void>();
/** Failures reported before anyone listened. */
const earlyFailures = new Map<number, string>();

/** Called by the node Worker's entry: how to reach the main thread. */
export function setThreadHost(post: (request: ThreadRequest) => void): void {
  host = post;
}

/** The node Worker's entry passes the launcher's answers here. */
export function onThreadAnswer(answer: ThreadAnswer): void {
  if (answer.type === "thread") {
    const done = waiting.get(answer.id);
    waiting.delete(answer.id);
    done?.(answer);
  } else {
    const handler = failureHandlers.get(answer.id);
    failureHandlers.delete(answer.id);
    if (handler !== undefined) handler(answer.message);
    else earlyFailures.set(answer.id, answer.message);
  }
}

async function requestThread(kind: ThreadKind): Promise<{ id: number; port: MessagePort } | undefined> {
  if (host === undefined) return undefined;
  const id = nextId++;
  const answer = await new Promise<{ port?: MessagePort; error?: string }>((resolve) => {
    waiting.set(id, resolve);
    host!({ type: "thread", id, kind });
  });
  if (answer.port === undefined) {
    throw new BaseError("THREAD_FAILED", `Cannot start the ${kind} thread: ${answer.error ?? "no port"}`);
  }
  return { id, port: answer.port };
}

/** The sender-recovery helper of block import, when running in the node Worker (else undefined). */
export async function requestSendersChannel(): Promise<SendersWorkerChannel | undefined> {
  const thread = await requestThread("senders");
  if (thread === undefined) return undefined;
  return { port: thread.port, close: () => thread.port.close() };
}

/**
 * A state-root worker started by the main thread, when running in the node Worker; undefined
 * elsewhere (in-process roles, tests: the engine then starts its own).
 */
export async function requestRootWorkerChannel(): Promise<RootWorkerChannel | undefined> {
  const thread = await requestThread("state-root");
  if (thread === undefined) return undefined;
  const { id, port } = thread;
  return {
    port,
    onFailure: (cb) => {
      const early = earlyFailures.get(id);
      earlyFailures.delete(id);
      if (early !== undefined) cb(early);
      else failureHandlers.set(id, cb);
    },
    close: () => {
      failureHandlers.delete(id);
      port.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// On the main thread

/** Starts a helper thread for the node Worker; returns it and the port to hand over. */
export function startThread(
  kind: ThreadKind,
  read: string[],
  onFailure: (message: string) => void,
): { worker: Worker; port: MessagePort } {
  const worker = new Worker(THREAD_MODULES[kind].href, {
    type: "module",
    name: `keel-${kind}`,
    deno: { permissions: threadPermissions(kind, read) },
  } as WorkerOptions);
  worker.onerror = (e) => {
    e.preventDefault();
    onFailure(e.message);
    worker.terminate();
  };
  const channel = new MessageChannel();
  worker.postMessage({ kind: "attach", port: channel.port1 }, [channel.port1]);
  return { worker, port: channel.port2 };
}
