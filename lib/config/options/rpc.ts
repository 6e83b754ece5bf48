/** Spec 4.5 "RPC": the rollup node's own JSON-RPC listener. */
import { option, optional, type OptionTable, SPEC_4_5 } from "../option.ts";
import { bool, host, path, port } from "../values.ts";

const group = "RPC";

export const RPC_OPTIONS = {
  rpcAddr: option({
    name: "rpc.addr",
    env: "RPC_ADDR",
    kind: host,
    default: "0.0.0.0",
    origin: SPEC_4_5,
    group,
    description: "rollup node RPC listening address",
  }),
  rpcPort: option({
    name: "rpc.port",
    env: "RPC_PORT",
    kind: port,
    default: 9545,
    origin: SPEC_4_5,
    group,
    description: "rollup node RPC listening port",
  }),
  rpcEnableAdmin: option({
    name: "rpc.enable-admin",
    env: "RPC_ENABLE_ADMIN",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "enable admin API (experimental)",
  }),
  rpcAdminState: optional({
    name: "rpc.admin-state",
    env: "RPC_ADMIN_STATE",
    kind: path,
    origin: SPEC_4_5,
    group,
    description: "file path that persists admin-API state changes across restarts; unset: disabled",
  }),
} satisfies OptionTable;
