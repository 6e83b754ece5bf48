/**
 * The superchain protocol-version signals of the L1 ProtocolVersions contract (superchain-upgrades.md
 * "Superchain Version signaling"), as op-node handles them (op-node/node/superchain.go): with
 * `--rollup.load-protocol-versions` (or `--rollup.halt`, which needs them) the node reads the `required`
 * and `recommended` versions from the contract's storage at the L1 head, at start and every
 * `--l1.runtime-config-reload-interval` (0: once), logs them against what keel supports (a warning when
 * keel is behind), reports them in the `op_node_default_protocol_versions` metric, passes them to the
 * engine (`engine_signalSuperchainV1`), and with `--rollup.halt=major|minor|patch` stops the node when
 * keel is behind the required version at that level.
 */
import { bytesToHex, hexToBytes } from "../common/bytes.ts";
import type { JsonRpcClient } from "../common/json_rpc_client.ts";
import { getLogger } from "../common/logger.ts";
import type { Metrics } from "../common/metrics.ts";
import type { EngineApi } from "../protocol/engine.ts";
import {
  compareProtocolVersions,
  formatProtocolVersion,
  haltsAt,
  KEEL_PROTOCOL_VERSION,
  RECOMMENDED_PROTOCOL_VERSION_SLOT,
  REQUIRED_PROTOCOL_VERSION_SLOT,
} from "../protocol/protocol_version.ts";

export interface ProtocolVersionsOptions {
  /** The ProtocolVersions contract (rollup config protocol_versions_address). */
  address: Uint8Array;
  /** --rollup.halt: "major", "minor", "patch", "none" or undefined. */
  halt?: string;
  /** --l1.runtime-config-reload-interval in milliseconds; 0 reads once. */
  reloadMs: number;
}

export interface ProtocolVersionsDeps {
  l1: JsonRpcClient;
  engine?: EngineApi;
  metrics?: Metrics;
  /** Called once when --rollup.halt says the node must stop, with the reason. */
  halt(reason: string): void;
}

export interface ProtocolSignals {
  required: Uint8Array;
  recommended: Uint8Array;
}

/** The two signals from the contract's storage at the L1 head. */
export async function readProtocolVersions(l1: JsonRpcClient, address: Uint8Array): Promise<ProtocolSignals> {
  const [required, recommended] = await l1.batch<string>(
    [REQUIRED_PROTOCOL_VERSION_SLOT, RECOMMENDED_PROTOCOL_VERSION_SLOT].map((slot) => ({
      method: "eth_getStorageAt",
      params: [bytesToHex(address), bytesToHex(slot), "latest"],
    })),
  );
  const word = (hex: string) => {
    const b = hexToBytes(hex);
    const out = new Uint8Array(32);
    out.set(b.subarray(Math.max(0, b.length - 32)), 32 - Math.min(32, b.length));
    return out;
  };
  return { required: word(required), recommended: word(recommended) };
}

export class ProtocolVersionsWatch {
  readonly options: ProtocolVersionsOptions;
  readonly #deps: ProtocolVersionsDeps;
  readonly #log = getLogger(["node", "protocol-versions"]);
  #timer: ReturnType<typeof setInterval> | undefined;
  #last = "";
  #halted = false;
  /** The last round (tests wait on it). */
  round: Promise<void> = Promise.resolve();

  constructor(options: ProtocolVersionsOptions, deps: ProtocolVersionsDeps) {
    this.options = options;
    this.#deps = deps;
  }

  start(): void {
    if (this.options.address.every((b) => b === 0)) {
      this.#log.warn("The rollup config names no ProtocolVersions contract: protocol versions are not read");
      return;
    }
    this.round = this.#check();
    if (this.options.reloadMs > 0) {
      this.#timer = setInterval(() => this.round = this.#check(), this.options.reloadMs);
    }
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #check(): Promise<void> {
    let signals: ProtocolSignals;
    try {
      signals = await readProtocolVersions(this.#deps.l1, this.options.address);
    } catch (e) {
      this.#log.warn("Cannot read the protocol versions on L1", { error: (e as Error).message });
      return;
    }
    const { required, recommended } = signals;
    // Both unset: the contract signals nothing (op-node skips the round).
    if (required.every((b) => b === 0) && recommended.every((b) => b === 0)) return;
    let engine: Uint8Array = new Uint8Array(32);
    try {
      engine = await this.#deps.engine?.signalSuperchain?.(recommended, required) ?? engine;
    } catch (e) {
      this.#log.warn("Cannot signal the protocol versions to the engine", { error: (e as Error).message });
    }
    const text = {
      local: formatProtocolVersion(KEEL_PROTOCOL_VERSION),
      engine: formatProtocolVersion(engine),
      recommended: formatProtocolVersion(recommended),
      required: formatProtocolVersion(required),
    };
    this.#deps.metrics?.recordProtocolVersions(text);
    const key = JSON.stringify(text);
    if (key !== this.#last) {
      this.#last = key;
      this.#log.info("Protocol versions signalled on L1", text);
      for (const [what, version] of [["recommended", recommended], ["required", required]] as const) {
        const cmp = compareProtocolVersions(KEEL_PROTOCOL_VERSION, version);
        if (cmp.startsWith("outdated")) {
          this.#log.warn("keel supports OP-Stack protocol {local}, L1 signals {what} {version}", {
            local: text.local,
            what,
            version: formatProtocolVersion(version),
          });
        }
      }
    }
    const cmp = compareProtocolVersions(KEEL_PROTOCOL_VERSION, required);
    if (!this.#halted && haltsAt(this.options.halt, cmp)) {
      this.#halted = true;
      this.stop();
      const reason =
        `--rollup.halt=${this.options.halt}: the required OP-Stack protocol version ${text.required} is newer than keel's ${text.local} (${cmp}); halting`;
      this.#log.error(reason);
      this.#deps.halt(reason);
    }
  }
}
