/**
 * Why a p2p socket could not be bound, in words an operator acts on. libp2p reports a TCP listen
 * failure as one message naming its own options ("set `transportManager.faultTolerance`") with a
 * stack trace inside; node:dgram reports a UDP bind failure with an error code.
 */

const REASONS: Record<string, string> = {
  EADDRINUSE: "address already in use",
  EACCES: "permission denied (ports below 1024 need privileges)",
  EADDRNOTAVAIL: "no such address on this host",
};

/** Whether `e` is libp2p's or node's report of a socket that could not be bound. */
export function isListenFailure(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | undefined;
  const text = typeof err?.message === "string" ? err.message : String(e);
  return (typeof err?.code === "string" && err.code in REASONS) ||
    /failed to be listened on|\b(EADDRINUSE|EACCES|EADDRNOTAVAIL)\b/.test(text);
}

/** "address already in use (EADDRINUSE)" for the usual codes, else the error's first line. */
export function listenFailure(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown } | undefined;
  const text = typeof err?.message === "string" ? err.message : String(e);
  const code = typeof err?.code === "string" && err.code in REASONS
    ? err.code
    : /\b(EADDRINUSE|EACCES|EADDRNOTAVAIL)\b/.exec(text)?.[1];
  if (code !== undefined) return `${REASONS[code]} (${code})`;
  return text.split("\n")[0].trim();
}
