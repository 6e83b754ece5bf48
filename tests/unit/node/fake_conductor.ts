/** An op-conductor stand-in for tests: conductor_leader from `state.leader`, commits recorded or refused. */

export interface FakeConductorState {
  leader: boolean;
  /** Commits answered with a JSON-RPC error while true. */
  refuseCommits: boolean;
  /** HTTP 500 for this many more requests. */
  failNext: number;
  /** Milliseconds to wait before answering. */
  delayMs: number;
}

export function fakeConductor(initial: Partial<FakeConductorState> = {}) {
  const state: FakeConductorState = {
    leader: true,
    refuseCommits: false,
    failNext: 0,
    delayMs: 0,
    ...initial,
  };
  const calls: { method: string; params: unknown[] }[] = [];
  /** The envelopes committed (the conductor's log). */
  const committed: Record<string, unknown>[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const { id, method, params } = await req.json();
    calls.push({ method, params });
    if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
    if (state.failNext > 0) {
      state.failNext--;
      return new Response("unavailable", { status: 500 });
    }
    if (method === "conductor_leader") return Response.json({ jsonrpc: "2.0", id, result: state.leader });
    if (method === "conductor_commitUnsafePayload") {
      if (state.refuseCommits || !state.leader) {
        return Response.json({
          jsonrpc: "2.0",
          id,
          error: { code: -32000, message: "node is not the leader" },
        });
      }
      committed.push(params[0]);
      return Response.json({ jsonrpc: "2.0", id, result: null });
    }
    return Response.json({ jsonrpc: "2.0", id, error: { code: -32601, message: "method not found" } });
  });
  return { state, calls, committed, server, url: `http://127.0.0.1:${server.addr.port}` };
}
