/**
 * The option tables: the rollup node's (every row of spec 4.5, one file per area) and the
 * execution client's. `keel node` takes both (it embeds the execution client); `keel execution`
 * takes the execution table. The typed options objects derive from the tables.
 */
import type { OptionsOf } from "../option.ts";
import { ALTDA_OPTIONS } from "./altda.ts";
import { EXECUTION_OPTIONS } from "./execution.ts";
import { INTEROP_OPTIONS } from "./interop.ts";
import { L1_OPTIONS } from "./l1.ts";
import { LOG_OPTIONS } from "./log.ts";
import { METRICS_OPTIONS } from "./metrics.ts";
import { NETWORK_OPTIONS } from "./network.ts";
import { OVERRIDE_OPTIONS } from "./overrides.ts";
import { P2P_OPTIONS } from "./p2p.ts";
import { RPC_OPTIONS } from "./rpc.ts";
import { SEQUENCER_OPTIONS } from "./sequencer.ts";
import { SIGNER_OPTIONS } from "./signer.ts";

/** Every rollup-node option of spec 4.5, keyed by its field in `NodeOptions`. */
export const ROLLUP_OPTION_TABLE = {
  ...L1_OPTIONS,
  ...NETWORK_OPTIONS,
  ...OVERRIDE_OPTIONS,
  ...LOG_OPTIONS,
  ...RPC_OPTIONS,
  ...METRICS_OPTIONS,
  ...P2P_OPTIONS,
  ...SEQUENCER_OPTIONS,
  ...SIGNER_OPTIONS,
  ...ALTDA_OPTIONS,
  ...INTEROP_OPTIONS,
};

/** The execution client's options, keyed by its field in `ExecutionOptions`. */
/** `keel execution` also logs, and serves metrics and profiles, like op-geth. */
export const EXECUTION_OPTION_TABLE = { ...EXECUTION_OPTIONS, ...LOG_OPTIONS, ...METRICS_OPTIONS };

/** The area tables, for checks that no spread above silently shadows a key. */
export const ROLLUP_AREA_TABLES = [
  L1_OPTIONS,
  NETWORK_OPTIONS,
  OVERRIDE_OPTIONS,
  LOG_OPTIONS,
  RPC_OPTIONS,
  METRICS_OPTIONS,
  P2P_OPTIONS,
  SEQUENCER_OPTIONS,
  SIGNER_OPTIONS,
  ALTDA_OPTIONS,
  INTEROP_OPTIONS,
] as const;

/** Rollup-node options (spec 4.5) as typed fields; durations in milliseconds (`...Ms`). */
export type NodeOptions = OptionsOf<typeof ROLLUP_OPTION_TABLE>;
/** Execution-client options as typed fields. */
export type ExecutionOptions = OptionsOf<typeof EXECUTION_OPTION_TABLE>;

export { ALTDA_OPTIONS } from "./altda.ts";
export { API_GROUPS, type ApiGroup, EXECUTION_OPTIONS } from "./execution.ts";
export { INTEROP_OPTIONS } from "./interop.ts";
export { L1_OPTIONS, L1_RPC_KINDS, type L1RpcKind, L2_ENGINE_KINDS, type L2EngineKind } from "./l1.ts";
export { LOG_FORMATS, LOG_LEVELS, LOG_OPTIONS, type LogFormat, type LogLevel, logLevel } from "./log.ts";
export { METRICS_OPTIONS, PPROF_TYPES, type PprofType } from "./metrics.ts";
export {
  NETWORK_OPTIONS,
  networkName,
  ROLLUP_HALT_LEVELS,
  type RollupHaltLevel,
  SYNC_MODES,
  type SyncMode,
} from "./network.ts";
export { OVERRIDE_OPTIONS } from "./overrides.ts";
export { P2P_OPTIONS, P2P_SCORINGS, type P2pScoring } from "./p2p.ts";
export { RPC_OPTIONS } from "./rpc.ts";
export { SEQUENCER_OPTIONS } from "./sequencer.ts";
export { SIGNER_OPTIONS } from "./signer.ts";
export { DEVNET_OPTION_TABLE, DEVNET_OPTIONS } from "./devnet.ts";
export type DevnetOptions = import("../option.ts").OptionsOf<
  typeof import("./devnet.ts").DEVNET_OPTION_TABLE
>;
export { DA_SERVER_OPTION_TABLE, DA_SERVER_OPTIONS } from "./da_server.ts";
export type DaServerOptions = import("../option.ts").OptionsOf<
  typeof import("./da_server.ts").DA_SERVER_OPTION_TABLE
>;
export { BATCHER_OPTION_TABLE, BATCHER_OPTIONS } from "./batcher.ts";
export type BatcherOptions = import("../option.ts").OptionsOf<
  typeof import("./batcher.ts").BATCHER_OPTION_TABLE
>;
