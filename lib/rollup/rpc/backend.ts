/** What the rollup node's RPC namespace reads from the running node. */
import type { RollupConfig } from "../../protocol/mod.ts";
import type { L2Output, SafeHeadRecord, SyncStatus } from "../driver/mod.ts";

export interface RollupRpcBackend {
  /** `keelVersion()`: the string `keel --version` prints. */
  readonly version: string;
  readonly rollupConfig: RollupConfig;
  /** The driver, when the node derives from L1 (`--l1`). */
  readonly driver?: {
    syncStatus(): Promise<SyncStatus>;
    outputAtBlock(number: bigint): Promise<[Uint8Array, Uint8Array]>;
    output(number: bigint): Promise<L2Output>;
  };
  /** The safe-head database of `--safedb.path`, when enabled. */
  readonly safeDb?: { at(l1Number: bigint): SafeHeadRecord | undefined };
}
