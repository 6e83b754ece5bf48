/**
 * `keel devnet`: a local OP devnet in one command (an L1 dev chain, an L2 sequencer with its
 * batcher, an L2 verifier). Ports and block times; everything is kept under `--datadir`.
 */
import { envSuffixOf, KEEL, option, type OptionTable } from "../option.ts";
import { bool, int, oneOf, path, port } from "../values.ts";

const seconds = int(1, 3600, "<seconds>");
import { LOG_OPTIONS } from "./log.ts";

const group = "Devnet";

function named(name: string): { name: string; env: string } {
  return { name, env: envSuffixOf(`devnet.${name}`) };
}

export const DEVNET_OPTIONS = {
  datadir: option({
    ...named("datadir"),
    kind: path,
    default: "keel_devnet",
    origin: KEEL,
    group,
    description:
      "where the L1 chain, both L2 nodes, the genesis files and rollup.json are kept (reused on restart)",
  }),
  l1Port: option({
    ...named("l1.port"),
    kind: port,
    default: 8545,
    origin: KEEL,
    group,
    description: "the L1 dev chain's HTTP JSON-RPC port",
  }),
  l2Port: option({
    ...named("l2.port"),
    kind: port,
    default: 9545,
    origin: KEEL,
    group,
    description: "the L2 sequencer's HTTP JSON-RPC port (eth and rollupnode namespaces)",
  }),
  verifierPort: option({
    ...named("verifier.port"),
    kind: port,
    default: 9555,
    origin: KEEL,
    group,
    description: "the L2 verifier's HTTP JSON-RPC port (eth and rollupnode namespaces)",
  }),
  p2pPort: option({
    ...named("p2p.port"),
    kind: port,
    default: 9222,
    origin: KEEL,
    group,
    description: "the L2 sequencer's p2p TCP port (the verifier dials it for unsafe blocks)",
  }),
  l1BlockTime: option({
    ...named("l1.block-time"),
    kind: seconds,
    default: 4,
    origin: KEEL,
    group,
    description: "seconds between L1 blocks",
  }),
  l2BlockTime: option({
    ...named("l2.block-time"),
    kind: seconds,
    default: 2,
    origin: KEEL,
    group,
    description: "seconds between L2 blocks",
  }),
  altda: option({
    ...named("altda"),
    kind: bool,
    default: false,
    origin: KEEL,
    group,
    description:
      "an Alt-DA chain (when the devnet is first made): the DataAvailabilityChallenge on L1, a DA server, batches as keccak256 commitments",
  }),
  dataAvailabilityType: option({
    ...named("data-availability-type"),
    kind: oneOf(["calldata", "blobs"] as const),
    default: "calldata",
    origin: KEEL,
    group,
    description:
      "how the batcher posts batches: calldata, or blobs (EIP-4844 transactions; both L2 nodes read them through the L1's beacon API)",
  }),
  daPort: option({
    ...named("da.port"),
    kind: port,
    default: 3100,
    origin: KEEL,
    group,
    description: "the DA server's port (Alt-DA devnets)",
  }),
} satisfies OptionTable;

export const DEVNET_OPTION_TABLE = { ...DEVNET_OPTIONS, ...LOG_OPTIONS };
