/** Spec 4.5 "Network and rollup": the preset network or a rollup config file, and sync mode. */
import { nearestNetworkNames, NETWORK_NAMES, resolveNetworkName } from "../../../networks/mod.ts";
import { option, optional, type OptionTable, SPEC_4_5 } from "../option.ts";
import { bool, oneOf, path, ValueError, type ValueKind } from "../values.ts";

const group = "Network and rollup";

export const ROLLUP_HALT_LEVELS = ["major", "minor", "patch", "none"] as const;
export type RollupHaltLevel = typeof ROLLUP_HALT_LEVELS[number];

export const SYNC_MODES = ["consensus-layer", "execution-layer"] as const;
export type SyncMode = typeof SYNC_MODES[number];

/** A preset network name (case-insensitive, with aliases), returned as its canonical name. */
export const networkName: ValueKind<string> = {
  placeholder: "<network>",
  form: "a preset network name (see `keel networks`), e.g. op-mainnet, base-sepolia",
  parse(text) {
    const name = resolveNetworkName(text.trim());
    if (name === undefined) throw new ValueError("unknown network", nearestNetworkNames(text.trim(), 1)[0]);
    return name;
  },
  format: (v) => v,
};

export const NETWORK_OPTIONS = {
  network: optional({
    name: "network",
    env: "NETWORK",
    kind: networkName,
    origin: SPEC_4_5,
    group,
    description:
      `predefined network name, one of ${NETWORK_NAMES.length} presets (list them with \`keel networks\`)`,
  }),
  rollupConfig: optional({
    name: "rollup.config",
    env: "ROLLUP_CONFIG",
    kind: path,
    origin: SPEC_4_5,
    group,
    description: "rollup chain parameters: path to a rollup.json in op-node's format",
  }),
  rollupHalt: optional({
    name: "rollup.halt",
    env: "ROLLUP_HALT",
    kind: oneOf(ROLLUP_HALT_LEVELS),
    origin: SPEC_4_5,
    group,
    description:
      "halt on incompatible protocol-version requirement signaled on L1: major, minor, patch, none",
  }),
  rollupL1ChainConfig: optional({
    name: "rollup.l1-chain-config",
    env: "ROLLUP_L1_CHAIN_CONFIG",
    kind: path,
    origin: SPEC_4_5,
    group,
    description:
      "path to L1 chain config .json (direct or under .config); ignored for mainnet and sepolia L1",
  }),
  rollupLoadProtocolVersions: option({
    name: "rollup.load-protocol-versions",
    env: "ROLLUP_LOAD_PROTOCOL_VERSIONS",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "load protocol versions from the L1 ProtocolVersions contract; report in logs and metrics",
  }),
  syncMode: option({
    name: "syncmode",
    env: "SYNCMODE",
    kind: oneOf(SYNC_MODES),
    default: "consensus-layer",
    origin: SPEC_4_5,
    group,
    description: "consensus-layer or execution-layer",
  }),
} satisfies OptionTable;
