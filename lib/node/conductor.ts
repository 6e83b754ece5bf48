/**
 * The op-conductor client of a sequencer (`--conductor.enabled`, `--conductor.rpc`,
 * `--conductor.rpc-timeout`), as op-node's (op-node/node/conductor.go): `conductor_leader` and
 * `conductor_commitUnsafePayload` (the block as an ExecutionPayloadEnvelope: `executionPayload` in the
 * Engine API's JSON, `parentBeaconBlockRoot` from Ecotone), each tried twice 50 ms apart within one
 * `--conductor.rpc-timeout`. After `admin_overrideLeader` the node leads without asking and commits
 * nothing (disaster recovery: the conductor is down).
 */
import { bytesToHex } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import { JsonRpcClient } from "../common/json_rpc_client.ts";
import { getLogger } from "../common/logger.ts";
import { executionPayloadToJson } from "../execution/engine/mod.ts";
import type { NodeOptions } from "../config/mod.ts";
import type { ExecutionPayload } from "../protocol/engine.ts";
import type { SequencerConductor } from "../rollup/sequencer/mod.ts";

const ATTEMPTS = 2;
const RETRY_DELAY_MS = 50;

export class ConductorClient implements SequencerConductor {
  readonly url: string;
  readonly timeoutMs: number;
  #override = false;
  readonly #log = getLogger(["node", "conductor"]);

  constructor(url: string, timeoutMs: number) {
    this.url = url;
    this.timeoutMs = timeoutMs;
  }

  get overridden(): boolean {
    return this.#override;
  }

  /** One call, tried again once after 50 ms, all within the timeout. */
  async #call(method: string, params: unknown[]): Promise<unknown> {
    const deadline = performance.now() + this.timeoutMs;
    let last: unknown;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const left = deadline - performance.now();
      if (left <= 0) break;
      try {
        return await new JsonRpcClient(this.url, { timeoutMs: left }).call(method, params);
      } catch (e) {
        last = e;
        if (attempt + 1 < ATTEMPTS) await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
      }
    }
    throw new BaseError(
      "CONDUCTOR_RPC",
      `${method} at ${this.url} failed: ${
        last instanceof Error ? last.message : `no answer within ${this.timeoutMs} ms`
      }`,
      { cause: last },
    );
  }

  async leader(): Promise<boolean> {
    if (this.#override) return true;
    const answer = await this.#call("conductor_leader", []);
    if (typeof answer !== "boolean") {
      throw new BaseError(
        "CONDUCTOR_RPC",
        `conductor_leader answered ${JSON.stringify(answer)}, not a boolean`,
      );
    }
    return answer;
  }

  async commitUnsafePayload(payload: ExecutionPayload, parentBeaconBlockRoot: Uint8Array | undefined) {
    if (this.#override) return;
    const envelope: Record<string, unknown> = { executionPayload: executionPayloadToJson(payload) };
    if (parentBeaconBlockRoot !== undefined) {
      envelope.parentBeaconBlockRoot = bytesToHex(parentBeaconBlockRoot);
    }
    await this.#call("conductor_commitUnsafePayload", [envelope]);
  }

  overrideLeader(): void {
    if (!this.#override) {
      this.#log.warn("Conductor overridden: this node leads and commits blocks to no conductor");
    }
    this.#override = true;
  }
}

/**
 * op-node's rules for --conductor.enabled (op-node/node/config.go Check): the sequencer must be enabled
 * and its state not persisted (the conductor decides it: the sequencer starts stopped).
 */
export function checkConductorOptions(o: NodeOptions): void {
  if (!o.conductorEnabled) return;
  if (!o.sequencerEnabled) {
    throw new BaseError("CONDUCTOR_CONFIG", "--conductor.enabled needs --sequencer.enabled");
  }
  if (o.rpcAdminState !== undefined) {
    throw new BaseError(
      "CONDUCTOR_CONFIG",
      "--rpc.admin-state must be unset with --conductor.enabled: the conductor starts and stops the sequencer",
    );
  }
}
