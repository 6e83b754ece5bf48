/** Spec 4.5 "Interop (highly experimental) and miscellaneous". */
import { option, optional, type OptionTable, SPEC_4_5 } from "../option.ts";
import { bool, host, path, port } from "../values.ts";

const group = "Interop (highly experimental) and miscellaneous";

export const INTEROP_OPTIONS = {
  interopDependencySet: optional({
    name: "interop.dependency-set",
    env: "INTEROP_DEPENDENCY_SET",
    kind: path,
    origin: SPEC_4_5,
    group,
    description: "path to dependency-set JSON file",
  }),
  interopJwtSecret: optional({
    name: "interop.jwt-secret",
    env: "INTEROP_JWT_SECRET",
    kind: path,
    origin: SPEC_4_5,
    group,
    description: "path to JWT secret (32 bytes, hex) for the interop RPC server; generated if empty",
  }),
  interopRpcAddr: optional({
    name: "interop.rpc.addr",
    env: "INTEROP_RPC_ADDR",
    kind: host,
    origin: SPEC_4_5,
    group,
    description: "WebSocket-only RPC address for a supervisor service; empty: disabled",
  }),
  interopRpcPort: option({
    name: "interop.rpc.port",
    env: "INTEROP_RPC_PORT",
    kind: port,
    default: 9645,
    origin: SPEC_4_5,
    group,
    description: "interop RPC port",
  }),
  experimentalSequencerApi: option({
    name: "experimental.sequencer-api",
    env: "EXPERIMENTAL_SEQUENCER_API",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "experimental test sequencer RPC",
  }),
  fetchWithdrawalRootFromState: option({
    name: "fetch-withdrawal-root-from-state",
    env: "FETCH_WITHDRAWAL_ROOT_FROM_STATE",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "read the withdrawal storage root from the state trie instead of the header (archive node)",
  }),
} satisfies OptionTable;
