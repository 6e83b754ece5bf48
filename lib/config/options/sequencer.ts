/** Spec 4.5 "Sequencer and verifier". */
import { option, type OptionTable, SPEC_4_5 } from "../option.ts";
import { bool, int, uint64 } from "../values.ts";

const group = "Sequencer and verifier";

export const SEQUENCER_OPTIONS = {
  sequencerEnabled: option({
    name: "sequencer.enabled",
    env: "SEQUENCER_ENABLED",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "enable sequencing of new L2 blocks",
  }),
  sequencerL1Confs: option({
    name: "sequencer.l1-confs",
    env: "SEQUENCER_L1_CONFS",
    // Any uint64, as op-node takes it. Spec 8: above the max sequencer drift (1800 s, 150 L1 blocks)
    // no block can be built in the sequencing window; the node warns at start (node_role.ts).
    kind: uint64,
    default: 4n,
    origin: SPEC_4_5,
    group,
    description:
      "L1 blocks of distance kept from the L1 head when picking an L1 origin (must not exceed the max sequencer drift, 150 blocks)",
  }),
  sequencerMaxSafeLag: option({
    name: "sequencer.max-safe-lag",
    env: "SEQUENCER_MAX_SAFE_LAG",
    kind: int(0, 2 ** 53 - 1),
    default: 0,
    origin: SPEC_4_5,
    group,
    description: "max L2 blocks between safe and unsafe heads; 0 disables",
  }),
  sequencerRecover: option({
    name: "sequencer.recover",
    env: "SEQUENCER_RECOVER",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "force preparing the next L1 origin strictly and creating empty L2 blocks",
  }),
  sequencerStopped: option({
    name: "sequencer.stopped",
    env: "SEQUENCER_STOPPED",
    kind: bool,
    default: false,
    origin: SPEC_4_5,
    group,
    description: "start the sequencer in stopped state",
  }),
  verifierL1Confs: option({
    name: "verifier.l1-confs",
    env: "VERIFIER_L1_CONFS",
    kind: int(0, 2 ** 53 - 1),
    default: 0,
    origin: SPEC_4_5,
    group,
    description: "L1 blocks of distance kept from the L1 head before deriving (10 to 20 recommended at most)",
  }),
} satisfies OptionTable;
