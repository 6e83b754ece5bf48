/**
 * An Alt-DA server (specs/experimental/alt-da.md "DA Server"; op-alt-da daserver.go and its file
 * store), for local chains and tests: `keel da-server`.
 * - `GET /get/0x<commitment>`: the input, 404 when unknown;
 * - `POST /put/0x<commitment>`: stores the body under the commitment (a keccak256 commitment must be
 *   the body's keccak256: 400 otherwise, where op-alt-da stores it anyway and readers find the mismatch);
 * - `POST /put`: stores the body and answers its commitment, keccak256 (`type 0 ++ keccak256`), or with
 *   generic commitments `1 ++ 0xff ++ random` (op-alt-da's test mode).
 * Inputs are files named by the commitment's hex in a folder, written whole (a temporary file renamed:
 * nothing half-written after a crash), or kept in memory.
 */
import { bytesToUnprefixedHex, concatBytes, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { getLogger } from "../../common/logger.ts";
import {
  commitmentMatches,
  decodeCommitment,
  encodeCommitment,
  keccakCommitment,
} from "../../protocol/altda.ts";

/** Where a DA server keeps inputs, by encoded commitment. */
export interface DaStore {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  put(key: Uint8Array, value: Uint8Array): Promise<void>;
  /** Where the inputs are, for logs. */
  readonly where: string;
}

export class MemoryDaStore implements DaStore {
  readonly where = "memory";
  readonly #map = new Map<string, Uint8Array>();

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return Promise.resolve(this.#map.get(bytesToUnprefixedHex(key)));
  }

  put(key: Uint8Array, value: Uint8Array): Promise<void> {
    this.#map.set(bytesToUnprefixedHex(key), value.slice());
    return Promise.resolve();
  }
}

/** One file per input in `dir`, named by the commitment's hex (op-alt-da FileStore), mode 0600. */
export class FileDaStore implements DaStore {
  readonly where: string;

  constructor(dir: string) {
    this.where = dir;
  }

  #path(key: Uint8Array): string {
    return `${this.where}/${bytesToUnprefixedHex(key)}`;
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    try {
      return await Deno.readFile(this.#path(key));
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return undefined;
      throw e;
    }
  }

  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    const path = this.#path(key);
    const tmp = `${path}.${crypto.randomUUID()}.tmp`;
    try {
      await Deno.writeFile(tmp, value, { mode: 0o600 });
      await Deno.rename(tmp, path);
    } catch (e) {
      await Deno.remove(tmp).catch(() => {});
      throw e;
    }
  }
}

export interface DaServerOptions {
  /** `POST /put` answers generic commitments (`1 ++ 0xff ++ random`) instead of keccak256 ones. */
  genericCommitments: boolean;
}

const OCTETS = { "content-type": "application/octet-stream" };

/** The commitment hex of `/get/0x…` or `/put/0x…`; undefined when it does not decode. */
function keyOf(hex: string): Uint8Array | undefined {
  if (!/^0x([0-9a-fA-F]{2})+$/.test(hex)) return undefined;
  return hexToBytes(hex);
}

function status(code: number, text: string): Response {
  return new Response(text, { status: code });
}

/** The server's request handler (Deno.serve, or tests). */
export function daServerHandler(
  store: DaStore,
  options: DaServerOptions,
): (req: Request) => Promise<Response> {
  const log = getLogger(["altda", "server"]);
  return async (req) => {
    const path = new URL(req.url).pathname;
    try {
      if (req.method === "GET") {
        const m = /^\/get\/([^/]+)$/.exec(path);
        if (m === null) return status(400, "expected GET /get/0x<commitment>");
        const key = keyOf(m[1]);
        if (key === undefined) return status(400, "the commitment is not hex");
        const input = await store.get(key);
        if (input === undefined) return status(404, "not found");
        return new Response(input as Uint8Array<ArrayBuffer>, { headers: OCTETS });
      }
      if (req.method !== "POST") return status(405, "GET /get/… or POST /put…");
      const input = new Uint8Array(await req.arrayBuffer());
      if (path === "/put" || path === "/put/") {
        const commitment = options.genericCommitments
          ? concatBytes(new Uint8Array([1, 0xff]), crypto.getRandomValues(new Uint8Array(8)))
          : encodeCommitment(keccakCommitment(input));
        await store.put(commitment, input);
        log.info("Stored input {commitment} ({size} bytes)", {
          commitment: bytesToUnprefixedHex(commitment),
          size: input.length,
        });
        return new Response(commitment as Uint8Array<ArrayBuffer>, { headers: OCTETS });
      }
      const m = /^\/put\/([^/]+)$/.exec(path);
      if (m === null) return status(400, "expected POST /put or /put/0x<commitment>");
      const key = keyOf(m[1]);
      if (key === undefined) return status(400, "the commitment is not hex");
      let matches = true;
      try {
        matches = commitmentMatches(decodeCommitment(key), input);
      } catch {
        // Not a commitment keel knows: stored as it is, as op-alt-da does.
      }
      if (!matches) return status(400, "the input does not match its keccak256 commitment");
      await store.put(key, input);
      log.info("Stored input {commitment} ({size} bytes)", {
        commitment: bytesToUnprefixedHex(key),
        size: input.length,
      });
      return new Response(null, { status: 200 });
    } catch (e) {
      log.error("DA server request {path} failed: {message}", { path, message: (e as Error).message });
      return status(500, "storage failed");
    }
  };
}

/** A DA server listening on `hostname`:`port` (0: any free port). */
export interface RunningDaServer {
  url: string;
  close(): Promise<void>;
}

export function startDaServer(
  hostname: string,
  port: number,
  store: DaStore,
  options: DaServerOptions,
): RunningDaServer {
  const ac = new AbortController();
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve(
      { hostname, port, signal: ac.signal, onListen: () => {} },
      daServerHandler(store, options),
    );
  } catch (e) {
    throw new BaseError("DA_SERVER_LISTEN", `Cannot listen on ${hostname}:${port}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return {
    url: `http://${host}:${server.addr.port}`,
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}
