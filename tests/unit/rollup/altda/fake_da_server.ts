/**
 * A DA server on 127.0.0.1 as specs/experimental/alt-da.md "DA Server" describes it (op-alt-da's
 * daserver.go with memory storage): `GET /get/0x<commitment>`, `POST /put/0x<commitment>` and, for
 * generic commitments, `POST /put` answering `1 ++ 0x0c ++ keccak256(input)`. For tests: inputs can be
 * withheld (404), answers delayed or altered, and requests in flight are counted.
 */
import { bytesToHex, concatBytes, hexToBytes } from "../../../../lib/common/bytes.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";

export interface FakeDaServer {
  url: string;
  /** Inputs by encoded commitment (hex). */
  store: Map<string, Uint8Array>;
  /** Commitments (hex) answered 404 even when stored. */
  withheld: Set<string>;
  state: { delayMs: number; tamper: boolean; inFlight: number; peak: number; gets: number; puts: number };
  close(): Promise<void>;
}

export function fakeDaServer(): FakeDaServer {
  const store = new Map<string, Uint8Array>();
  const withheld = new Set<string>();
  const state = { delayMs: 0, tamper: false, inFlight: 0, peak: 0, gets: 0, puts: 0 };
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    async (req) => {
      state.inFlight++;
      state.peak = Math.max(state.peak, state.inFlight);
      try {
        if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
        const path = new URL(req.url).pathname;
        const get = /^\/get\/(0x[0-9a-f]+)$/.exec(path);
        if (req.method === "GET" && get !== null) {
          state.gets++;
          const input = store.get(get[1]);
          if (input === undefined || withheld.has(get[1])) return new Response("not found", { status: 404 });
          const out = state.tamper ? input.map((b, i) => (i === 0 ? b ^ 1 : b)) : input;
          return new Response(out as Uint8Array<ArrayBuffer>, {
            headers: { "content-type": "application/octet-stream" },
          });
        }
        if (req.method === "POST" && path.startsWith("/put")) {
          state.puts++;
          const input = new Uint8Array(await req.arrayBuffer());
          if (path === "/put") {
            const commitment = concatBytes(new Uint8Array([1, 0x0c]), keccak256(input));
            store.set(bytesToHex(commitment), input);
            return new Response(commitment as Uint8Array<ArrayBuffer>, {
              headers: { "content-type": "application/octet-stream" },
            });
          }
          const put = /^\/put\/(0x[0-9a-f]+)$/.exec(path);
          if (put === null) return new Response("bad request", { status: 400 });
          // A keccak256 commitment must match (op-alt-da's server checks it).
          const c = hexToBytes(put[1]);
          if (c[0] === 0 && bytesToHex(keccak256(input)) !== bytesToHex(c.subarray(1))) {
            return new Response("commitment mismatch", { status: 400 });
          }
          store.set(put[1], input);
          return new Response(null, { status: 200 });
        }
        return new Response("not found", { status: 404 });
      } finally {
        state.inFlight--;
      }
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    store,
    withheld,
    state,
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}
