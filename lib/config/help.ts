/** `--help` text, derived from the option tables: grouped by area, each option with env var and default. */
import { type AnyOption, envName, formatDefault, GROUPS, type OptionTable } from "./option.ts";
import { type HelpTopic, NODE_COMMAND_TABLE } from "./parse.ts";
import {
  BATCHER_OPTION_TABLE,
  DA_SERVER_OPTION_TABLE,
  DEVNET_OPTION_TABLE,
  EXECUTION_OPTION_TABLE,
} from "./options/mod.ts";

function optionLines(spec: AnyOption): string[] {
  const head = `  --${spec.name}${
    spec.kind.bool ? `[=${spec.kind.placeholder}]` : ` ${spec.kind.placeholder}`
  }`;
  const def = formatDefault(spec);
  const shownDefault = spec.secret || def === "" ? "" : ` (default: ${def})`;
  return [`${head}  [$${envName(spec)}]`, `      ${spec.description}${shownDefault}`];
}

/** Help for the options of one table, grouped in the spec's order of areas. */
export function optionsHelp(table: OptionTable): string {
  const out: string[] = [];
  for (const group of GROUPS) {
    const specs = Object.values(table).filter((s) => s.group === group);
    if (specs.length === 0) continue;
    out.push("", `${group}:`);
    for (const spec of specs) out.push(...optionLines(spec));
  }
  return out.join("\n");
}

const COMMON_FOOTER = [
  "",
  "Other:",
  "  --help, -h      show help",
  "  --version, -v   print version",
  "",
  "Options are --name=value or --name value; booleans also as a bare --name.",
  "Each option can also be set by its environment variable; a flag wins over the environment,",
  "the environment over the network preset, the preset over the default.",
  "Durations take Go's form: 6m24s, 1h0m0s, 500ms, 0.",
].join("\n");

export function mainHelp(): string {
  return [
    "keel: an OP-Stack L2 node (execution client + rollup node) in one binary",
    "",
    "Usage:",
    "  keel node [options]                           rollup node with its embedded execution client",
    "                                                (or an external engine with --l2)",
    "  keel execution [options]                      execution client only",
    "  keel execution init --datadir DIR genesis.json  write a chain's genesis into a data dir",
    "  keel execution export --datadir DIR FILE [FIRST [LAST]]  write the chain's blocks to a file (RLP; .gz)",
    "  keel execution import --datadir DIR FILE...   import blocks from such files, each one validated",
    "  keel execution prune --datadir DIR [RECENT]   delete the state of all but the last RECENT (128) blocks",
    "  keel devnet [options]                         a local OP devnet: L1, sequencer with batcher, verifier",
    "  keel batcher [options]                        the batch submitter of a sequencer (as op-batcher)",
    "  keel da-server --file.path DIR [options]      an Alt-DA server for local chains (as op-alt-da's)",
    "  keel networks                                 list the preset networks",
    "  keel --version                                print the version",
    "  keel help <command>                           options of a command",
  ].join("\n");
}

export function nodeHelp(): string {
  return [
    "Usage: keel node [options]",
    "",
    "Runs the rollup node. Without --l2 it embeds keel's execution client, configured by the",
    "execution client options below; with --l2 it drives an external engine.",
    "One of --network or --rollup.config is required.",
    optionsHelp(NODE_COMMAND_TABLE),
    COMMON_FOOTER,
  ].join("\n");
}

export function executionHelp(): string {
  return [
    "Usage: keel execution [options]",
    "       keel execution init --datadir DIR genesis.json",
    "       keel execution export --datadir DIR FILE [FIRST [LAST]]",
    "       keel execution import --datadir DIR FILE...",
    "       keel execution prune --datadir DIR [RECENT]",
    optionsHelp(EXECUTION_OPTION_TABLE),
    COMMON_FOOTER,
  ].join("\n");
}

export function devnetHelp(): string {
  return [
    "Usage: keel devnet [options]",
    "",
    "Runs a local OP devnet in one process: an L1 dev chain (sealing every --l1.block-time seconds),",
    "an L2 sequencer node with its batch submitter, and an L2 verifier node that derives the chain",
    "from L1. The test mnemonic's accounts are funded on both chains.",
    optionsHelp(DEVNET_OPTION_TABLE),
    COMMON_FOOTER,
  ].join("\n");
}

export function batcherHelp(): string {
  return [
    "Usage: keel batcher --l2-eth-rpc URL --rollup-rpc URL --private-key KEY [options]",
    "",
    "Submits a sequencer's L2 blocks to L1, as op-batcher does: from the safe head (rollup RPC) on, the",
    "blocks (read from the L2 RPC) go into channels of singular batches, cut into frames, one EIP-1559",
    "calldata transaction per frame to the rollup config's batch inbox, signed with the batcher key.",
    optionsHelp(BATCHER_OPTION_TABLE),
    COMMON_FOOTER,
  ].join("\n");
}

export function daServerHelp(): string {
  return [
    "Usage: keel da-server --file.path DIR [options]",
    "",
    'Serves Alt-DA inputs as op-alt-da\'s da-server does (specs/experimental/alt-da.md "DA Server"):',
    "GET /get/0x<commitment>, POST /put/0x<commitment> (a keccak256 commitment must match its input),",
    "POST /put answering the commitment. Each input is a file in --file.path named by its commitment.",
    optionsHelp(DA_SERVER_OPTION_TABLE),
    COMMON_FOOTER,
  ].join("\n");
}

export function networksHelp(): string {
  return "Usage: keel networks\n\nLists every preset network: name, chain id, L1 chain id, block time, aliases.";
}

/** The help page for a topic of `ParsedHelp`. */
export function helpText(topic: HelpTopic): string {
  switch (topic) {
    case "main":
      return mainHelp();
    case "node":
      return nodeHelp();
    case "execution":
      return executionHelp();
    case "networks":
      return networksHelp();
    case "devnet":
      return devnetHelp();
    case "da-server":
      return daServerHelp();
    case "batcher":
      return batcherHelp();
  }
}
