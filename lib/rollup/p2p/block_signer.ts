/**
 * Who signs the blocks a sequencer gossips (specs/protocol/rollup-node-p2p.md "Block signatures"): the
 * sequencer key given to the node (`--p2p.sequencer.key`), or a remote signer (`--signer.endpoint`,
 * op-signer's JSON-RPC API as op-node calls it: op-service/signer client.go and blockpayload_args.go).
 *
 * The remote signer is asked `opsigner_signBlockPayload` with op-node's V1 arguments, JSON as Go encodes
 * them: `domain` 32 numbers (all zero), `chainId` a JSON number, `payloadHash` base64 (keccak256 of the
 * signed bytes), `senderAddress` hex (`--signer.address`); it answers the 65-byte signature r ++ s ++ v,
 * hex. At start the node asks `health_status` (as op-node, within 3 s) and stops when the signer does not
 * answer. With `--signer.tls.enabled` (the default) the connection is TLS (1.2 or 1.3 as Deno's client
 * negotiates; op-node asks 1.3) with the server checked against `--signer.tls.ca` and the node's
 * certificate and key (`--signer.tls.cert`, `--signer.tls.key`) presented for client authentication,
 * read again when they change; `--signer.header` adds HTTP headers. keel also checks that each signature
 * recovers to `--signer.address` before publishing (peers would reject the block otherwise).
 */
