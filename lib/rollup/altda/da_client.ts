/**
 * The HTTP client of an Alt-DA server (specs/experimental/alt-da.md "DA Server"; op-alt-da daclient.go):
 * - `GET /get/0x<type ++ commitment>`: the input (404: not found);
 * - `POST /put/0x<type ++ keccak256>` with the input: keccak256 commitments, computed here;
 * - `POST /put` with the input, the server answering the commitment (`type ++ bytes`): generic
 *   commitments made by the DA service (`--altda.da-service`).
 * Requests run at most `maxConcurrent` at a time and time out per `getTimeoutMs`/`putTimeoutMs` (0:
 * never); inputs read back are checked against keccak256 commitments unless `verifyOnRead` is off.
 */
import { bytesToHex } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { Semaphore } from "../../common/semaphore.ts";
import {
  type Commitment,
  commitmentMatches,
  decodeCommitment,
  encodeCommitment,
  keccakCommitment,
} from "../../protocol/altda.ts";

export interface DaClientOptions {
  /** The DA server's base URL (--altda.da-server). */
  url: string;
  /** Check inputs read against keccak256 commitments (--altda.verify-on-read). */
  verifyOnRead: boolean;
  /** The server makes the commitments (generic; --altda.da-service); else keccak256 here. */
  daService: boolean;
  /** Milliseconds; 0: no timeout. */
  getTimeoutMs: number;
  putTimeoutMs: number;
  /** Requests in flight at most (--altda.max-concurrent-da-requests). */
  maxConcurrent: number;
}

/** What derivation and the batcher need of a DA server. */
export interface DaStorage {
  /** The input of `c`; BaseError ALTDA_NOT_FOUND when the server does not have it. */
  getInput(c: Commitment): Promise<Uint8Array>;
  /** Stores `input` and returns its commitment. */
  setInput(input: Uint8Array): Promise<Commitment>;
}

export class DaClient implements DaStorage {
  readonly options: DaClientOptions;
  readonly #base: string;
  readonly #slots: Semaphore;

  constructor(options: DaClientOptions) {
    this.options = options;
    this.#base = options.url.replace(/\/+$/, "");
    this.#slots = new Semaphore(Math.max(1, options.maxConcurrent));
  }

  async #request(path: string, init: RequestInit, timeoutMs: number, what: string): Promise<Response> {
    await this.#slots.acquire();
    try {
      const signal = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
      return await fetch(`${this.#base}${path}`, { ...init, signal });
    } catch (e) {
      throw new BaseError("ALTDA_REQUEST_FAILED", `Cannot ${what}: ${(e as Error).message}`, { cause: e });
    } finally {
      this.#slots.release();
    }
  }

  async getInput(c: Commitment): Promise<Uint8Array> {
    const key = bytesToHex(encodeCommitment(c));
    const what = `get the input of commitment ${key} from the DA server`;
    const res = await this.#request(`/get/${key}`, { method: "GET" }, this.options.getTimeoutMs, what);
    if (res.status === 404) {
      await res.body?.cancel();
      throw new BaseError("ALTDA_NOT_FOUND", `Cannot ${what}: not found`);
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new BaseError("ALTDA_REQUEST_FAILED", `Cannot ${what}: HTTP ${res.status}`);
    }
    const input = new Uint8Array(await res.arrayBuffer());
    if (this.options.verifyOnRead && !commitmentMatches(c, input)) {
      throw new BaseError(
        "ALTDA_COMMITMENT_MISMATCH",
        `Cannot ${what}: the input does not match the commitment`,
      );
    }
    return input;
  }

  async setInput(input: Uint8Array): Promise<Commitment> {
    if (input.length === 0) {
      throw new BaseError("ALTDA_INVALID_INPUT", "Cannot store an empty input on the DA server");
    }
    const init: RequestInit = {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: input as Uint8Array<ArrayBuffer>,
    };
    if (!this.options.daService) {
      const c = keccakCommitment(input);
      const key = bytesToHex(encodeCommitment(c));
      const what = `store the input of commitment ${key} on the DA server`;
      const res = await this.#request(`/put/${key}`, init, this.options.putTimeoutMs, what);
      await res.body?.cancel();
      if (res.status !== 200) {
        throw new BaseError("ALTDA_REQUEST_FAILED", `Cannot ${what}: HTTP ${res.status}`);
      }
      return c;
    }
    const what = "store an input on the DA server";
    const res = await this.#request("/put", init, this.options.putTimeoutMs, what);
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new BaseError("ALTDA_REQUEST_FAILED", `Cannot ${what}: HTTP ${res.status}`);
    }
    const body = new Uint8Array(await res.arrayBuffer());
    try {
      return decodeCommitment(body);
    } catch (e) {
      throw new BaseError("ALTDA_REQUEST_FAILED", `Cannot ${what}: ${(e as Error).message}`, { cause: e });
    }
  }
}
