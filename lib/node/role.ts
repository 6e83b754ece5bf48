/** What the composition root starts: one role, running, with its endpoints and a stop. */
import type {
  DevnetOptions,
  ExecutionOptions,
  NodeOptions,
  ParsedBatcher,
  ParsedDaServer,
  ValueSource,
} from "../config/mod.ts";

/** A started role. `stop` is idempotent. */
export interface RunningRole {
  /** Endpoint name → URL (e.g. `http` → `http://127.0.0.1:8545`), for logs and tests. */
  readonly endpoints: Readonly<Record<string, string>>;
  /** Resolves with the reason when the role decides to stop itself (e.g. --rollup.halt). */
  readonly halted?: Promise<string>;
  stop(): Promise<void>;
}

/** What the main thread hands the node Worker: plain, structured-clonable data. */
export type RoleRequest =
  | {
    role: "node";
    options: NodeOptions;
    execution: ExecutionOptions;
    sources: Record<string, ValueSource>;
    /** `keel devnet`: a batch submitter beside the sequencer, signing with this key (hex). */
    batcherKey?: string;
    /** `keel devnet`: how that batcher posts (`--data-availability-type`), calldata when absent. */
    batcherDa?: "calldata" | "blobs";
    /** `keel devnet`: an output proposer to this L2OutputOracle (hex address), signing with the key (hex). */
    proposer?: { key: string; oracle: string };
  }
  | {
    role: "devnet";
    options: DevnetOptions;
  }
  | {
    role: "batcher";
    options: ParsedBatcher["options"];
  }
  | {
    role: "da-server";
    options: ParsedDaServer["options"];
  }
  | {
    role: "execution";
    options: ExecutionOptions;
    sources: Record<string, ValueSource>;
  };