import { bytesToHex, equalBytes, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { JsonRpcClient } from "../../common/json_rpc_client.ts";
import { getLogger } from "../../common/logger.ts";
import { dirname, resolve } from "node:path";
import { blockSigner, blockSigningHash, signBlockHash } from "../../protocol/gossip_block.ts";

export interface BlockSigner {
  /** What it is, for logs: "local" or "remote <endpoint>". */
  readonly name: string;
  /** The signature (r ++ s ++ y_parity) of a block whose signed bytes hash to `payloadHash`. */
  sign(chainId: bigint, payloadHash: Uint8Array): Promise<Uint8Array>;
  close(): void;
}

/** Signs with a key held by the node (--p2p.sequencer.key). */
export class LocalBlockSigner implements BlockSigner {
  readonly name = "local";
  readonly #key: Uint8Array;

  constructor(key: Uint8Array) {
    this.#key = key;
  }

  sign(chainId: bigint, payloadHash: Uint8Array): Promise<Uint8Array> {
    return Promise.resolve(signBlockHash(blockSigningHash(chainId, payloadHash), this.#key));
  }

  close(): void {}
}

export interface RemoteSignerOptions {
  /** --signer.endpoint. */
  endpoint: string;
  /** --signer.address: the address the signer signs for. */
  address: Uint8Array;
  /** --signer.header pairs, `key=value`. */
  headers: string[];
  /** TLS with client authentication (--signer.tls.*); undefined: plain HTTP(S) without a client certificate. */
  tls?: { ca: string; cert: string; key: string };
  /** Milliseconds a signing request may take (default 10 s). */
  timeoutMs?: number;
}

/** Standard base64 with padding (Go's encoding of a []byte in JSON). */
function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

/** op-node's reachability check at start (op-service/signer client.go pingVersion): 3 seconds. */
const PING_TIMEOUT_MS = 3_000;

function headerRecord(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) {
      throw new BaseError("SIGNER_CONFIG", `Cannot use --signer.header ${pair}: expected key=value`);
    }
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

async function readPem(path: string, what: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    throw new BaseError("SIGNER_CONFIG", `Cannot read ${what} ${path}: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

/** The TLS client of the signer's files; SIGNER_CONFIG when they do not load. */
async function tlsClient(tls: NonNullable<RemoteSignerOptions["tls"]>): Promise<Deno.HttpClient> {
  // Read together, but the error named is the first file's in this order, not whichever read failed first.
  const read = await Promise.allSettled([
    readPem(tls.ca, "the signer's TLS CA certificate (--signer.tls.ca)"),
    readPem(tls.cert, "the signer's TLS client certificate (--signer.tls.cert)"),
    readPem(tls.key, "the signer's TLS client key (--signer.tls.key)"),
  ]);
  const [ca, cert, key] = read.map((r) => {
    if (r.status === "rejected") throw r.reason;
    return r.value;
  });
  try {
    return Deno.createHttpClient({ caCerts: [ca], cert, key });
  } catch (e) {
    throw new BaseError("SIGNER_CONFIG", `Cannot use the signer's TLS files: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

/** After a change to a TLS file, this long before reading them (a rotation writes several files). */
const RELOAD_DELAY_MS = 200;

/**
 * Signs through an op-signer compatible service. With TLS, the certificate and key files are watched
 * and read again when they change (op-service's certman: rotated client certificates are picked up
 * without a restart); files that do not load leave the current client in use, with a warning.
 */
export class RemoteBlockSigner implements BlockSigner {
  readonly name: string;
  readonly address: Uint8Array;
  readonly #options: RemoteSignerOptions;
  readonly #headers: Record<string, string>;
  #rpc: JsonRpcClient;
  #http: Deno.HttpClient | undefined;
  #watcher: Deno.FsWatcher | undefined;
  #reload: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  readonly #log = getLogger(["rollup", "p2p", "signer"]);
  /** TLS files read again, and reloads that failed (tests, logs). */
  readonly reloads = { done: 0, failed: 0 };

  private constructor(
    options: RemoteSignerOptions,
    headers: Record<string, string>,
    http: Deno.HttpClient | undefined,
  ) {
    this.name = `remote ${options.endpoint}`;
    this.address = options.address;
    this.#options = options;
    this.#headers = headers;
    this.#http = http;
    this.#rpc = this.#client(options.timeoutMs ?? 10_000);
  }

  #client(timeoutMs: number): JsonRpcClient {
    return new JsonRpcClient(this.#options.endpoint, {
      timeoutMs,
      headers: this.#headers,
      client: this.#http,
    });
  }

  /** Connects and asks `health_status`; throws SIGNER_UNREACHABLE or SIGNER_CONFIG when it cannot. */
  static async open(options: RemoteSignerOptions): Promise<RemoteBlockSigner> {
    const headers = headerRecord(options.headers);
    const http = options.tls === undefined ? undefined : await tlsClient(options.tls);
    const signer = new RemoteBlockSigner(options, headers, http);
    try {
      const version = await signer.#client(PING_TIMEOUT_MS).call<unknown>("health_status");
      if (typeof version !== "string") throw new Error(`health_status answered ${JSON.stringify(version)}`);
    } catch (e) {
      signer.close();
      throw new BaseError(
        "SIGNER_UNREACHABLE",
        `Cannot reach the remote signer at ${options.endpoint}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    if (options.tls !== undefined) signer.#watch(options.tls);
    return signer;
  }

  /** Watches the directories of the certificate and key (a rotation may replace the files). */
  #watch(tls: NonNullable<RemoteSignerOptions["tls"]>): void {
    const files = new Set([tls.cert, tls.key].map((f) => resolve(f)));
    const dirs = [...new Set([...files].map((f) => dirname(f)))];
    const watcher = this.#watcher = Deno.watchFs(dirs, { recursive: false });
    void (async () => {
      try {
        for await (const event of watcher) {
          if (!event.paths.some((p) => files.has(resolve(p)))) continue;
          if (this.#reload !== undefined) clearTimeout(this.#reload);
          this.#reload = setTimeout(() => void this.#reloadTls(tls), RELOAD_DELAY_MS);
        }
      } catch (e) {
        if (!this.#closed) {
          this.#log.warn("Stopped watching the signer's TLS files: {error}", { error: String(e) });
        }
      }
    })();
  }

  async #reloadTls(tls: NonNullable<RemoteSignerOptions["tls"]>): Promise<void> {
    this.#reload = undefined;
    if (this.#closed) return;
    let http: Deno.HttpClient;
    try {
      http = await tlsClient(tls);
    } catch (e) {
      this.reloads.failed++;
      this.#log.warn("Keeping the signer's current TLS client: {error}", { error: (e as Error).message });
      return;
    }
    if (this.#closed) {
      http.close();
      return;
    }
    const old = this.#http;
    this.#http = http;
    this.#rpc = this.#client(this.#options.timeoutMs ?? 10_000);
    this.reloads.done++;
    this.#log.info("Reloaded the signer's TLS certificate and key");
    // Requests still under way on the old client finish within their timeout.
    if (old !== undefined) {
      const t = setTimeout(() => old.close(), (this.#options.timeoutMs ?? 10_000) + 1_000);
      Deno.unrefTimer(t);
    }
  }

  async sign(chainId: bigint, payloadHash: Uint8Array): Promise<Uint8Array> {
    // op-node's BlockPayloadArgs (V1) as encoding/json writes it.
    const args = {
      domain: Array.from(new Uint8Array(32)),
      chainId: (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(chainId.toString()),
      payloadHash: base64(payloadHash),
      senderAddress: bytesToHex(this.address),
    };
    const answer = await this.#rpc.call<unknown>("opsigner_signBlockPayload", [args]);
    let signature: Uint8Array;
    try {
      if (typeof answer !== "string") throw new Error(`not a hex string: ${JSON.stringify(answer)}`);
      signature = hexToBytes(answer);
      if (signature.length !== 65) throw new Error(`${signature.length} bytes, not 65`);
      const signer = blockSigner(blockSigningHash(chainId, payloadHash), signature);
      if (!equalBytes(signer, this.address)) {
        throw new Error(
          `it recovers to ${bytesToHex(signer)}, not --signer.address ${bytesToHex(this.address)}`,
        );
      }
    } catch (e) {
      throw new BaseError(
        "SIGNER_BAD_SIGNATURE",
        `The remote signer's signature is unusable: ${(e as Error).message}`,
        { cause: e },
      );
    }
    return signature;
  }

  close(): void {
    this.#closed = true;
    if (this.#reload !== undefined) clearTimeout(this.#reload);
    this.#watcher?.close();
    this.#http?.close();
  }
}
