/**
 * lib/config: the option tables (one file per area under options/), argv/env parsing and
 * validation, `--help`, durations, and the version string. Produces plain options objects.
 */
export { formatDuration, parseDuration } from "./duration.ts";
export { CONFIG_EXIT_CODE, ConfigError, type ConfigErrorCode, type ConfigErrorMeta } from "./errors.ts";
export {
  batcherHelp,
  daServerHelp,
  devnetHelp,
  executionHelp,
  helpText,
  mainHelp,
  nodeHelp,
  optionsHelp,
} from "./help.ts";
export {
  type AnyOption,
  ENV_PREFIX,
  envName,
  envSuffixOf,
  formatDefault,
  type Group,
  GROUPS,
  type OptionsOf,
  type OptionSpec,
  type OptionTable,
} from "./option.ts";
export * from "./options/mod.ts";
export {
  COMMANDS,
  devChainInMemory,
  givenBy,
  type HelpTopic,
  NODE_COMMAND_TABLE,
  parseArgs,
  type ParsedBatcher,
  type ParsedCommand,
  type ParsedDaServer,
  type ParsedExecution,
  type ParsedExecutionExport,
  type ParsedExecutionImport,
  type ParsedExecutionInit,
  type ParsedExecutionPrune,
  type ParsedHelp,
  type ParsedNetworks,
  type ParsedNode,
  type ParsedVersion,
  type PresetValues,
  type Resolution,
  resolveOptions,
  type ValueSource,
} from "./parse.ts";
export { nearest } from "./suggest.ts";
export { type ValueKind } from "./values.ts";
export { formatVersion, gitCommit, keelVersion } from "./version.ts";
