/**
 * `keel da-server`: an Alt-DA server for local chains and tests, with op-alt-da's da-server flags
 * (--addr, --port, --file.path, --generic-commitment). Environment: KEEL_DA_SERVER_<NAME>.
 */
import { envSuffixOf, option, optional, type OptionTable } from "../option.ts";
import { bool, host, path, port } from "../values.ts";
import { LOG_OPTIONS } from "./log.ts";

const group = "DA server";
const OP_ALT_DA = "op-alt-da da-server";

function named(name: string): { name: string; env: string } {
  return { name, env: envSuffixOf(`da-server.${name}`) };
}

export const DA_SERVER_OPTIONS = {
  addr: option({
    ...named("addr"),
    kind: host,
    default: "127.0.0.1",
    origin: OP_ALT_DA,
    group,
    description: "server listening address",
  }),
  port: option({
    ...named("port"),
    kind: port,
    default: 3100,
    origin: OP_ALT_DA,
    group,
    description: "server listening port",
  }),
  filePath: optional({
    ...named("file.path"),
    kind: path,
    origin: OP_ALT_DA,
    group,
    description: "directory the inputs are kept in (one file each, named by commitment); required",
  }),
  genericCommitment: option({
    ...named("generic-commitment"),
    kind: bool,
    default: false,
    origin: OP_ALT_DA,
    group,
    description: "POST /put answers generic commitments (for testing) instead of keccak256 ones",
  }),
} satisfies OptionTable;

export const DA_SERVER_OPTION_TABLE = { ...DA_SERVER_OPTIONS, ...LOG_OPTIONS };
