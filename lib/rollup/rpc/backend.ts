/** What the rollup node's RPC namespace reads from the running node. */
import type { RollupConfig } from "../../protocol/mod.ts";

export interface RollupRpcBackend {
  /** `keelVersion()`: the string `keel --version` prints. */
  readonly version: string;
  readonly rollupConfig: RollupConfig;
}
