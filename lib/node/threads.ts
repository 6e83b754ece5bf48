/**
 * Helper threads of the node Worker. The node Worker runs with its file access narrowed to the paths
 * of its options (permissions.ts), so it cannot start Workers of its own: loading their modules needs
 * read access to keel's code. The main thread starts them instead, each with only what it needs, when
 * the node Worker first asks: the node Worker makes a MessageChannel, keeps one port (messages queue
 * there until the thread listens) and sends the other with a `thread` event; the launcher starts the
 * thread, attaches the port, and sends a `threadFailed` command if the thread cannot start or dies.
 */
import { ROOT_WORKER_MODULE, type RootWorkerChannel } from "../execution/state/mod.ts";
import { BLOCK_SENDERS_WORKER_MODULE, type SendersWorkerChannel } from "../execution/txpool/mod.ts";

/**
 * The kinds of helper thread: the state-root worker of block import (execution/state/root_task.ts) and
 * the sender recovery of block import (execution/txpool/block_senders.ts).
 */
export type ThreadKind = "state-root" | "senders";

/** Node Worker -> main thread: start a `kind` thread and attach `port` to it. */
export interface ThreadRequest {
  type: "thread";
  id: number;
  kind: ThreadKind;
  port: MessagePort;
}

/** Main thread -> node Worker: the thread could not start, or died. */
export interface ThreadFailure {
  type: "threadFailed";
  id: number;
  message: string;
}

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
const failureHandlers = new Map<number, (message: string) => void>();
/** Failures reported before anyone listened. */
const earlyFailures = new Map<number, string>();

/** Called by the node Worker's entry: how to reach the main thread. */
export function setThreadHost(post: (request: ThreadRequest) => void): void {
  host = post;
}

/** The node Worker's entry passes the launcher's failure reports here. */
export function onThreadFailure(failure: ThreadFailure): void {
  const handler = failureHandlers.get(failure.id);
  failureHandlers.delete(failure.id);
  if (handler !== undefined) handler(failure.message);
  else earlyFailures.set(failure.id, failure.message);
}

interface Thread {
  port: MessagePort;
  onFailure(cb: (message: string) => void): void;
  close(): void;
}

function requestThread(kind: ThreadKind): Thread {
  const id = nextId++;
  const channel = new MessageChannel();
  host!({ type: "thread", id, kind, port: channel.port2 });
  const port = channel.port1;
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

/**
 * When running in the node Worker: a function that asks the main thread for a state-root worker
 * (called when the first block is imported). Undefined elsewhere (in-process roles, tests: the engine
 * then starts its own).
 */
export function rootWorkerConnector(): (() => RootWorkerChannel) | undefined {
  return host === undefined ? undefined : () => requestThread("state-root");
}

/** The same for the sender-recovery helper of block import. */
export function sendersConnector(): (() => SendersWorkerChannel) | undefined {
  return host === undefined ? undefined : () => requestThread("senders");
}

// ---------------------------------------------------------------------------------------------
// On the main thread

/**
 * Starts a helper thread for the node Worker and attaches `port` to it; `onFailure` is called if it
 * cannot start or dies. Returns the thread (to terminate when the node stops).
 */
export function startThread(
  kind: ThreadKind,
  read: string[],
  port: MessagePort,
  onFailure: (message: string) => void,
): Worker {
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
  worker.postMessage({ kind: "attach", port }, [port]);
  return worker;
}
